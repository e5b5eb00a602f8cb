"""tf.contrib.layers' old feature-column API (TF 1.15), over tinyflow's tf.feature_column columns:

    age = tf.contrib.layers.real_valued_column("age")
    city = tf.contrib.layers.sparse_column_with_integerized_feature("city", bucket_size=100)
    net = tf.contrib.layers.input_from_feature_columns(features, [age, embedding_column(city, 8)])
    logits, cols_to_vars, bias = tf.contrib.layers.weighted_sum_from_feature_columns(features, cols, 2)

The old functions keep TF's variable names ("input_from_feature_columns/<col>/weights",
"weighted_sum_from_feature_columns/<col>/weight(s)", ".../bias_weight") and TF's column order (the old
API sorts columns by their repr, which starts with the class name: bucketized, embedding, one-hot,
real-valued, ...). Sparse columns take the dense [batch, n] ids of tf.feature_column (-1: no id).
A sparse column's `combiner` applies in weighted_sum_from_feature_columns, as in TF.
"""
import collections

from tinyflow.api import feature_column as _fc
from tinyflow.api import tf_names as _tf

__all__ = ["SPARSE_FEATURE_CROSS_DEFAULT_HASH_KEY", "bucketized_column", "create_feature_spec_for_parsing",
           "crossed_column", "embedding_column", "input_from_feature_columns", "one_hot_column",
           "real_valued_column", "sparse_column_with_hash_bucket", "sparse_column_with_integerized_feature",
           "sparse_column_with_keys", "sparse_column_with_vocabulary_file", "weighted_sparse_column",
           "weighted_sum_from_feature_columns"]

SPARSE_FEATURE_CROSS_DEFAULT_HASH_KEY = 0xDECAFCAFFE   # TF's default hash_key of sparse_feature_cross

_COMBINERS = {}   # column -> the combiner of an old sparse column (the new columns carry none)


def _with_combiner(column, combiner):
    if combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError("combiner must be one of 'mean', 'sqrtn' or 'sum'; got %r" % (combiner,))
    _COMBINERS[column] = combiner
    return column


class IntegerizedColumn(_fc.IdentityCategoricalColumn):
    """sparse_column_with_integerized_feature: integer ids taken modulo bucket_size (TF's mod), -1: no id."""

    def ids(self, cache):
        def build(cache):
            x = _fc._raw_ids(cache, self.key)
            return _tf.where_v2(_tf.less(x, 0), x, _tf.floormod(x, self.num_buckets))
        return cache.get(self, build)


class OneHotColumn(_fc.IndicatorColumn):
    """one_hot_column: indicator_column under the old name "<sparse column>_one_hot"."""
    name = property(lambda self: self.categorical_column.name + "_one_hot")


def real_valued_column(column_name, dimension=1, default_value=None, dtype=_tf.float32, normalizer=None):
    """A dense float feature of `dimension` values (tf.feature_column.numeric_column)."""
    if dimension is None:
        raise NotImplementedError("tinyflow: real_valued_column(dimension=None) (variable-length, sparse) is not "
                                  "supported; give the dimension")
    if dimension < 1:
        raise ValueError("dimension must be greater than 0. dimension: {}, column_name: {}".format(
            dimension, column_name))
    if isinstance(default_value, (int, float)):
        default_value = (float(default_value),) * dimension
    return _fc.numeric_column(column_name, (dimension,), default_value, dtype, normalizer)


def sparse_column_with_integerized_feature(column_name, bucket_size, combiner="sum", dtype=_tf.int64):
    """Integer ids in [0, bucket_size) (values are taken modulo bucket_size)."""
    if bucket_size < 1:
        raise ValueError("bucket_size must be at least 1. bucket_size: {}, column_name: {}".format(
            bucket_size, column_name))
    if not _tf.as_dtype(dtype).is_integer:
        raise ValueError("dtype must be an integer. dtype: {}, column_name: {}".format(dtype, column_name))
    return _with_combiner(IntegerizedColumn(column_name, int(bucket_size), None), combiner)


def sparse_column_with_hash_bucket(column_name, hash_bucket_size, combiner="sum", dtype=_tf.string, hash_keys=None):
    """Ids by hashing into hash_bucket_size buckets (categorical_column_with_hash_bucket)."""
    if hash_keys is not None:
        raise NotImplementedError("tinyflow: sparse_column_with_hash_bucket(hash_keys=...) is not supported")
    return _with_combiner(_fc.categorical_column_with_hash_bucket(column_name, hash_bucket_size, dtype), combiner)


def sparse_column_with_keys(column_name, keys, default_value=-1, combiner="sum", dtype=_tf.string):
    """Ids by position in `keys` (categorical_column_with_vocabulary_list)."""
    dtype = None if dtype == _tf.string and keys and not isinstance(list(keys)[0], (str, bytes)) else dtype
    return _with_combiner(_fc.categorical_column_with_vocabulary_list(column_name, keys, dtype, default_value),
                          combiner)


def sparse_column_with_vocabulary_file(column_name, vocabulary_file, num_oov_buckets=0, vocab_size=None,
                                       default_value=-1, combiner="sum", dtype=_tf.string):
    """Ids by line number in vocabulary_file (categorical_column_with_vocabulary_file)."""
    return _with_combiner(_fc.categorical_column_with_vocabulary_file(
        column_name, vocabulary_file, vocab_size, num_oov_buckets, None if num_oov_buckets else default_value,
        dtype), combiner)


def weighted_sparse_column(sparse_id_column, weight_column_name, dtype=_tf.float32):
    """A sparse column whose ids are weighted by features[weight_column_name]."""
    column = _fc.weighted_categorical_column(sparse_id_column, weight_column_name, dtype)
    return _with_combiner(column, _COMBINERS.get(sparse_id_column, "sum"))


def embedding_column(sparse_id_column, dimension, combiner="mean", initializer=None, ckpt_to_load_from=None,
                     tensor_name_in_ckpt=None, max_norm=None, trainable=True):
    """A sparse column as a trained embedding of `dimension`, combined over an example's ids."""
    return _fc.embedding_column(sparse_id_column, dimension, combiner, initializer, ckpt_to_load_from,
                                tensor_name_in_ckpt, max_norm, trainable)


def one_hot_column(sparse_id_column):
    """A sparse column as a dense multi-hot vector."""
    if not isinstance(sparse_id_column, _fc._CategoricalColumn):
        raise ValueError("one_hot_column needs a sparse column. Given: %s" % (sparse_id_column,))
    return OneHotColumn(sparse_id_column)


def bucketized_column(source_column, boundaries):
    """A real-valued column bucketized by sorted boundaries."""
    return _fc.bucketized_column(source_column, boundaries)


def crossed_column(columns, hash_bucket_size, combiner="sum", ckpt_to_load_from=None, tensor_name_in_ckpt=None,
                   hash_key=None):
    """The cross of sparse / bucketized columns, hashed into hash_bucket_size buckets (tinyflow's hash)."""
    if ckpt_to_load_from is not None or tensor_name_in_ckpt is not None:
        raise NotImplementedError("tinyflow: crossed_column(ckpt_to_load_from=...) is not supported")
    return _with_combiner(_fc.crossed_column(list(columns), hash_bucket_size, hash_key), combiner)


def create_feature_spec_for_parsing(feature_columns):
    """{feature key: FixedLenFeature / VarLenFeature} for tf.parse_example (a set, list or dict of columns)."""
    if isinstance(feature_columns, dict):
        feature_columns = feature_columns.values()
    return _fc.make_parse_example_spec(list(feature_columns))


_OLD_CLASS = ((OneHotColumn, "_OneHotColumn"), (IntegerizedColumn, "_SparseColumnIntegerized"),
              (_fc.NumericColumn, "_RealValuedColumn"), (_fc.BucketizedColumn, "_BucketizedColumn"),
              (_fc.EmbeddingColumn, "_EmbeddingColumn"), (_fc.HashedCategoricalColumn, "_SparseColumnHashed"),
              (_fc.VocabularyListCategoricalColumn, "_SparseColumnKeys"),
              (_fc.WeightedCategoricalColumn, "_WeightedSparseColumn"), (_fc.CrossedColumn, "_CrossedColumn"))


def _old_key(column):
    """The start of TF's old column repr, by which the old API orders columns."""
    for cls, name in _OLD_CLASS:
        if isinstance(column, cls):
            inner = getattr(column, "source_column", None) or getattr(column, "categorical_column", None)
            return name + "(" + (_old_key(inner) if inner is not None else repr(column.name))
    return column.name


def _columns(feature_columns):
    columns = sorted(set(feature_columns or []), key=_old_key)
    if not columns:
        raise ValueError("feature_columns must not be empty.")
    return columns


def _check_features(columns_to_tensors):
    if not isinstance(columns_to_tensors, dict):
        raise ValueError("columns_to_tensors must be a dict of feature name to Tensor. Given: %s"
                         % type(columns_to_tensors))
    return _fc._Cache(columns_to_tensors)


def _embedding(column, cache, name, weight_collections, trainable):
    cat = column.categorical_column
    table = _tf.get_variable(name, [cat.num_buckets, column.dimension], _tf.float32, initializer=column.initializer,
                             trainable=trainable and column.trainable, collections=_collections(weight_collections))
    ids = cat.ids(cache)
    return _fc._combine(_tf.nn.embedding_lookup(table, _tf.maximum(ids, 0)), ids, cat.weights(cache), column.combiner)


def _collections(weight_collections):
    return list(set([_tf.GraphKeys.GLOBAL_VARIABLES] + list(weight_collections or [])))


def input_from_feature_columns(columns_to_tensors, feature_columns, weight_collections=None, trainable=True,
                               scope=None, cols_to_outs=None):
    """The dense [batch, sum of dimensions] input of a DNN: real-valued, bucketized, one-hot and embedding
    columns concatenated in the old API's order (embedding tables "<scope>/<col>/weights")."""
    cache = _check_features(columns_to_tensors)
    outputs = []
    with _tf.variable_scope(scope, default_name="input_from_feature_columns"):
        for column in _columns(feature_columns):
            if not isinstance(column, _fc._DenseColumn):
                raise ValueError("Error creating input layer for column: {}. Sparse columns need an "
                                 "embedding_column or one_hot_column.".format(column.name))
            with _tf.variable_scope(None, default_name=column.name):
                if isinstance(column, _fc.EmbeddingColumn):
                    out = _embedding(column, cache, "weights", weight_collections, trainable)
                else:
                    out = _tf.cast(column.dense(cache), _tf.float32)
            outputs.append(out)
            if cols_to_outs is not None:
                cols_to_outs[column] = out
        return _tf.concat(outputs, 1)


def weighted_sum_from_feature_columns(columns_to_tensors, feature_columns, num_outputs, weight_collections=None,
                                      trainable=True, scope=None):
    """A linear model: (predictions [batch, num_outputs], {column: [weight variable]}, bias variable), with
    "<scope>/<col>/weight" for real-valued, "<scope>/<col>/weights" for sparse and bucketized columns and
    "<scope>/bias_weight"; all weights start at zero."""
    cache = _check_features(columns_to_tensors)
    parts, column_to_variables = [], collections.OrderedDict()
    with _tf.variable_scope(scope, default_name="weighted_sum_from_feature_columns"):
        for column in _columns(feature_columns):
            with _tf.variable_scope(None, default_name=column.name):
                if isinstance(column, _fc._CategoricalColumn):
                    w = _tf.get_variable("weights", [column.num_buckets, num_outputs], _tf.float32,
                                         _tf.zeros_initializer(), trainable=trainable,
                                         collections=_collections(weight_collections))
                    ids = column.ids(cache)
                    rows = _tf.nn.embedding_lookup(w, _tf.maximum(ids, 0))
                    parts.append(_fc._combine(rows, ids, column.weights(cache), _COMBINERS.get(column, "sum")))
                elif isinstance(column, _fc.NumericColumn):
                    w = _tf.get_variable("weight", [column.dimension, num_outputs], _tf.float32,
                                         _tf.zeros_initializer(), trainable=trainable,
                                         collections=_collections(weight_collections))
                    parts.append(_tf.matmul(_tf.cast(column.dense(cache), _tf.float32), w))
                else:
                    raise ValueError("weighted_sum_from_feature_columns does not take an embedding or one-hot "
                                     "column: {}".format(column.name))
            column_to_variables[column] = [w]
        bias = _tf.get_variable("bias_weight", [num_outputs], _tf.float32, _tf.zeros_initializer(),
                                trainable=trainable, collections=_collections(weight_collections))
        return _tf.nn.bias_add(_tf.add_n(parts), bias), column_to_variables, bias
