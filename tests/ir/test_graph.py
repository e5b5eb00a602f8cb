"""The graph API (graph/): TF1's naming, the default-graph stack, control dependencies,
collections, lookups by name and their errors, Operation/Tensor attributes, finalize, DType,
TensorShape and Dimension."""
import numpy as np
import pytest

import tinyflow as tf


# ---- naming -------------------------------------------------------------------------------------
def test_op_names_are_unique_with_suffixes():
    a = tf.constant(1.0)
    b = tf.constant(2.0, name="b")
    c1, c2, c3 = tf.add(a, b), tf.add(a, b), tf.add(a, b)
    assert [a.op.name, b.op.name, c1.op.name, c2.op.name, c3.op.name] == ["Const", "b", "Add", "Add_1", "Add_2"]
    assert c1.name == "Add:0" and tf.constant(3.0, name="b").op.name == "b_1"
    # a user name that collides with a generated one is made unique too
    assert tf.constant(0.0, name="Add_3").op.name == "Add_3" and tf.add(a, b).op.name == "Add_4"


def test_name_scopes_nest_and_reentered_scopes_get_suffixes():
    a = tf.constant(1.0)
    with tf.name_scope("s") as scope:
        assert scope == "s/"
        x = tf.add(a, a)
        with tf.name_scope("inner") as inner:
            assert inner == "s/inner/"
            y = tf.add(a, a, name="y")
        assert tf.get_default_graph().get_name_scope() == "s"
    with tf.name_scope("s") as scope2:
        z = tf.add(a, a)
    assert scope2 == "s_1/"
    assert [x.op.name, y.op.name, z.op.name] == ["s/Add", "s/inner/y", "s_1/Add"]
    with tf.name_scope(None, "default") as d:
        assert d == "default/"
    with tf.name_scope("top"):
        with tf.name_scope(None) as root:
            assert root == "" and tf.constant(1.0).op.name == "Const_1"
    with pytest.raises(ValueError):
        with tf.name_scope("bad name!"):
            pass


def test_scope_name_ending_in_slash_is_used_as_is():
    a = tf.constant(1.0)
    with tf.name_scope("s") as scope:
        pass
    with tf.name_scope(scope):  # re-enter exactly, no s_1
        assert tf.add(a, a).op.name == "s/Add"
    with tf.name_scope("t") as t_scope:
        out = tf.add(a, a, name=t_scope)  # an op named after its scope, as TF's ops do
    assert out.op.name == "t"
    with pytest.raises(ValueError, match="Duplicate node name"):
        tf.add(a, a, name="t/")


def test_default_graph_stack():
    g0 = tf.get_default_graph()
    g1, g2 = tf.Graph(), tf.Graph()
    with g1.as_default() as entered:
        assert entered is g1 and tf.get_default_graph() is g1
        c = tf.constant(1.0)
        assert c.graph is g1
        with g2.as_default():
            assert tf.get_default_graph() is g2
            with pytest.raises(AssertionError):
                tf.reset_default_graph()
        assert tf.get_default_graph() is g1
    assert tf.get_default_graph() is g0
    assert c not in g0.get_operations() and c.op in g1.get_operations()
    tf.reset_default_graph()
    assert tf.get_default_graph() is not g0 and tf.get_default_graph().get_operations() == []


def test_inputs_from_another_graph_are_rejected():
    g1 = tf.Graph()
    with g1.as_default():
        a = tf.constant(1.0)
    b = tf.constant(2.0)
    with pytest.raises(ValueError):
        tf.add(a, b)


# ---- control dependencies -----------------------------------------------------------------------
def test_control_dependencies():
    a = tf.constant(1.0)
    b = tf.constant(2.0)
    with tf.control_dependencies([a]):
        c = tf.add(b, b)
        d = tf.add(a, b)  # a is already a data input: no control edge needed
        with tf.control_dependencies([b.op]):
            e = tf.add(b, b)
        with tf.control_dependencies(None):
            f = tf.add(b, b)
    assert c.op.control_inputs == (a.op,)
    assert d.op.control_inputs == ()
    assert e.op.control_inputs == (a.op,)  # b is a data input of e
    assert f.op.control_inputs == ()
    with tf.control_dependencies([c, d.op]):
        g = tf.constant(3.0)
    assert g.op.control_inputs == (c.op, d.op)
    with pytest.raises(TypeError):
        with tf.control_dependencies([1.0]):
            pass


# ---- collections --------------------------------------------------------------------------------
def test_collections():
    c = tf.constant(1.0, name="c")
    tf.add_to_collection("mine", 1)
    tf.add_to_collection("mine", c)
    tf.add_to_collections(["a", "b"], c)
    assert tf.get_collection("mine") == [1, c]
    assert tf.get_collection("mine", scope="c") == [c]  # items without a name never match a scope
    assert tf.get_collection("nothing") == []
    ref = tf.get_collection_ref("mine")
    ref.append(2)
    assert tf.get_collection("mine") == [1, c, 2]
    copy = tf.get_collection("mine")
    copy.append(3)
    assert len(tf.get_collection("mine")) == 3
    assert set(tf.get_default_graph().get_all_collection_keys()) >= {"mine", "a", "b"}
    with tf.name_scope("scope"):
        v = tf.Variable(1.0, name="v")
    w = tf.Variable(2.0, trainable=False, name="w")
    assert tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES) == [v, w] == tf.global_variables()
    assert tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES) == [v] == tf.trainable_variables()
    assert tf.global_variables(scope="scope") == [v]
    assert tf.GraphKeys.GLOBAL_VARIABLES == "variables" and tf.GraphKeys.TRAINABLE_VARIABLES == "trainable_variables"


# ---- lookups ------------------------------------------------------------------------------------
def test_get_by_name_and_errors():
    g = tf.get_default_graph()
    a = tf.constant(1.0, name="a")
    s = tf.add(a, a, name="s")
    assert g.get_tensor_by_name("s:0") is s and g.get_operation_by_name("s") is s.op
    assert g.as_graph_element("s") is s.op and g.as_graph_element("s:0") is s and g.as_graph_element(s) is s
    assert g.get_operations() == [a.op, s.op]
    with pytest.raises(KeyError, match="does not exist"):
        g.get_tensor_by_name("nope:0")
    with pytest.raises(KeyError, match="only has 1 outputs"):
        g.get_tensor_by_name("s:1")
    with pytest.raises(ValueError, match="Tensor names must be of the form"):
        g.get_tensor_by_name("s")
    with pytest.raises(KeyError):
        g.get_operation_by_name("nope")
    with pytest.raises(ValueError):
        g.get_operation_by_name("s:0")
    with pytest.raises(TypeError):
        g.get_operation_by_name(3)
    with pytest.raises(TypeError):
        g.get_tensor_by_name(s)
    other = tf.Graph()
    with pytest.raises(ValueError):
        other.as_graph_element(s)


def test_operation_and_tensor_attributes():
    a = tf.placeholder(tf.float32, [None, 3], name="a")
    b = tf.constant([1.0, 2.0, 3.0], name="b")
    with tf.control_dependencies([b]):
        s = tf.add(a, b, name="s")
    op = s.op
    assert op.name == "s" and op.type == "Add" and op.graph is tf.get_default_graph()
    assert op.inputs == (a, b) and op.outputs == [s] and op.values() == (s,)
    assert op.control_inputs == ()  # b is already a data input
    assert s.value_index == 0 and s.dtype == tf.float32 and s.shape.as_list() == [None, 3]
    assert s.get_shape() is s.shape or s.get_shape() == s.shape
    assert a.consumers() == [op] and b.consumers() == [op] and s.consumers() == []
    t = tf.identity(a)
    assert a.consumers() == [op, t.op]
    assert "name" in op.node_def and op.node_def["op"] == "Add"
    assert tf.cast(a, tf.int32).op.get_attr("DstT") == tf.int32
    with pytest.raises(ValueError):
        op.get_attr("nope")
    assert repr(s) == "<tf.Tensor 's:0' shape=(?, 3) dtype=float32>"
    assert str(s) == 'Tensor("s:0", shape=(?, 3), dtype=float32)'
    a.set_shape([2, None])
    assert a.shape.as_list() == [2, 3]
    with pytest.raises(ValueError):
        a.set_shape([4, 3])
    with pytest.raises(TypeError):
        bool(a)
    with pytest.raises(TypeError):
        len(a)


def test_finalize():
    g = tf.Graph()
    with g.as_default():
        tf.constant(1.0)
    g.finalize()
    assert g.finalized
    with g.as_default():
        with pytest.raises(RuntimeError, match="finalized"):
            tf.constant(2.0)
        with pytest.raises(RuntimeError):
            tf.add_to_collection("k", 1)
    assert len(g.get_operations()) == 1


# ---- DType --------------------------------------------------------------------------------------
def test_dtype_attributes():
    assert tf.float32.name == "float32" and repr(tf.float32) == "tf.float32" and str(tf.float32) == "<dtype: 'float32'>"
    assert tf.float32.is_floating and not tf.float32.is_integer and tf.bfloat16.is_floating
    assert tf.int32.is_integer and tf.uint8.is_unsigned and not tf.int8.is_unsigned and tf.bool.is_bool
    assert tf.int8.max == 127 and tf.int8.min == -128 and tf.uint8.min == 0 and tf.uint8.max == 255
    assert tf.float16.max == 65504.0 and tf.float32.min == -np.finfo(np.float32).max
    assert tf.int32.limits == (np.iinfo(np.int32).min, np.iinfo(np.int32).max)
    assert tf.float32.as_numpy_dtype is np.float32 and tf.int64.as_numpy_dtype is np.int64
    assert tf.float32.base_dtype is tf.float32 and tf.float64.size == 8
    assert tf.float32.as_datatype_enum == 1 and tf.int64.as_datatype_enum == 9
    assert tf.half is tf.float16 and tf.double is tf.float64
    for spelling in ("float32", np.float32, np.dtype("float32"), tf.float32):
        assert tf.as_dtype(spelling) is tf.float32
    assert tf.as_dtype(float) is tf.float32 and tf.as_dtype(bool) is tf.bool  # as_dtype(int): TypeError, as TF
    assert tf.float32 == np.float32 and tf.float32 == "float32" and tf.float32 != tf.float64
    assert tf.float32.is_compatible_with(tf.float32) and not tf.float32.is_compatible_with(tf.int32)
    assert len({tf.float32, tf.as_dtype("float32"), tf.int32}) == 2
    with pytest.raises(TypeError):
        tf.as_dtype("float31")
    assert tf.as_dtype(np.complex64) is tf.complex64 and tf.complex64.real_dtype is tf.float32


# ---- TensorShape and Dimension ------------------------------------------------------------------
def test_tensor_shape():
    s = tf.TensorShape([None, 3])
    assert s.ndims == 2 and s.rank == 2 and s.as_list() == [None, 3] and len(s) == 2
    assert str(s) == "(?, 3)" and repr(s) == "TensorShape([Dimension(None), Dimension(3)])"
    assert str(tf.TensorShape([4])) == "(4,)" and str(tf.TensorShape([])) == "()"
    assert s[1].value == 3 and s[0].value is None and s[1:].as_list() == [3]
    assert not s.is_fully_defined() and s.num_elements() is None
    assert tf.TensorShape([2, 3]).num_elements() == 6 and tf.TensorShape([]).num_elements() == 1
    assert s.merge_with([2, None]).as_list() == [2, 3]
    assert s.is_compatible_with([5, 3]) and not s.is_compatible_with([5, 4]) and not s.is_compatible_with([3])
    with pytest.raises(ValueError):
        s.merge_with([2, 4])
    with pytest.raises(ValueError):
        s.merge_with([2, 3, 4])
    u = tf.TensorShape(None)
    assert u.ndims is None and str(u) == "<unknown>" and u.is_compatible_with([1, 2, 3])
    assert u.merge_with([1, 2]).as_list() == [1, 2] and s.merge_with(u) == s
    with pytest.raises(ValueError):
        u.as_list()
    with pytest.raises(ValueError):
        len(u)
    assert s.concatenate([7]).as_list() == [None, 3, 7] and (s + [7]).as_list() == [None, 3, 7]
    assert s.with_rank(2) == s and u.with_rank(2).as_list() == [None, None]
    with pytest.raises(ValueError):
        s.with_rank(3)
    with pytest.raises(ValueError):
        s.with_rank_at_least(3)
    with pytest.raises(ValueError):
        s.with_rank_at_most(1)
    assert tf.TensorShape([1, 2]).most_specific_compatible_shape([1, 3]).as_list() == [1, None]
    assert tf.TensorShape([1, 2]) == [1, 2] and tf.TensorShape([1, 2]) != [2, 1]
    assert [d.value for d in tf.TensorShape([1, None])] == [1, None]
    assert tf.placeholder(tf.float32, [None, 2]).shape.is_compatible_with(s.merge_with([1, None])) is False


def test_dimension():
    d3, dn = tf.Dimension(3), tf.Dimension(None)
    assert d3.value == 3 and dn.value is None and int(d3) == 3 and str(dn) == "?" and repr(d3) == "Dimension(3)"
    assert (d3 + 1).value == 4 and (1 + d3).value == 4 and (d3 * 2).value == 6 and (d3 - 1).value == 2
    assert (d3 // 2).value == 1 and (d3 % 2).value == 1 and (10 - d3).value == 7
    assert (dn + 1).value is None and (dn * d3).value is None
    assert d3 == 3 and d3 != 4 and (dn == 3) is None and (d3 < 4) is True and (dn < 4) is None
    assert d3.is_compatible_with(dn) and not d3.is_compatible_with(4)
    assert d3.merge_with(dn).value == 3 and dn.merge_with(5).value == 5
    with pytest.raises(ValueError):
        d3.merge_with(4)
    with pytest.raises(ValueError):
        tf.Dimension(-1)
    with pytest.raises(ValueError):
        tf.Dimension(2.5)
    assert tf.Dimension(np.int64(2)).value == 2 and tf.Dimension(d3).value == 3
    assert list(range(5))[:tf.Dimension(2)] == [0, 1]  # __index__
