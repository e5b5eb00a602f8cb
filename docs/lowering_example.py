"""Prints what docs/LOWERING.md shows: the README example followed from sess.run to XLA.

    python docs/lowering_example.py > /tmp/lowering.txt
"""
import numpy as np

import tinyflow as tf
from tinyflow.lower import pipeline, program, render
from tinyflow.passes import prune, state

x = tf.placeholder(tf.float32, [None, 3], name="x")
y = tf.placeholder(tf.float32, [None, 1], name="y")
w = tf.Variable(tf.zeros([3, 1]), name="w")
b = tf.Variable(0.0, name="b")
loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y), name="loss")
train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)

print("## 1. prune")
sub = prune.prune([loss], [x, y], [train])
print(sub)
print([op.name for op in sub.ops][:8], "...")
print("## 3. state")
analysis = state.analyze(sub)
print("read and updated:", [v.name for v in analysis.updated])
print("## 4. plan (the first records)")
prog = program.plan(sub, analysis)
for step in prog.steps[:3]:
    print(step)
print("## 5. render")
print(render.render(prog)[0])
xs = np.random.RandomState(0).rand(4, 3).astype(np.float32)
ys = xs @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    low = sess.lowered([loss, train], {x: xs, y: ys})
    print("## 6. jit: the jaxpr")
    print(low.jaxpr)
    print("## XLA's optimized HLO")
    print(low.hlo)
    print("## the same function, as Session.run calls it")
    print(pipeline.compile_fetch_set([loss], [x, y], [train]).source == low.source)
