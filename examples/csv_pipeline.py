"""The classic TF1 input pipeline on tinyflow: CSV files -> string_input_producer -> TextLineReader
-> decode_csv -> shuffle_batch -> a linear model, with queue-runner threads and a Coordinator.

Strings, readers and queues run on the host; each training step dequeues a batch and feeds it to
the jitted step (docs/strings.md). Run: python examples/csv_pipeline.py [--epochs 30]
"""
import argparse
import os
import tempfile

import numpy as np

import tinyflow as tf


def write_csvs(directory, n_files=2, rows=50, seed=0):
    """CSV files of y = 2 x1 - 3 x2 + 0.5, with a header line."""
    rng = np.random.RandomState(seed)
    paths = []
    for k in range(n_files):
        path = os.path.join(directory, "part%d.csv" % k)
        with open(path, "w") as f:
            f.write("x1,x2,y\n")
            for x1, x2 in rng.uniform(-1, 1, (rows, 2)):
                f.write("%.4f,%.4f,%.4f\n" % (x1, x2, 2 * x1 - 3 * x2 + 0.5))
        paths.append(path)
    return paths


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--batch", type=int, default=10)
    args = parser.parse_args()
    files = write_csvs(tempfile.mkdtemp())

    filename_queue = tf.train.string_input_producer(files, num_epochs=args.epochs, shuffle=True)
    reader = tf.TextLineReader(skip_header_lines=1)
    _, line = reader.read(filename_queue)
    x1, x2, y = tf.decode_csv(line, record_defaults=[[0.0], [0.0], [0.0]])
    xb, yb = tf.train.shuffle_batch([tf.stack([x1, x2]), y], batch_size=args.batch, capacity=200,
                                    min_after_dequeue=50)

    w = tf.Variable(tf.zeros([2, 1]), name="w")
    b = tf.Variable(0.0, name="b")
    loss = tf.reduce_mean(tf.square(tf.squeeze(tf.matmul(xb, w), 1) + b - yb))
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)

    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        step = 0
        try:
            while not coord.should_stop():
                _, l = sess.run([train, loss])
                step += 1
                if step % 50 == 0:
                    print("step %d loss %.6f" % (step, l))
        except tf.errors.OutOfRangeError:
            print("input exhausted after %d steps" % step)
        finally:
            coord.request_stop()
        coord.join(threads)
        print("w =", sess.run(w).ravel(), "b =", sess.run(b))


if __name__ == "__main__":
    main()
