"""String tensors and tf.strings ops, run on the host (runtime/host_stage.py).

Expected values are what TF 1.15 returns for the same calls (learned by running them with the TF1
oracle; the calls are in the test names)."""
import numpy as np
import pytest

import tinyflow as tf


@pytest.fixture
def sess():
    g = tf.Graph()
    with g.as_default(), tf.Session(graph=g) as s:
        yield s


def obj(*items):
    return np.array(list(items), dtype=object)


def test_string_constant_fetched_as_bytes(sess):
    c = tf.constant("Hello")
    assert c.dtype == tf.string and c.shape.as_list() == []
    v = sess.run(c)
    assert v == b"Hello" and type(v) is bytes
    a = sess.run(tf.constant(["a", "bc"]))
    assert a.dtype == object and a.tolist() == [b"a", b"bc"]
    # mixed string and numeric fetches in one run
    s, x = sess.run([tf.constant("a"), tf.constant(1.0) * 2])
    assert s == b"a" and x == 2.0


def test_string_placeholder_and_data_movement_ops(sess):
    p = tf.placeholder(tf.string, [None])
    r = tf.reshape(p, [-1, 1])
    got = sess.run([r, tf.equal(p, "x"), tf.concat([tf.constant(["c"]), p], 0), tf.gather(p, [1, 1, 0])],
                   {p: ["x", "yy"]})
    assert got[0].tolist() == [[b"x"], [b"yy"]]
    assert got[1].tolist() == [True, False]
    assert got[2].tolist() == [b"c", b"x", b"yy"]
    assert got[3].tolist() == [b"yy", b"yy", b"x"]
    # str (unicode) feeds are UTF-8 encoded
    assert sess.run(tf.strings.length(p, unit="UTF8_CHAR"), {p: [u"\u00e9t\u00e9"]}).tolist() == [3]


def test_unfed_string_placeholder(sess):
    p = tf.placeholder(tf.string, [2], name="names")
    with pytest.raises(tf.errors.InvalidArgumentError, match="must feed a value for placeholder tensor 'names'"):
        sess.run(tf.strings.upper(p))


def test_join_and_reduce_join(sess):
    assert sess.run(tf.strings.join(["a", tf.constant(["b", "c"])], separator="-")).tolist() == [b"a-b", b"a-c"]
    assert sess.run(tf.reduce_join(["a", "b"], separator=",")) == b"a,b"
    assert sess.run(tf.reduce_join([["a", "b"], ["c", "d"]], axis=1)).tolist() == [b"ab", b"cd"]
    kept = tf.reduce_join([["a", "b"], ["c", "d"]], axis=0, keep_dims=True)
    assert kept.shape.as_list() == [1, 2]
    assert sess.run(kept).tolist() == [[b"ac", b"bd"]]


def test_length_substr_case_strip(sess):
    assert sess.run(tf.strings.length(["abc", u"\u00e9"])).tolist() == [3, 2]
    assert sess.run(tf.strings.length(["abc", u"\u00e9"], unit="UTF8_CHAR")).tolist() == [3, 1]
    assert sess.run(tf.strings.substr(["hello", "world"], 1, 3)).tolist() == [b"ell", b"orl"]
    assert sess.run(tf.substr("hello", -3, 2)) == b"ll"
    assert sess.run(tf.strings.substr(["abc"], 1, 10)).tolist() == [b"bc"]
    with pytest.raises(tf.errors.InvalidArgumentError, match="pos 5 out of range for string b'abc' at index 0"):
        sess.run(tf.strings.substr(["abc"], 5, 1))
    assert sess.run(tf.strings.upper(["abc"])).tolist() == [b"ABC"]
    assert sess.run(tf.strings.lower(["ABC"])).tolist() == [b"abc"]
    assert sess.run(tf.strings.strip([" a "])).tolist() == [b"a"]


def test_regex(sess):
    assert sess.run(tf.strings.regex_replace(["a1b22"], r"\d+", "#")).tolist() == [b"a#b#"]
    assert sess.run(tf.strings.regex_replace(["a1b22"], r"\d+", "#", replace_global=False)).tolist() == [b"a#b22"]
    assert sess.run(tf.strings.regex_replace(["ab12"], r"([a-z]+)(\d+)", r"\2\1")).tolist() == [b"12ab"]
    assert sess.run(tf.strings.regex_full_match(["a1", "bb"], r"[a-z]\d")).tolist() == [True, False]


def test_to_number(sess):
    v = sess.run(tf.strings.to_number(["1.5", "2"]))
    assert v.dtype == np.float32 and v.tolist() == [1.5, 2.0]
    assert sess.run(tf.strings.to_number(["15"], out_type=tf.int32)).dtype == np.int32
    assert sess.run(tf.string_to_number("3.25")) == np.float32(3.25)
    assert sess.run(tf.strings.to_number([" 2 "])).tolist() == [2.0]
    assert sess.run(tf.strings.to_number(["inf", "-1e3", "0x10"], tf.float64)).tolist() == [np.inf, -1000.0, 16.0]
    assert sess.run(tf.strings.to_number(["99999999999"], tf.int64)).tolist() == [99999999999]
    for bad, out in [("abc", tf.float32), ("1.5", tf.int32), ("99999999999", tf.int32)]:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="StringToNumberOp could not correctly convert string: %s" % bad):
            sess.run(tf.strings.to_number([bad], out))


def test_as_string(sess):
    cases = [
        (tf.as_string([1.5, 2.0]), [b"1.500000", b"2.000000"]),
        (tf.as_string([1, 22], width=4, fill="0"), [b"0001", b"0022"]),
        (tf.as_string([3.14159], precision=2), [b"3.14"]),
        (tf.as_string([True]), [b"true"]),
        (tf.as_string([1e-7, 1e20]), [b"0.000000", b"100000002004087734272.000000"]),
        (tf.as_string([0.1, 1e20], shortest=True), [b"0.1", b"1e+20"]),
        (tf.as_string([1234.5], scientific=True), [b"1.234500e+03"]),
        (tf.as_string([1.5], width=10), [b"  1.500000"]),
        (tf.as_string(tf.constant([-5], tf.int64)), [b"-5"]),
    ]
    got = sess.run([t for t, _ in cases])
    for g, (_, want) in zip(got, cases):
        assert g.tolist() == want


def test_split_gives_sparse_tensor_value(sess):
    v = sess.run(tf.string_split(["a b", "c"]))
    assert isinstance(v, tf.SparseTensorValue)
    assert v.indices.tolist() == [[0, 0], [0, 1], [1, 0]]
    assert v.values.tolist() == [b"a", b"b", b"c"]
    assert v.dense_shape.tolist() == [2, 2]
    v = sess.run(tf.string_split(["a  b", ""]))
    assert v.indices.tolist() == [[0, 0], [0, 1]] and v.dense_shape.tolist() == [2, 2]
    v = sess.run(tf.string_split(["a,,b"], ",", skip_empty=False))
    assert v.values.tolist() == [b"a", b"", b"b"] and v.dense_shape.tolist() == [1, 3]
    assert sess.run(tf.string_split(["ab"], "")).values.tolist() == [b"a", b"b"]
    assert sess.run(tf.strings.split(["a,b", "c"], sep=",")).values.tolist() == [b"a", b"b", b"c"]
    dense = sess.run(tf.sparse.to_dense(tf.string_split(["a b", "c"]), default_value=""))
    assert dense.tolist() == [[b"a", b"b"], [b"c", b""]]


def test_decode_raw(sess):
    assert sess.run(tf.decode_raw(tf.constant([b"\x01\x00\x02\x00"]), tf.int16)).tolist() == [[1, 2]]
    assert sess.run(tf.decode_raw(b"\x01\x02", tf.uint8)).tolist() == [1, 2]
    assert sess.run(tf.decode_raw(["\x01\x00"], tf.int16, little_endian=False)).tolist() == [[256]]
    f = sess.run(tf.decode_raw([np.float32(1.5).tobytes()], tf.float32))
    assert f.dtype == np.float32 and f.tolist() == [[1.5]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="element 1 has size 4 != 2"):
        sess.run(tf.decode_raw(["abcd", "ab"], tf.int16))
    with pytest.raises(tf.errors.InvalidArgumentError, match="length 3 that is not a multiple of 2, the size of int16"):
        sess.run(tf.decode_raw(["abc"], tf.int16))


def test_decode_csv(sess):
    cols = sess.run(tf.decode_csv(["1,2.5,x", "3,,y"], [[0], [1.0], ["d"]]))
    assert cols[0].dtype == np.int32 and cols[0].tolist() == [1, 3]
    assert cols[1].dtype == np.float32 and cols[1].tolist() == [2.5, 1.0]
    assert cols[2].tolist() == [b"x", b"y"]
    assert sess.run(tf.decode_csv(['"a,b",2'], [[""], [0]]))[0].tolist() == [b"a,b"]
    assert sess.run(tf.decode_csv(["1;2"], [[0], [0]], field_delim=";"))[1].tolist() == [2]
    assert sess.run(tf.decode_csv(["1,2"], [tf.constant([0], tf.int64), [0.0]]))[0].dtype == np.int64
    assert sess.run(tf.decode_csv("1,2,3", [[0], [0]], select_cols=[0, 2])) == [1, 3]
    assert sess.run(tf.decode_csv("1,NA", [[0], [7]], na_value="NA")) == [1, 7]
    errors = [
        (["1,,x"], [[0], tf.constant([], tf.float32), ["d"]], "Field 1 is required but missing in record 0!"),
        (["1,2"], [[0], [0], [0]], "Expect 3 fields but have 2 in record 0"),
        (["x,2"], [[0], [0]], "Field 0 in record 0 is not a valid int32: x"),
        (["1,y"], [[0], [0.0]], "Field 1 in record 0 is not a valid float: y"),
    ]
    for records, defaults, msg in errors:
        with pytest.raises(tf.errors.InvalidArgumentError, match=msg):
            sess.run(tf.decode_csv(records, defaults))


def test_base64(sess):
    assert sess.run(tf.io.encode_base64(["hello"])).tolist() == [b"aGVsbG8"]
    assert sess.run(tf.io.decode_base64(["aGVsbG8"])).tolist() == [b"hello"]


def test_strings_around_the_jitted_step(sess):
    """Numbers computed by XLA turned into strings, parsed back and computed on again: the host
    stage runs the jitted function for the numeric parts in between."""
    x = tf.placeholder(tf.float32, [2])
    s = tf.as_string(x * 2)
    y = tf.strings.to_number(s) + 1
    got_s, got_y = sess.run([s, y], {x: [1.5, 2.0]})
    assert got_s.tolist() == [b"3.000000", b"4.000000"]
    np.testing.assert_allclose(got_y, [4.0, 5.0])


def test_failed_string_op_changes_no_variable(sess):
    v = tf.Variable(1.0)
    p = tf.placeholder(tf.string, [])
    step = tf.assign_add(v, tf.strings.to_number(p))
    sess.run(v.initializer)
    assert sess.run(step, {p: "2"}) == 3.0
    with pytest.raises(tf.errors.InvalidArgumentError, match="could not correctly convert string: oops"):
        sess.run(step, {p: "oops"})
    assert sess.run(v) == 3.0


def test_dataset_map_over_strings(sess):
    ds = tf.data.Dataset.from_tensor_slices(["1,2", "3,4"]).map(lambda line: tf.decode_csv(line, [[0], [0]]))
    nxt = ds.make_one_shot_iterator().get_next()
    assert [int(v) for v in sess.run(nxt)] == [1, 2]
    assert [int(v) for v in sess.run(nxt)] == [3, 4]
    with pytest.raises(tf.errors.OutOfRangeError):
        sess.run(nxt)


def test_image_png_round_trip(sess):
    pytest.importorskip("PIL")
    img = (np.arange(4 * 5 * 3) % 256).astype(np.uint8).reshape(4, 5, 3)
    enc = tf.image.encode_png(img)
    dec = tf.image.decode_png(enc)
    gray = tf.image.decode_png(enc, channels=1)
    assert dec.shape.as_list() == [None, None, None] and gray.shape.as_list() == [None, None, 1]
    e, d, g = sess.run([enc, dec, gray])
    assert type(e) is bytes and e.startswith(b"\x89PNG")
    np.testing.assert_array_equal(d, img)
    assert g.shape == (4, 5, 1) and g.dtype == np.uint8
    j = sess.run(tf.image.decode_jpeg(tf.image.encode_jpeg(img)))
    assert j.shape == (4, 5, 3)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid PNG data"):
        sess.run(tf.image.decode_png(b"not a png"))


def test_datasets_of_python_strings_give_bytes(sess):
    n = tf.data.Dataset.from_tensor_slices(["a", "bb"]).batch(2).make_one_shot_iterator().get_next()
    assert sess.run(n).tolist() == [b"a", b"bb"]
    g = tf.data.Dataset.from_generator(lambda: iter(["q", b"r"]), tf.string, tf.TensorShape([]))
    nxt = g.make_one_shot_iterator().get_next()
    assert [sess.run(nxt), sess.run(nxt)] == [b"q", b"r"]
    pairs = tf.data.Dataset.from_tensor_slices((np.array(["x", "y"]), [1, 2])).map(
        lambda a, b: (tf.strings.join([a, "z"]), b * 2))
    assert sess.run(pairs.make_one_shot_iterator().get_next()) == (b"xz", 2)


def test_py_func_on_strings(sess):
    p = tf.placeholder(tf.string, [None])
    n = tf.py_func(lambda a: np.array([len(x) for x in a], np.int64), [p], tf.int64)
    up = tf.py_func(lambda a: np.array([x.upper() for x in a], object), [p], tf.string)
    got_n, got_up = sess.run([n * 2, up], {p: ["ab", "c"]})
    assert got_n.tolist() == [4, 2] and got_up.tolist() == [b"AB", b"C"]


def test_string_ops_edges_as_tf115(sess):
    """The differential corpus's findings (tests/fixtures/diffcorpus/spec_strings.py), TF 1.15's values: UTF8_CHAR
    units start at every non-continuation byte; substr's negative len; RE2's regexes (UTF-8 runes, ASCII
    classes, no empty match where the last one ended); decoding errors as maximal bad sequences; C0 controls
    only; surrogates in unicode_encode; printf's "-nan"; Python's str.split for tf.strings.split."""
    bad = [b"\xed\xa0\x80x", b"\xc0\xafx", b"\xe4\xb8a", b"\xf4\x90\x80\x80"]
    f = {
        "len": tf.strings.length([b"\xc0\xaf", b"\x80\x80a"], unit="UTF8_CHAR"),
        "sub_neg_len": tf.strings.substr([b"hello", b"ab", b"hello"], [1, 0, -2], [-1, -2, -1]),
        "sub_utf8": tf.strings.substr([b"\x0b\x0c\r\x80", b"ab", b"\xc0\xafa,b"], [-1, -1, 0], [3, 3, 3],
                                      unit="UTF8_CHAR"),
        "star": tf.strings.regex_replace([b"baaac", b"abc", b"\xff\xfeab"], "a*", "-"),
        "dot": tf.strings.regex_replace([b"\xff\xfeab", b"\xc3\xa9"], ".", "<\\0>"),
        "empty": tf.strings.regex_replace(b"\xed\xa0\x80a", "", "|"),
        "swap": tf.strings.regex_replace([b"abcd"], "(\\w)(\\w)", "\\2\\1", replace_global=False),
        "full_dot": tf.strings.regex_full_match([b"\xff", b"\xc3\xa9", b"\xed\xa0\x80", b"\xc3", b"\xc0\xaf"], "."),
        "classes": tf.strings.regex_full_match([b"\xd9\xa3", b"3", b"\xc3\xa9", b"\xc2\xa0", b"_", b"\x0b"],
                                               "\\d|\\s|\\w"),
        "end": tf.strings.regex_full_match([b"a\n"], "a$"),
        "decode": tf.strings.unicode_decode(bad, "UTF-8", replacement_char=63).values,
        "decode16": tf.strings.unicode_decode([b"\xd8\x00\x00a", b"\x00"], "UTF-16-BE", replacement_char=63).values,
        "control": tf.strings.unicode_transcode([b"a\x01\x7f\x85\t\x00b"], "UTF-8", "UTF-8", replacement_char=63,
                                                replace_control_characters=True),
        "enc8": tf.strings.unicode_encode([[0xD800, 65], [0xDFFF, 0x10FFFF], [-5, 66]], "UTF-8", replacement_char=63),
        "enc16": tf.strings.unicode_encode([[0xD800, 65], [0xDFFF, 0x10FFFF], [-5, 66]], "UTF-16-BE",
                                           replacement_char=63),
        "lower": tf.strings.lower([b"\xc3\x89A", u"\u03a3\u0391\u03a3".encode()], encoding="utf-8"),
        "upper": tf.strings.upper([b"\xc3\x9f", b"\xef\xac\x80", b"\xffa"], encoding="utf-8"),
        "nan": tf.as_string(np.array([np.nan, -np.nan, np.inf], np.float32), width=7, fill="0"),
        "complex": tf.as_string(np.array([1 + 2j], np.complex64), shortest=True),
        "ws": tf.strings.split([b"  a b  c  ", b"", b"a\x1cb\x0bc\xc2\xa0d"], maxsplit=1, result_type="RaggedTensor"),
        "sep": tf.strings.split([b"a,b,,c", b""], sep=",", maxsplit=2, result_type="RaggedTensor"),
        "sparse2d": tf.strings.split([[b"a b"], [b"c"]]),
        "bytes2d": tf.strings.bytes_split([[b"ab"], [b""]]),
        "v1_ragged": tf.string_split([b"a,b", b""], ",", result_type="RaggedTensor"),
    }
    out = sess.run(f)
    assert out["len"].tolist() == [1, 1]
    assert out["sub_neg_len"].tolist() == [b"ello", b"ab", b"lo"]
    assert out["sub_utf8"].tolist() == [b"\r\x80", b"b", b"\xc0\xafa,"]
    assert out["star"].tolist() == [b"-b-c-", b"-b-c-", b"-\xff-\xfe-b-"]
    assert out["dot"].tolist() == [b"\xff\xfe<a><b>", b"<\xc3\xa9>"] and out["empty"] == b"|\xed\xa0\x80|a|"
    assert out["swap"].tolist() == [b"bacd"]
    assert out["full_dot"].tolist() == [False, True, True, False, False]
    assert out["classes"].tolist() == [False, True, False, False, True, False] and out["end"].tolist() == [False]
    assert out["decode"].tolist() == [63, 63, 63, 120, 63, 63, 120, 63, 97, 63, 63, 63, 63]
    assert out["decode16"].tolist() == [63, 97, 63]
    assert out["control"].tolist() == [b"a?\x7f???b"]
    assert out["enc8"].tolist() == [b"\xef\xbf\xbdA", b"\xef\xbf\xbd\xf4\x8f\xbf\xbf", b"?B"]
    assert out["enc16"].tolist() == [b"\xd8\x00\x00A", b"\xdf\xff\xdb\xff\xdf\xff", b"\x00?\x00B"]
    assert out["lower"].tolist() == [b"\xc3\xa9a", u"\u03c3\u03b1\u03c2".encode()]
    assert out["upper"].tolist() == [b"SS", b"FF", b"\xef\xbf\xbdA"]
    assert out["nan"].tolist() == [b"    nan", b"   -nan", b"    inf"] and out["complex"].tolist() == [b"(1,2)"]
    assert out["ws"].to_list() == [[b"a", b"b  c  "], [], [b"a\x1cb", b"c\xc2\xa0d"]]
    assert out["sep"].to_list() == [[b"a", b"b", b",c"], [b""]]
    assert out["sparse2d"].indices.tolist() == [[0, 0, 0], [0, 0, 1], [1, 0, 0]]
    assert out["sparse2d"].dense_shape.tolist() == [2, 1, 2]
    assert out["bytes2d"].to_list() == [[[b"a", b"b"]], [[]]]
    assert out["v1_ragged"].to_list() == [[b"a", b"b"], []]


def test_string_ops_raise_where_tf_raises(sess):
    """Data-dependent refusals TF 1.15 makes (InvalidArgumentError), each a value tinyflow once returned."""
    runs = [lambda: tf.strings.substr([b"hello"], [-2], [-1], unit="UTF8_CHAR"),
            lambda: tf.strings.unsorted_segment_join([b"a", b"b"], [0, 3], 2),
            lambda: tf.strings.unsorted_segment_join([b"a", b"b"], [0, -1], 2),
            lambda: tf.strings.unicode_encode([[0x110000]], "UTF-8", errors="strict"),
            lambda: tf.strings.regex_replace([b"a"], "(a)", "\\2"),
            lambda: tf.strings.unicode_transcode([b"a\x01"], "UTF-8", "UTF-8", errors="strict",
                                                 replace_control_characters=True)]
    for make in runs:
        with pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(make())
    for kw in ({"fill": "x"}, {"precision": 2}, {"scientific": True}):   # TF's kernel refuses them
        with pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(tf.as_string([3], **kw))


def test_parsing_and_wav_edges_as_tf115(sess):
    """An Example's Feature with no list set is a missing feature (its default); encode_wav rounds halves
    away from zero (C's roundf: 0.5 / 32768 is the sample 1)."""
    ex = tf.train.Example(features=tf.train.Features(feature={"f": tf.train.Feature()})).SerializeToString()
    parsed = tf.parse_single_example(ex, {"f": tf.FixedLenFeature([1], tf.string, default_value=[b"d"]),
                                          "g": tf.VarLenFeature(tf.int64)})
    audio = np.array([[0.5 / 32768], [-0.5 / 32768], [1.5 / 32768], [2.0]], np.float32)
    wav = tf.audio.encode_wav(audio, 8000)
    got = sess.run([parsed["f"], tf.audio.decode_wav(wav)[0], tf.audio.decode_wav(wav, desired_samples=0)[0]])
    assert got[0].tolist() == [b"d"] and got[2].shape == (0, 1)     # desired_samples=0: no sample, as TF
    np.testing.assert_array_equal(got[1][:, 0] * 32768, [1, -1, 2, 32767])


def test_parsers_and_codecs_as_tf115(sess):
    """More of the corpus's findings, TF 1.15's values: base64's strict alphabet and padding; safe_strto*'s
    number syntax (to_number and decode_csv); an empty CSV record has no field; SplitV2 past maxsplit; C0
    controls dropped under errors="ignore"; unsorted_segment_join's separator only after a non-empty result;
    a string row's fingerprint is that of its strings' fingerprints; a cut zlib/gzip stream inflates to what
    precedes the cut."""
    import struct
    import zlib
    data = b"hello world data"     # a zlib stream of one stored block (the same bytes in every zlib)
    stream = b"\x78\x01\x01" + struct.pack("<HH", len(data), 0xffff ^ len(data)) + data + struct.pack(
        ">I", zlib.adler32(data))
    f = {
        "b64": tf.io.decode_base64([b"QR", b"QUJDQQ", b"QQ==", b""]),
        "num_f": tf.strings.to_number([b"INF", b"-nan", b"0x1F", b" 4 ", b"1e39", b"3."], tf.float32),
        "num_i": tf.strings.to_number([b"007", b"-0", b"\t5\n"], tf.int32),
        "csv": tf.io.decode_csv([b"1,2.5", b",\xff"], [[0], [b"d"]]),
        "split": tf.strings.split([b" ", b"", b"a ", b" a  b c"], maxsplit=0, result_type="RaggedTensor"),
        "split1": tf.strings.split([b"a ", b" a  b c"], maxsplit=1, result_type="RaggedTensor"),
        "ignore": tf.strings.unicode_decode([b"\x01a\x80\t"], "UTF-8", errors="ignore",
                                            replace_control_characters=True).values,
        "join": tf.strings.unsorted_segment_join([b"", b"x", b"", b"y"], [0, 0, 1, 1], 2, separator="|"),
        "fp": tf.fingerprint(tf.constant([[b"a", b"b"]])),
        "cut": tf.io.decode_compressed([stream[:-4], stream[:-6], b""], "ZLIB"),
    }
    out = sess.run(f)
    assert out["b64"].tolist() == [b"A", b"ABCA", b"A", b""]
    np.testing.assert_array_equal(out["num_f"], np.array([np.inf, np.nan, 31, 4, np.inf, 3], np.float32))
    assert out["num_i"].tolist() == [7, 0, 5]
    assert out["csv"][0].tolist() == [1, 0] and out["csv"][1].tolist() == [b"2.5", b"\xff"]
    assert out["split"].to_list() == [[b" "], [b""], [b"a "], [b" a  b c"]]
    assert out["split1"].to_list() == [[b"a", b""], [b"a", b"b c"]]
    assert out["ignore"].tolist() == [97]
    assert out["join"].tolist() == [b"x", b"y"]
    import farmhash
    inner = farmhash.fingerprint64(b"a").to_bytes(8, "little") + farmhash.fingerprint64(b"b").to_bytes(8, "little")
    assert bytes(out["fp"][0]) == farmhash.fingerprint64(inner).to_bytes(8, "little")
    assert out["cut"].tolist() == [b"hello world data", b"hello world da", b""]
    bad = [lambda: tf.io.decode_base64([b"QQ="]), lambda: tf.io.decode_base64([b"QUJD="]),
           lambda: tf.io.decode_base64([b"a+b/"]), lambda: tf.strings.to_number([b"Infinity"]),
           lambda: tf.strings.to_number([b"+7"], tf.int32), lambda: tf.strings.to_number([b"1_000"]),
           lambda: tf.io.decode_csv([b""], [[0]]), lambda: tf.io.decode_csv([b"+12"], [[0]]),
           lambda: tf.io.decode_compressed([stream[:-1] + b"\x00"], "ZLIB"),
           lambda: tf.io.parse_sequence_example(tf.constant([], tf.string), {"f": tf.io.FixedLenFeature([], tf.int64)},
                                                {"s": tf.io.VarLenFeature(tf.int64)})[0]["f"],
           lambda: tf.audio.decode_wav(sess.run(tf.audio.encode_wav(np.zeros([4, 1], np.float32), 8000))[:-2])[0]]
    for make in bad:
        with pytest.raises((tf.errors.InvalidArgumentError, tf.errors.DataLossError)):
            sess.run(make())
