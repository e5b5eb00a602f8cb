"""Writes tinyflow/ops/unicode_scripts.json: TF 1.15's tf.strings.unicode_script (ICU's UScriptCode) of every
code point, as runs: `starts` (the first code point of each run) and `codes` (its script).
Run with TF 1.15: ~/.tf1-oracle/bin/python tests/data/make_unicode_scripts.py"""
import json
import os

import numpy as np
import tensorflow as tf

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tinyflow", "ops", "unicode_scripts.json")
with tf.Session() as s:
    scripts = s.run(tf.strings.unicode_script(np.arange(0x110000, dtype=np.int32)))
starts = np.concatenate([[0], np.nonzero(np.diff(scripts))[0] + 1])
with open(OUT, "w") as f:
    json.dump({"source": "TF 1.15.5's tf.strings.unicode_script (ICU)", "starts": starts.tolist(),
               "codes": scripts[starts].tolist()}, f, separators=(",", ":"))
print(len(starts), "runs")
