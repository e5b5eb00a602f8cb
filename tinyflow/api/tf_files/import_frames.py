"""TF1's control-flow frames in a GraphDef, found and turned into tinyflow's own tf.cond and tf.while_loop.

TF1 writes a tf.while_loop as a frame: Enter nodes take values in, Merge(Enter, NextIteration) is a
loop variable, LoopCond the predicate, Switch(var, LoopCond) sends a variable to the body (output 1)
or to Exit (output 0), NextIteration carries the body's result back. A tf.cond is Switch(x, pred)
nodes whose outputs 0 and 1 start the false and true branches, and Merge nodes joining them.

`analyse` gives each node its frame (the loop it is in) and its condition context (the (pred, branch)
pairs it runs under, as XLA's functionalize_cond computes them), and checks that they are
consistent; a node where they are not gets an error naming it. The GraphDef is then cut into units:
a plain node, a loop (every node of a frame, nested ones included) or a cond (every node under one
pred at one nesting level). builder.py builds a loop as one tf.while_loop whose cond and body build
the frame's nodes, and a cond as one tf.cond whose branches build theirs, so the import is still
one jitted function.
"""
from tinyflow.graph import errors

LOOP_STRUCTURE = ("Enter", "Exit", "NextIteration", "LoopCond", "Merge", "Switch")


def err(node, message):
    return errors.InvalidArgumentError(None, None, "Node '%s' (op: '%s'): %s" % (node.name, node.op, message))


def parse_input(name):
    """('node', output index, is_control) of a NodeDef input string."""
    if name.startswith("^"):
        return name[1:], -1, True
    node, _, idx = name.partition(":")
    if idx and not idx.isdigit():
        raise ValueError("bad input name %r" % name)
    return node, int(idx or 0), False


def is_back_edge(node, src_node):
    """NextIteration -> Merge: the edge that closes a loop (left out of the topological order)."""
    return node.op == "Merge" and src_node is not None and src_node.op == "NextIteration"


class Analysis:
    """Frames, contexts and units of a validated GraphDef (nodes given in topological order)."""

    def __init__(self, order, by_name):
        self.by_name = by_name
        self.order = order
        self.index = {n.name: i for i, n in enumerate(order)}
        self.frame = {}         # node -> the frame whose unit it belongs to ("" the top level)
        self.parent = {"": None}  # frame -> enclosing frame
        self.ctx = {}           # node -> ((pred input string, branch), ...)
        self.frame_ctx = {}     # frame -> the context its loop runs in
        self._components = {}   # cond key -> {node: its part}
        self.has_frames = any(n.op in LOOP_STRUCTURE for n in order)
        self.grad_of = {}       # a frame of TF's while-loop gradient (it pops stacks) -> the forward frame
        if self.has_frames:
            for n in order:
                self._frame_of(n)
                self._ctx_of(n)
            for g in {self.frame[n.name] for n in order if n.op == "StackPopV2"} - {""}:
                forward = [f for f in self.parent if f and f != g and g.endswith("/" + f)
                           and self.parent[f] == self.parent[g]]
                if forward:
                    self.grad_of[g] = max(forward, key=len)

    # ---- frames ----------------------------------------------------------------------------------
    def _srcs(self, n, data_only=False):
        out = []
        for inp in n.input:
            src, idx, control = parse_input(inp)
            if src not in self.by_name or (control and data_only):
                continue  # an input_map entry
            if is_back_edge(n, self.by_name[src]):
                continue
            out.append((self.by_name[src], idx, control))
        return out

    def out_frame(self, n):
        f = self.frame[n.name]
        return self.parent[f] if n.op == "Exit" else f

    def _frame_of(self, n):
        srcs = self._srcs(n, data_only=True) or self._srcs(n)
        frames = {self.out_frame(s) for s, _, _ in srcs}
        if len(frames) > 1:
            raise err(n, "its inputs come from different while-loop frames (%s); TF1 frames must nest, with "
                      "Enter and Exit between them" % ", ".join(sorted(repr(f) for f in frames)))
        outer = frames.pop() if frames else ""
        if n.op == "Enter":
            name = n.attr["frame_name"].s.decode("utf-8", "replace") if "frame_name" in n.attr else ""
            if not name:
                raise err(n, "Enter node without a frame_name")
            if self.parent.setdefault(name, outer) != outer:
                raise err(n, "frame '%s' is entered from two different frames" % name)
            self.frame[n.name] = name
        elif n.op == "Exit" and outer == "":
            raise err(n, "Exit node outside of any while loop")
        else:
            self.frame[n.name] = outer

    # ---- condition contexts ----------------------------------------------------------------------
    def is_loop_switch(self, n):
        return n.op == "Switch" and len(n.input) == 2 and self._node(n.input[1]).op == "LoopCond"

    def is_loop_merge(self, n):
        ops = sorted(self._node(i).op for i in n.input if not i.startswith("^"))
        return n.op == "Merge" and ops == ["Enter", "NextIteration"]

    def _node(self, inp):
        return self.by_name.get(parse_input(inp)[0]) or _Missing

    def pred_of(self, switch):
        """The predicate of a cond's Switch, as 'node:index' seen through Identity nodes (TF1's cond
        switches its pivot on `pred` and its data on `pred_id = Identity(pred)`)."""
        src, idx, _ = parse_input(switch.input[1])
        n = self.by_name.get(src)
        while n is not None and n.op == "Identity" and n.input and not n.input[0].startswith("^"):
            src, idx, _ = parse_input(n.input[0])
            n = self.by_name.get(src)
        return "%s:%d" % (src, idx)

    def input_ctx(self, src, idx):
        c = self.ctx[src.name]
        if src.op == "Switch" and not self.is_loop_switch(src):  # idx -1: a control edge, either branch
            c = c + ((self.pred_of(src), idx),)
        return c

    def _ctx_of(self, n):
        srcs = self._srcs(n)
        if n.op == "Merge" and not self.is_loop_merge(n):
            data = [(s, i) for s, i, c in srcs if not c]
            if len(data) != 2:
                raise err(n, "tinyflow imports Merge nodes of a tf.cond with 2 inputs, this one has %d" % len(data))
            (a, b) = [self.input_ctx(s, i) for s, i in data]
            if not (a and b and len(a) == len(b) and a[:-1] == b[:-1] and a[-1][0] == b[-1][0]
                    and {a[-1][1], b[-1][1]} == {0, 1}):
                raise err(n, "it does not join the two branches of one tf.cond (Switch outputs 0 and 1 of one "
                          "predicate): %s, %s" % (_show(a), _show(b)))
            self.ctx[n.name] = a[:-1]
            return
        if n.op == "Merge":  # a loop variable: the context of the value entering
            srcs = [(s, i, c) for s, i, c in srcs if s.op == "Enter"]
        longest = ()
        for s, i, _ in srcs:
            c = self.input_ctx(s, i)
            short, long_ = (c, longest) if len(c) <= len(longest) else (longest, c)
            if short and short[-1][1] == -1 and long_[len(short) - 1:len(short)] and \
                    long_[len(short) - 1][0] == short[-1][0]:
                short = short[:-1] + (long_[len(short) - 1],)  # after a Switch ran: either branch fits
            if long_[:len(short)] != short:
                raise err(n, "it takes inputs from both branches of a tf.cond (%s and %s)" % (_show(c), _show(longest)))
            longest = long_
        self.ctx[n.name] = longest
        if n.op == "Enter":
            f = self.frame[n.name]
            old = self.frame_ctx.get(f, longest)
            if len(longest) < len(old):
                longest, old = old, longest
            if longest[:len(old)] != old:
                raise err(n, "the Enter nodes of frame '%s' are in different branches of a tf.cond" % f)
            self.frame_ctx[f] = longest

    # ---- units -----------------------------------------------------------------------------------
    def member_ctx(self, n):
        """The context that decides n's unit: a cond's Switch and Merge belong to the cond."""
        if n.op == "Switch" and not self.is_loop_switch(n):
            return self.ctx[n.name] + ((self.pred_of(n), -1),)
        if n.op == "Merge" and not self.is_loop_merge(n):
            s, i, _ = [x for x in self._srcs(n) if not x[2]][0]
            return self.input_ctx(s, i)
        return self.ctx[n.name]

    def unit_of(self, frame, ctx, n):
        """The unit n belongs to in scope (frame, ctx): ("node", name), ("loop", frame) or
        ("cond", frame, ctx, pred, component). None: n is not inside the scope."""
        u = self._unit_key(frame, ctx, n)
        if u is None or u[0] != "cond":
            return u
        if u not in self._components:
            self._components[u] = self._split(u)
        return u + (self._components[u][n.name],)

    def _split(self, key):
        """The connected parts of the nodes under one pred at one level: distinct tf.conds on the same
        predicate (a batch norm's and a dropout's on `is_training`) stay distinct units."""
        nodes = [n for n in self.order if self._unit_key(key[1], key[2], n) == key]
        root = {n.name: n.name for n in nodes}

        def find(x):
            while root[x] != x:
                root[x] = root[root[x]]
                x = root[x]
            return x
        for n in nodes:
            for inp in n.input:
                src = parse_input(inp)[0]
                if src in root and not (self.by_name[src].op == "Merge" and self.ctx[src] == key[2]):
                    root[find(src)] = find(n.name)  # (a cond's Merge is its output: what reads it comes after)
        return {n.name: find(n.name) for n in nodes}

    def _unit_key(self, frame, ctx, n):
        f = self.frame[n.name]
        if f != frame:
            chain = f
            while chain is not None and self.parent[chain] != frame:
                chain = self.parent[chain]
            if chain is None:
                return None
            c = self.frame_ctx[chain]
            if c[:len(ctx)] != ctx:
                return None
            return ("loop", chain) if c == ctx else ("cond", frame, ctx, c[len(ctx)][0])
        c = self.member_ctx(n)
        if c == ctx or (n.op != "Switch" and c and c[-1][1] == -1 and ctx and c[:-1] == ctx[:-1]
                        and c[-1][0] == ctx[-1][0]):  # waits on a Switch only (TF's tuple): built in each branch
            return ("node", n.name)
        if len(c) > len(ctx) and c[:len(ctx)] == ctx:
            return ("cond", frame, ctx, c[len(ctx)][0])
        return None

    def members(self, unit):
        """The nodes of a loop or cond unit (in topological order)."""
        if unit[0] == "loop":
            out = []
            for n in self.order:
                f = self.frame[n.name]
                while f and f != unit[1]:
                    f = self.parent[f]
                if f:
                    out.append(n)
            return out
        return [n for n in self.order if self.unit_of(unit[1], unit[2], n) == unit]


class Scope:
    def __init__(self, frame, ctx, parent=None):
        self.frame, self.ctx, self.parent = frame, ctx, parent
        self.env = {}  # node name -> (outputs, op or None)

    def lookup(self, name):
        s = self
        while s is not None:
            if name in s.env:
                return s.env[name]
            s = s.parent
        return None


class _Missing:
    op = None


def _show(ctx):
    return "[%s]" % ", ".join("%s:%s" % (p, "true" if b == 1 else "false") for p, b in ctx) if ctx else "[]"
