"""TF 1.15's op and scope name rules, with its messages (checked against TF 1.15)."""
import pytest

import tinyflow as tf


@pytest.mark.parametrize("name", ["x\u00b2", "\ufb01lter", "_a", "-a", "a b", ">a", "a>b", "a:0", "/a",
                                  "\u00e9", "a\n"])
@pytest.mark.parametrize("make", [lambda x, n: tf.identity(x, name=n), lambda x, n: tf.add(x, x, name=n),
                                  lambda x, n: tf.placeholder(tf.float32, name=n),
                                  lambda x, n: tf.Variable(1.0, name=n)])
def test_invalid_names_rejected_like_tf(name, make):
    with tf.Graph().as_default() as g:
        x = tf.constant(1.0, name="x")
        before = len(g.get_operations())
        with pytest.raises(ValueError, match="^'%s' is not a valid (scope|node) name$" % name.replace("\n", "\\n")
                           .replace("/", "/")):
            make(x, name)
        assert len(g.get_operations()) == before


@pytest.mark.parametrize("name,want", [("filter", "filter"), (".a", ".a"), ("a/b", "a/b"), ("1a", "1a"),
                                       ("a-b_c.d", "a-b_c.d"), ("a//b", "a//b")])
def test_valid_names_kept(name, want):
    with tf.Graph().as_default():
        x = tf.constant(1.0, name="x")
        assert tf.identity(x, name=name).op.name == want


def test_filter_and_ligature_filter_are_not_two_ops():
    """Names equal after Unicode normalisation cannot both exist: the ligature one is refused."""
    with tf.Graph().as_default():
        x = tf.constant(1.0)
        tf.identity(x, name="filter")
        with pytest.raises(ValueError, match="is not a valid scope name"):
            tf.identity(x, name="\ufb01lter")


def test_scope_rules():
    with tf.Graph().as_default():
        x = tf.constant(1.0)
        with pytest.raises(ValueError, match="^'_a' is not a valid scope name$"):
            with tf.name_scope("_a"):
                pass
        with tf.name_scope("s"):
            assert tf.identity(x, name="_a").op.name == "s/_a"   # inside a scope "_a" is fine (TF)
            assert tf.identity(x, name="-a").op.name == "s/-a"
            with pytest.raises(ValueError, match="^'x\u00b2' is not a valid scope name$"):
                tf.identity(x, name="x\u00b2")
            with pytest.raises(ValueError, match="^'>a' is not a valid scope name$"):  # TF 1.15 has no '>'
                tf.identity(x, name=">a")


def test_create_op_final_name_checked():
    with tf.Graph().as_default() as g:
        x = tf.constant(1.0)
        with pytest.raises(ValueError, match="is not a valid (scope|node) name"):
            g.create_op("Identity", [x], name="x\u00b2")
