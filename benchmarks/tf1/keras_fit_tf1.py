"""The TF 1.15 side of benchmarks/keras_fit.py: the same Keras MLP fit epoch, timed; prints JSON."""
import json
import sys
import time

import numpy as np
import tensorflow as tf

N, BATCH, SIZES = 4096, 128, [784, 256, 256, 10]


def main():
    epochs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    rng = np.random.RandomState(0)
    x = rng.rand(N, SIZES[0]).astype("float32")
    y = np.eye(10, dtype="float32")[rng.randint(0, 10, N)]
    K = tf.keras
    model = K.Sequential([K.layers.Dense(SIZES[1], activation="relu", input_shape=(SIZES[0],)),
                          K.layers.Dense(SIZES[2], activation="relu"), K.layers.Dense(SIZES[3], activation="softmax")])
    model.compile("adam", "categorical_crossentropy", metrics=["accuracy"])
    model.fit(x, y, batch_size=BATCH, epochs=1, verbose=0)
    times = []
    for _ in range(epochs):
        t0 = time.perf_counter()
        model.fit(x, y, batch_size=BATCH, epochs=1, verbose=0)
        times.append(time.perf_counter() - t0)
    print(json.dumps({"best": min(times), "median": float(np.median(times))}))


if __name__ == "__main__":
    main()
