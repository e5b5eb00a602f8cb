"""Small synthetic data sets for the corpus programs (tools/corpus/run_corpus.py), one generator per
kind of input, each writing files in the layout its program reads. Deterministic (seeded), tiny, and
runnable by any interpreter the corpus runs under (Python 3.7 with numpy 1.18 for TF 1.15, or tinyflow's):
the runner calls it with the same interpreter as the program, so pickles and the like are read back by
the library versions that wrote them.

    python tools/corpus/synth.py KIND FOLDER [JSON_ARGS]
"""
import gzip
import json
import os
import pickle
import struct
import sys

import numpy as np


def _words(rng, n, vocab=40):
    """n words over a small made-up vocabulary (syllable pairs), so text models have structure to learn."""
    syll = ["ka", "lo", "mi", "ra", "tu", "ve", "so", "ne", "pi", "da"]
    lexicon = [syll[i % 10] + syll[(i * 7 + 3) % 10] + ("s" if i % 3 == 0 else "") for i in range(vocab)]
    return [lexicon[i] for i in rng.randint(0, vocab, size=n)]


def text(where, rng, words=3000):
    """input.txt of sentences (char-RNN and word-RNN read DATA_DIR/input.txt)."""
    w = _words(rng, words)
    lines = [" ".join(w[i:i + 12]).capitalize() + "." for i in range(0, len(w), 12)]
    with open(os.path.join(where, "input.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


def polarity(where, rng, per_class=120):
    """rt-polarity.pos / .neg: one sentence a line, the two classes told apart by marker words."""
    for name, marks in (("rt-polarity.pos", ["good", "fine", "great"]), ("rt-polarity.neg", ["bad", "dull", "poor"])):
        with open(os.path.join(where, name), "w", encoding="utf-8") as f:
            for _ in range(per_class):
                w = _words(rng, rng.randint(5, 15))
                w.insert(rng.randint(len(w)), marks[rng.randint(3)])
                f.write(" ".join(w) + " .\n")


def mnist(where, rng, train=600, test=200):
    """The four MNIST idx files, gzipped, as TF's input_data.read_data_sets finds them (no download):
    label k lights a k-dependent band of pixels, plus noise."""
    for prefix, n in (("train", train), ("t10k", test)):
        labels = rng.randint(0, 10, size=n).astype(np.uint8)
        images = (rng.rand(n, 28, 28) * 60).astype(np.uint8)
        for k in range(10):
            images[labels == k, 2 + 2 * k:5 + 2 * k, 4:24] = 230
        blobs = {"images-idx3-ubyte": struct.pack(">iiii", 2051, n, 28, 28) + images.tobytes(),
                 "labels-idx1-ubyte": struct.pack(">ii", 2049, n) + labels.tobytes()}
        for suffix, blob in blobs.items():
            with gzip.open(os.path.join(where, "%s-%s.gz" % (prefix, suffix)), "wb", compresslevel=1) as f:
                f.write(blob)


CNEWS = ["体育", "财经", "房产", "家居", "教育", "科技", "时尚", "时政", "游戏", "娱乐"]


def cnews(where, rng, per_class=(8, 2, 2), length=(40, 120)):
    """cnews.{train,val,test}.txt: 'category<TAB>text' lines over the ten THUCNews categories; each
    category's texts draw most of their characters from its own slice of a small CJK alphabet."""
    alphabet = [chr(0x4e00 + i) for i in range(200)]
    for split, n in zip(("train", "val", "test"), per_class):
        lines = []
        for _ in range(n):
            for k, cat in enumerate(CNEWS):
                size = rng.randint(*length)
                own = rng.randint(20 * k, 20 * k + 20, size=size)
                mixed = np.where(rng.rand(size) < 0.7, own, rng.randint(0, 200, size=size))
                lines.append(cat + "\t" + "".join(alphabet[i] for i in mixed))
        rng.shuffle(lines)
        with open(os.path.join(where, "cnews.%s.txt" % split), "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")


def planetoid(where, rng, name="cora", classes=7, features=40, labelled=35, unlabelled=560, test=100, signal=1.0):
    """The Planetoid split files (ind.NAME.{x,y,tx,ty,allx,ally,graph}, ind.NAME.test.index) that Kipf's GCN
    and GAT read: sparse bag-of-words features, one-hot labels, and a graph whose edges mostly join nodes
    of one class. With signal=0 features and edges ignore the labels, so a model only overfits and its
    validation stops improving (GAT trains until it does). Pickled by the interpreter that reads them."""
    import scipy.sparse as sp
    n = unlabelled + test
    labels = rng.randint(0, classes, size=n)
    feats = (rng.rand(n, features) < 0.05).astype(np.float32)
    marked = rng.rand(n) < signal
    feats[np.flatnonzero(marked), labels[marked] * (features // classes)] = 1.0
    onehot = np.eye(classes)[labels]
    graph = {}
    for i in range(n):
        same = np.flatnonzero(labels == labels[i]) if rng.rand() < signal else np.arange(n)
        graph[i] = sorted(set(rng.choice(same, 3).tolist()) | {int(rng.randint(n))})
    test_index = np.arange(unlabelled, n)
    rng.shuffle(test_index)
    objects = {"x": sp.csr_matrix(feats[:labelled]), "y": onehot[:labelled],
               "allx": sp.csr_matrix(feats[:unlabelled]), "ally": onehot[:unlabelled],
               "tx": sp.csr_matrix(feats[test_index]), "ty": onehot[test_index], "graph": graph}
    for key, obj in objects.items():
        with open(os.path.join(where, "ind.%s.%s" % (name, key)), "wb") as f:
            pickle.dump(obj, f, protocol=2)
    with open(os.path.join(where, "ind.%s.test.index" % name), "w") as f:
        f.write("\n".join(str(i) for i in test_index) + "\n")


def iris(where, rng, train=120, test=30):
    """iris_training.csv / iris_test.csv in TF's layout (a header 'N,4,setosa,versicolor,virginica', then
    four measurements and the class id a row), where tf.keras.utils.get_file finds them cached
    (~/.keras/datasets) and so downloads nothing. Each class shifts the measurements its own way."""
    centre = np.array([[5.0, 3.4, 1.5, 0.2], [5.9, 2.8, 4.3, 1.3], [6.6, 3.0, 5.5, 2.0]])
    for name, n in (("iris_training.csv", train), ("iris_test.csv", test)):
        labels = rng.randint(0, 3, size=n)
        rows = centre[labels] + rng.normal(0, 0.3, size=(n, 4))
        with open(os.path.join(where, name), "w") as f:
            f.write("%d,4,setosa,versicolor,virginica\n" % n)
            for row, label in zip(rows, labels):
                f.write(",".join("%.1f" % v for v in row) + ",%d\n" % label)


# --- TFRecord files of tf.train.Example, written without TensorFlow ---------------------------------

def _crc32c_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_CRC_TABLE = _crc32c_table()


def _masked_crc(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc = _CRC_TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    crc ^= 0xFFFFFFFF
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def _varint(v):
    out = bytearray()
    v &= (1 << 64) - 1
    while True:
        byte, v = v & 0x7F, v >> 7
        out.append(byte | (0x80 if v else 0))
        if not v:
            return bytes(out)


def _field(number, payload):  # a length-delimited field
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _example(features):
    """tf.train.Example bytes of {name: list of ints} (Int64List) or {name: bytes} (BytesList)."""
    entries = b""
    for key in sorted(features):
        value = features[key]
        if isinstance(value, bytes):
            feature = _field(1, _field(1, value))
        else:
            feature = _field(3, _field(1, b"".join(_varint(int(v)) for v in value)))
        entries += _field(1, _field(1, key.encode()) + _field(2, feature))
    return _field(1, entries)


def write_tfrecords(path, records):
    with open(path, "wb") as f:
        for data in records:
            length = struct.pack("<Q", len(data))
            f.write(length + struct.pack("<I", _masked_crc(length)) + data + struct.pack("<I", _masked_crc(data)))


def ubuntu_dialog(where, rng, train=64, validation=16, vocab=100, width=160):
    """train/validation.tfrecords and vocabulary.txt of the Ubuntu Dialog Corpus as chatbot-retrieval's
    prepare_data.py writes them: context/utterance word ids padded to 160, their lengths, a 0/1 label
    (train) or nine distractors (validation). A true response repeats words of its context."""
    def sentence(size, pool=None):
        ids = rng.randint(1, vocab, size=size) if pool is None else rng.choice(pool, size=size)
        return list(ids) + [0] * (width - size), size

    def pair():
        context, clen = sentence(rng.randint(5, 40))
        utterance, ulen = sentence(rng.randint(3, 20), pool=np.array(context[:clen]))
        return context, clen, utterance, ulen

    records = []
    for i in range(train):
        context, clen, utterance, ulen = pair()
        if i % 2:
            utterance, ulen = sentence(rng.randint(3, 20))
        records.append(_example({"context": context, "context_len": [clen], "utterance": utterance,
                                 "utterance_len": [ulen], "label": [1 - i % 2]}))
    write_tfrecords(os.path.join(where, "train.tfrecords"), records)
    records = []
    for _ in range(validation):
        context, clen, utterance, ulen = pair()
        feats = {"context": context, "context_len": [clen], "utterance": utterance, "utterance_len": [ulen]}
        for d in range(9):
            feats["distractor_%d" % d], feats["distractor_%d_len" % d] = [
                v if not isinstance(v, int) else [v] for v in sentence(rng.randint(3, 20))]
        records.append(_example(feats))
    write_tfrecords(os.path.join(where, "validation.tfrecords"), records)
    with open(os.path.join(where, "vocabulary.txt"), "w") as f:
        f.write("\n".join("w%d" % i for i in range(vocab)) + "\n")


GENERATORS = {"text": text, "polarity": polarity, "mnist": mnist, "cnews": cnews, "planetoid": planetoid,
              "ubuntu_dialog": ubuntu_dialog, "iris": iris}


def main(argv):
    kind, where = argv[1], argv[2]
    args = json.loads(argv[3]) if len(argv) > 3 else {}
    seed = args.pop("seed", 0)
    os.makedirs(where, exist_ok=True)
    GENERATORS[kind](where, np.random.RandomState(seed), **args)


if __name__ == "__main__":
    main(sys.argv)
