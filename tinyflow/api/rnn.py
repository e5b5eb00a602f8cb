"""tf.nn.dynamic_rnn, tf.nn.static_rnn, their bidirectional forms and tf.nn.raw_rnn, as TF 1.15 builds them.

dynamic_rnn runs the cell in a tf.while_loop over time (the loop's bound is the number of steps,
so its gradient is a bounded scan); static_rnn calls the cell once per list element. Both create
the cell's variables under the scope "rnn" (or `scope`), and with `sequence_length` they give zeros
after each sequence's end and carry its last state to the end, as TF does.
"""
from tinyflow.graph import dtypes as dt
from tinyflow.ops.core import array_ops, indexing_ops, math_ops
from tinyflow.ops import variable_scope as vs
from tinyflow.ops.core.base import convert_to_tensor
from tinyflow.ops.control_flow_ops import flatten, pack_as, while_loop
from tinyflow.ops.functional_ops import get_item, set_item
from tinyflow.ops.core.sequence_ops import reverse, reverse_sequence

__all__ = ["bidirectional_dynamic_rnn", "dynamic_rnn", "raw_rnn", "static_bidirectional_rnn", "static_rnn",
           "static_state_saving_rnn"]


def _initial_state(cell, initial_state, batch, dtype):
    if initial_state is not None:
        return initial_state
    if dtype is None:
        raise ValueError("If there is no initial_state, you must give a dtype.")
    return cell.zero_state(batch, dtype)


def _lengths(sequence_length):
    if sequence_length is None:
        return None
    lengths = math_ops.to_int32(convert_to_tensor(sequence_length, name="sequence_length"))
    if lengths.shape.ndims not in (None, 1):
        raise ValueError("sequence_length must be a vector of length batch_size, but saw shape: %s" % lengths.shape)
    return array_ops.identity(lengths, name="sequence_length")


def _masked_step(cell, time, inputs, state, lengths):
    """One cell step; past a sequence's length its output is zeros and its state is carried over."""
    output, new_state = cell(inputs, state)
    if lengths is None:
        return output, new_state
    done = math_ops.greater_equal(time, lengths)  # [batch]
    output = indexing_ops.where(done, array_ops.zeros_like(output), output)
    new_state = pack_as(new_state, [indexing_ops.where(done, old, new)
                                    for old, new in zip(flatten(state), flatten(new_state))])
    return output, new_state


def dynamic_rnn(cell, inputs, sequence_length=None, initial_state=None, dtype=None, parallel_iterations=None,
                swap_memory=False, time_major=False, scope=None):
    """Runs `cell` over the time dimension of `inputs` ([batch, time, depth], or [time, batch, depth]
    with time_major=True) in a tf.while_loop. Returns (outputs in the same layout, final state)."""
    with vs.variable_scope(scope or "rnn"):
        inputs = convert_to_tensor(inputs, name="inputs")
        if inputs.shape.ndims is not None and inputs.shape.ndims < 3:
            raise ValueError("Input must have rank at least 3, saw shape: %s" % inputs.shape)
        x = inputs if time_major else array_ops.transpose(inputs, [1, 0] + list(range(2, inputs.shape.ndims)))
        steps = x.shape[0].value
        n = convert_to_tensor(steps, dtype=dt.int32) if steps is not None else array_ops.shape(x)[0]
        batch = x.shape[1].value if x.shape[1].value is not None else array_ops.shape(x)[1]
        state = _initial_state(cell, initial_state, batch, dtype)
        lengths = _lengths(sequence_length)
        # the outputs, [time, batch, output_size], written one step at a time (TF's output TensorArray)
        dims = [steps if steps is not None else n, batch, cell.output_size]
        # a cell's output has its state's dtype, unless it says otherwise (crf's decode cell)
        outputs = array_ops.zeros(dims, dtype=getattr(cell, "output_dtype", None) or flatten(state)[0].dtype)

        def body(time, outputs, state):
            output, new_state = _masked_step(cell, time, get_item(x, time), state, lengths)
            return time + 1, set_item(outputs, time, output), new_state

        _, outputs, final_state = while_loop(lambda time, *_: time < n, body,
                                             [convert_to_tensor(0, dtype=dt.int32, name="time"), outputs, state],
                                             maximum_iterations=n, return_same_structure=True)
        if not time_major:
            outputs = array_ops.transpose(outputs, [1, 0] + list(range(2, outputs.shape.ndims or 3)))
        return outputs, final_state


def static_rnn(cell, inputs, initial_state=None, dtype=None, sequence_length=None, scope=None):
    """Runs `cell` over a list of [batch, depth] inputs, one call per step (variables made once).
    Returns (list of outputs, final state)."""
    if not isinstance(inputs, (list, tuple)) or not inputs:
        raise TypeError("inputs must be a non-empty list")
    with vs.variable_scope(scope or "rnn") as varscope:
        first = convert_to_tensor(inputs[0])
        batch = first.shape[0].value if first.shape[0].value is not None else array_ops.shape(first)[0]
        state = _initial_state(cell, initial_state, batch, dtype)
        lengths = _lengths(sequence_length)
        outputs = []
        for time, x in enumerate(inputs):
            if time > 0:
                varscope.reuse_variables()
            output, state = _masked_step(cell, time, x, state, lengths)
            outputs.append(output)
        return outputs, state


def static_state_saving_rnn(cell, inputs, state_saver, state_name, sequence_length=None, scope=None):
    """static_rnn starting from `state_saver.state(state_name)` (a structure of names for a tuple state),
    whose final state is handed to `state_saver.save_state(name, value)`; the last output and the state
    returned depend on those saves. Returns (outputs, state)."""
    is_tuple = isinstance(cell.state_size, (list, tuple))
    if is_tuple != isinstance(state_name, (list, tuple)):
        raise ValueError("state_name should be the same type as cell.state_size.  state_name: %s, cell.state_size: %s"
                         % (state_name, cell.state_size))
    names = flatten(state_name)
    if is_tuple and len(names) != len(flatten(cell.state_size)):
        raise ValueError("#elems(state_name) != #elems(state_size): %d vs. %d"
                         % (len(names), len(flatten(cell.state_size))))
    initial = (pack_as(cell.state_size, [state_saver.state(n) for n in names]) if is_tuple
               else state_saver.state(state_name))
    outputs, state = static_rnn(cell, inputs, initial_state=initial, sequence_length=sequence_length, scope=scope)
    saves = [state_saver.save_state(n, s) for n, s in zip(names, flatten(state))]
    from tinyflow.graph.core import get_default_graph
    with get_default_graph().control_dependencies(saves):
        outputs[-1] = pack_as(outputs[-1], [array_ops.identity(o) for o in flatten(outputs[-1])])
        state = pack_as(state, [array_ops.identity(s) for s in flatten(state)])
    return outputs, state


def _reverse(x, lengths, time_axis):
    if lengths is None:
        return reverse(x, [time_axis])
    return reverse_sequence(x, lengths, seq_axis=time_axis, batch_axis=1 - time_axis)


def bidirectional_dynamic_rnn(cell_fw, cell_bw, inputs, sequence_length=None, initial_state_fw=None,
                              initial_state_bw=None, dtype=None, parallel_iterations=None, swap_memory=False,
                              time_major=False, scope=None):
    """dynamic_rnn forwards ("fw") and over the reversed sequences ("bw"). Returns
    ((outputs_fw, outputs_bw), (state_fw, state_bw)), the bw outputs reversed back into time order."""
    with vs.variable_scope(scope or "bidirectional_rnn"):
        with vs.variable_scope("fw") as fw_scope:
            out_fw, state_fw = dynamic_rnn(cell_fw, inputs, sequence_length, initial_state_fw, dtype,
                                           time_major=time_major, scope=fw_scope)
        time_axis = 0 if time_major else 1
        with vs.variable_scope("bw") as bw_scope:
            lengths = _lengths(sequence_length)
            reversed_in = _reverse(convert_to_tensor(inputs), lengths, time_axis)
            out_bw, state_bw = dynamic_rnn(cell_bw, reversed_in, sequence_length, initial_state_bw, dtype,
                                           time_major=time_major, scope=bw_scope)
        return (out_fw, _reverse(out_bw, lengths, time_axis)), (state_fw, state_bw)


def static_bidirectional_rnn(cell_fw, cell_bw, inputs, initial_state_fw=None, initial_state_bw=None, dtype=None,
                             sequence_length=None, scope=None):
    """static_rnn forwards and backwards; returns (outputs [fw; bw concatenated per step], state_fw,
    state_bw)."""
    with vs.variable_scope(scope or "bidirectional_rnn"):
        with vs.variable_scope("fw") as fw_scope:
            out_fw, state_fw = static_rnn(cell_fw, inputs, initial_state_fw, dtype, sequence_length, scope=fw_scope)
        with vs.variable_scope("bw") as bw_scope:
            lengths = _lengths(sequence_length)
            stacked = array_ops.stack(list(inputs), axis=1)
            reversed_in = array_ops.unstack(_reverse(stacked, lengths, 1), axis=1)
            out_bw, state_bw = static_rnn(cell_bw, reversed_in, initial_state_bw, dtype, sequence_length,
                                          scope=bw_scope)
            out_bw = array_ops.unstack(_reverse(array_ops.stack(out_bw, axis=1), lengths, 1), axis=1)
        return [array_ops.concat([f, b], 1) for f, b in zip(out_fw, out_bw)], state_fw, state_bw


def raw_rnn(cell, loop_fn, parallel_iterations=None, swap_memory=False, scope=None):
    """TF's raw_rnn: `loop_fn(time, cell_output, cell_state, loop_state) -> (finished, next_input,
    next_cell_state, emit_output, next_loop_state)` says, at each step, what the cell reads next and what is
    emitted (at time 0 cell_output and cell_state are None: it gives the initial state, and its emit_output
    the structure emitted, cell.output_size when None). The loop runs until every batch entry is finished;
    a finished entry emits zeros and keeps its state. Returns (emit_ta: TensorArrays [time, batch, ...] of
    the emitted structure, final_state, final_loop_state or None)."""
    from tinyflow.ops.core.base import constant
    from tinyflow.ops.functional_ops import TensorArray
    from tinyflow.graph.shapes import TensorShape
    if not callable(loop_fn):
        raise TypeError("loop_fn must be a callable")
    with vs.variable_scope(scope or "rnn"):
        time = constant(0, dtype=dt.int32, name="time")
        finished, next_input, state, emit_structure, loop_state = loop_fn(time, None, None, None)
        keep_loop_state = loop_state is not None
        loop_state = loop_state if keep_loop_state else constant(0, dtype=dt.int32)
        first = convert_to_tensor(flatten(next_input)[0])
        batch = first.shape[0].value if first.shape[0].value is not None else array_ops.shape(first)[0]
        state = pack_as(state, [convert_to_tensor(s) for s in flatten(state)])
        if emit_structure is not None:
            sizes = [convert_to_tensor(e).shape[1:] for e in flatten(emit_structure)]
            dtypes = [convert_to_tensor(e).dtype for e in flatten(emit_structure)]
        else:
            emit_structure = cell.output_size
            sizes = [TensorShape(size) for size in flatten(emit_structure)]
            dtypes = [flatten(state)[0].dtype] * len(sizes)
        zero_emit = [array_ops.zeros([batch] + s.as_list(), d) for s, d in zip(sizes, dtypes)]
        # the emitted steps so far, [time, batch, ...]: a loop variable that grows one step per iteration
        emits = [array_ops.zeros([0, batch] + s.as_list(), d) for s, d in zip(sizes, dtypes)]

        def keep_finished(done, old, new):
            return [new if n.shape.ndims == 0 else indexing_ops.where(done, o, n) for o, n in zip(old, new)]

        def body(time, done, current_input, emits, state, loop_state):
            output, cell_state = cell(current_input, state)
            next_finished, next_input, next_state, emit, next_loop_state = loop_fn(time + 1, output, cell_state,
                                                                                   loop_state)
            emit = keep_finished(done, zero_emit, [convert_to_tensor(e) for e in flatten(emit)])
            next_state = pack_as(state, keep_finished(done, flatten(state),
                                                      [convert_to_tensor(s) for s in flatten(next_state)]))
            emits = [array_ops.concat([e, array_ops.expand_dims(x, 0)], 0) for e, x in zip(emits, emit)]
            return (time + 1, math_ops.logical_or(done, next_finished), next_input, emits, next_state,
                    loop_state if next_loop_state is None else next_loop_state)

        loop_vars = [time, convert_to_tensor(finished), next_input, emits, state, loop_state]
        invariants = pack_as(loop_vars, [convert_to_tensor(v).shape for v in flatten(loop_vars)])
        invariants[3] = [TensorShape([None]).concatenate(e.shape[1:]) for e in emits]
        out = while_loop(lambda time, done, *_: math_ops.logical_not(math_ops.reduce_all(done)), body, loop_vars,
                         shape_invariants=invariants, return_same_structure=True)
        emit_ta = pack_as(emit_structure, [TensorArray(d, flow=e) for e, d in zip(out[3], dtypes)])
        return emit_ta, out[4], out[5] if keep_loop_state else None
