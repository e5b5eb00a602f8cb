"""slim.model_analyzer: the variables' and ops' sizes, printed as TF does."""


def analyze_vars(variables, print_info=False):
    """(total parameters, total bytes) of the variables; with print_info, one line per variable."""
    if print_info:
        print("---------")
        print("Variables: name (type shape) [size]")
        print("---------")
    total_size = total_bytes = 0
    for var in variables:
        size = var.shape.num_elements() or 0
        nbytes = size * var.dtype.size
        total_size += size
        total_bytes += nbytes
        if print_info:
            dtype = var.dtype.name if var.dtype.name.endswith("_ref") else var.dtype.name + "_ref"
            shape = "x".join(str(d) for d in var.shape.as_list())
            print(var.name, "(%s %s) [%d, bytes: %d]" % (dtype, shape, size, nbytes))
    if print_info:
        print("Total size of variables: %d" % total_size)
        print("Total bytes of variables: %d" % total_bytes)
    return total_size, total_bytes


def analyze_ops(graph, print_info=False):
    """(total size of the ops' outputs) of a graph's ops."""
    total_size = 0
    for op in graph.get_operations():
        size = 0
        for out in op.outputs:
            n = out.shape.num_elements() if out.shape.is_fully_defined() else None
            size += n or 0
        total_size += size
        if print_info:
            print(op.name, "\t", op.type, "\t", [o.shape for o in op.outputs], "[%d]" % size)
    return total_size
