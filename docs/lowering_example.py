"""Makes the code blocks of docs/LOWERING.md: the README example followed from sess.run to XLA.

Each block of the doc that follows a line `<!-- generated: NAME -->` is `blocks()[NAME]`, real
output of this tinyflow and this JAX on the CPU. tests/lower/test_lowering_doc.py fails when the
doc and this script disagree; after a change to the pipeline, regenerate the doc:

    python docs/lowering_example.py            # prints the blocks
    python docs/lowering_example.py --write    # rewrites them in docs/LOWERING.md
"""
import inspect
import os
import re
import sys

import jax
import numpy as np

import tinyflow as tf
from tinyflow.lower import pipeline, program, render
from tinyflow.passes import prune, state

DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "LOWERING.md")
MARK = re.compile(r"<!-- generated: (\w+) -->\n(```\w*\n)(.*?)(```)", re.S)

GRAPH = '''\
x = tf.placeholder(tf.float32, [None, 3], name="x")
y = tf.placeholder(tf.float32, [None, 1], name="y")
w = tf.Variable(tf.zeros([3, 1]), name="w")
b = tf.Variable(0.0, name="b")
loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y), name="loss")
train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
'''
RUN = "sess.run([loss, train], {x: xs, y: ys})\n"


def blocks():
    """{block name: text} of every generated block, made in a graph of its own on the CPU."""
    out = {"program": GRAPH + RUN, "pipeline": inspect.getsource(pipeline.compile_fetch_set)}
    cpu = jax.devices("cpu")[0]
    with tf.Graph().as_default(), jax.default_device(cpu):
        g = {"tf": tf}
        exec(GRAPH, g)
        x, y, loss, train = g["x"], g["y"], g["loss"], g["train"]
        sub = prune.prune([loss], [x, y], [train])                                  # 1
        out["prune"] = "%r\n%r ...\n" % (sub, [op.name for op in sub.ops][:8])
        analysis = state.analyze(sub)                                               # 3
        out["state"] = "read and updated: %r\n" % [v.name for v in analysis.updated]
        prog = program.plan(sub, analysis)                                          # 4
        out["plan"] = "".join("%r\n" % s for s in prog.steps[:3])
        xs = np.random.RandomState(0).rand(4, 3).astype(np.float32)
        ys = xs @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3
        with tf.Session(config="cpu") as sess:
            sess.run(tf.global_variables_initializer())
            eval(RUN, {"sess": sess, "loss": loss, "train": train, "x": x, "y": y, "xs": xs, "ys": ys})
            low = sess.lowered([loss, train], {x: xs, y: ys})
            assert low.source == render.render(prog)[0]   # what Session.run compiled is the stages' output
            out["render"] = low.source                                              # 5
            out["jaxpr"] = "%s\n" % low.jaxpr                                       # 6
            out["hlo"] = entry_computation(low.hlo)
    return out


def entry_computation(hlo):
    """The ENTRY computation of an HLO module's text, without metadata (source lines, TF names)."""
    entry = hlo[hlo.index("\nENTRY ") + 1:]
    entry = entry[:entry.index("\n}\n") + 3]
    return re.sub(r", metadata=\{[^}]*\}", "", entry)


def regenerate(doc, made):
    """The doc's text with every generated block replaced by its text in `made`."""
    names = MARK.findall(doc)
    missing = sorted(set(made) - {n for n, *_ in names})
    if missing:
        raise ValueError("LOWERING.md has no block for %s" % ", ".join(missing))
    return MARK.sub(lambda m: "<!-- generated: %s -->\n%s%s%s" % (m.group(1), m.group(2), made[m.group(1)],
                                                                  m.group(4)), doc)


if __name__ == "__main__":
    made = blocks()
    if "--write" in sys.argv[1:]:
        with open(DOC) as f:
            text = regenerate(f.read(), made)
        with open(DOC, "w") as f:
            f.write(text)
    else:
        for name, text in made.items():
            print("## %s\n%s" % (name, text))
