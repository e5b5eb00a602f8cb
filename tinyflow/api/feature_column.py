"""tf.feature_column (TF 1.15): how raw features become the dense input of a model.

    age = tf.feature_column.numeric_column("age")
    city = tf.feature_column.categorical_column_with_identity("city", num_buckets=100)
    net = tf.feature_column.input_layer(features, [age, tf.feature_column.embedding_column(city, 8)])

tinyflow has no SparseTensor: a categorical column's ids are a dense int64 tensor [batch, n] (n ids
per example, -1 where an example has fewer), and indicator / embedding / linear_model combine over
that axis as TF combines the values of a sparse row. Both input_layer and linear_model sort the
columns by name and use TF's variable names ("input_layer/<col>_embedding/embedding_weights",
"linear_model/<col>/weights", "linear_model/bias_weights").

Limits (no string tensors yet): string vocabularies and string hash buckets work on numpy string
inputs that `tf.estimator.inputs.numpy_input_fn` / `pandas_input_fn` (or `encode_strings` on a
features dict) convert to ids on the host. Every hash is TF's (api/fingerprint.py): string hash buckets and OOV
buckets use Fingerprint64 (FarmHash; the pyfarmhash binding when installed, else tinyflow's transcription),
integer hash buckets Fingerprint64 of the decimal string (in the graph), crossed columns SparseCross's
FingerprintCat64 (in the graph), so an id lands in TF's bucket and a model trained in TF predicts the same.
"""
import collections
import math

import numpy as np

from tinyflow.api import tf_names as _tf

__all__ = ["bucketized_column", "categorical_column_with_hash_bucket", "categorical_column_with_identity",
           "categorical_column_with_vocabulary_file", "categorical_column_with_vocabulary_list", "crossed_column",
           "embedding_column", "indicator_column", "input_layer", "linear_model", "make_parse_example_spec",
           "numeric_column", "shared_embedding_columns", "weighted_categorical_column"]


class _Cache:
    """One transformation of a features dict: each column's output is built once."""

    def __init__(self, features):
        if not isinstance(features, dict):
            raise ValueError("features should be a dictionary of `Tensor`s. Given type: %s" % type(features))
        self.features, self._done = features, {}

    def raw(self, key):
        if key not in self.features:
            raise ValueError("The following is not a valid feature key: %s (features: %s)"
                             % (key, sorted(self.features)))
        return _tf.convert_to_tensor(self.features[key])

    def get(self, column, build):
        if column not in self._done:
            self._done[column] = build(self)
        return self._done[column]


def _rank2(t):
    """[batch] -> [batch, 1]; [batch, a, b] -> [batch, a*b]."""
    if t.shape.ndims == 1:
        return _tf.expand_dims(t, -1)
    if t.shape.ndims is not None and t.shape.ndims > 2:
        return _tf.reshape(t, [-1, int(np.prod(t.shape.as_list()[1:]))])
    return t


class _Column:
    """Base of every column: a name (a column is a namedtuple of its config: equal configs, one column)."""

    @property
    def _var_scope_name(self):
        return self.name


class _DenseColumn(_Column):
    """A column with a dense [batch, dimension] float output (input_layer)."""

    def dense(self, cache):
        raise NotImplementedError


class _CategoricalColumn(_Column):
    """A column of integer ids in [0, num_buckets) ([batch, n], -1 = no id)."""

    def ids(self, cache):
        raise NotImplementedError

    def weights(self, cache):
        return None


class NumericColumn(_DenseColumn, collections.namedtuple("NumericColumn", ["key", "shape", "default_value",
                                                                           "dtype", "normalizer_fn"])):
    name = property(lambda self: self.key)
    dimension = property(lambda self: int(np.prod(self.shape)))

    def dense(self, cache):
        def build(cache):
            x = _tf.cast(cache.raw(self.key), self.dtype)
            if self.normalizer_fn is not None:
                x = self.normalizer_fn(x)
            return _tf.reshape(x, [-1, self.dimension])
        return cache.get(self, build)


def numeric_column(key, shape=(1,), default_value=None, dtype=_tf.float32, normalizer_fn=None):
    """A dense column of `shape` floats read from features[key] (cast to dtype, then normalizer_fn)."""
    shape = (shape,) if isinstance(shape, int) else tuple(int(d) for d in shape)
    if any(d <= 0 for d in shape):
        raise ValueError("shape dimensions must be greater than 0. shape: %s, key: %s" % (shape, key))
    dtype = _tf.as_dtype(dtype)
    if not dtype.is_floating and not dtype.is_integer:
        raise ValueError("dtype must be convertible to float. dtype: %s, key: %s" % (dtype, key))
    if normalizer_fn is not None and not callable(normalizer_fn):
        raise TypeError("normalizer_fn must be a callable. Given: %s" % normalizer_fn)
    return NumericColumn(key, shape, default_value, dtype, normalizer_fn)


class BucketizedColumn(_DenseColumn, _CategoricalColumn,
                       collections.namedtuple("BucketizedColumn", ["source_column", "boundaries"])):
    name = property(lambda self: self.source_column.name + "_bucketized")
    num_buckets = property(lambda self: self.source_column.dimension * (len(self.boundaries) + 1))
    dimension = num_buckets

    def _bucket(self, cache):
        def build(cache):
            x = self.source_column.dense(cache)                                  # [batch, d]
            bounds = _tf.constant(np.asarray(self.boundaries, np.float64), _tf.float32)
            # bucket i holds boundaries[i-1] <= x < boundaries[i]
            return _tf.reduce_sum(_tf.cast(_tf.greater_equal(_tf.expand_dims(x, -1), bounds), _tf.int64), -1)
        return cache.get((self, "bucket"), build)

    def dense(self, cache):
        one_hot = _tf.one_hot(self._bucket(cache), len(self.boundaries) + 1, dtype=_tf.float32)
        return _tf.reshape(one_hot, [-1, self.dimension])

    def ids(self, cache):
        # as a categorical column, dimension j of the source uses buckets [j*(B+1), (j+1)*(B+1))
        offsets = np.arange(self.source_column.dimension, dtype=np.int64) * (len(self.boundaries) + 1)
        return self._bucket(cache) + _tf.constant(offsets)


def bucketized_column(source_column, boundaries):
    """Buckets a numeric column by sorted `boundaries`: one-hot as a dense column, ids as a categorical one."""
    if not isinstance(source_column, NumericColumn):
        raise ValueError("source_column must be a column generated with numeric_column(). Given: %s" % (source_column,))
    if len(source_column.shape) > 1:
        raise ValueError("source_column must be one-dimensional column. Given: %s" % (source_column,))
    boundaries = tuple(float(b) for b in boundaries)
    if not boundaries or any(a >= b for a, b in zip(boundaries, boundaries[1:])):
        raise ValueError("boundaries must be a sorted list.")
    return BucketizedColumn(source_column, boundaries)


def _raw_ids(cache, key):
    """features[key] as int64 ids [batch, n]."""
    x = cache.raw(key)
    if x.dtype == _tf.string:
        raise ValueError("tinyflow has no string tensors: feature %r holds strings. Give it as numpy strings to "
                         "tf.estimator.inputs.numpy_input_fn / pandas_input_fn (which turn them into ids on the "
                         "host), or call tf.feature_column.encode_strings on the features dict." % key)
    if not x.dtype.is_integer:
        raise ValueError("Column dtype and SparseTensors dtype must be compatible. key: %s, column dtype: int64, "
                         "tensor dtype: %s" % (key, x.dtype.name))
    return _rank2(_tf.cast(x, _tf.int64))


class IdentityCategoricalColumn(_CategoricalColumn, collections.namedtuple(
        "IdentityCategoricalColumn", ["key", "num_buckets", "default_value"])):
    name = property(lambda self: self.key)

    def ids(self, cache):
        def build(cache):
            x = _raw_ids(cache, self.key)
            valid = _tf.logical_and(_tf.greater_equal(x, 0), _tf.less(x, self.num_buckets))
            fill = -1 if self.default_value is None else self.default_value
            return _tf.where_v2(valid, x, _tf.constant(fill, _tf.int64) * _tf.ones_like(x))
        return cache.get(self, build)


def categorical_column_with_identity(key, num_buckets, default_value=None):
    """Integer features used as ids in [0, num_buckets); others map to default_value (None: no id)."""
    if num_buckets < 1:
        raise ValueError("num_buckets {} < 1, column_name {}".format(num_buckets, key))
    if default_value is not None and not 0 <= default_value < num_buckets:
        raise ValueError("default_value {} not in range [0, {}), column_name {}".format(default_value, num_buckets,
                                                                                      key))
    return IdentityCategoricalColumn(key, int(num_buckets), default_value)


class VocabularyListCategoricalColumn(_CategoricalColumn, collections.namedtuple(
        "VocabularyListCategoricalColumn", ["key", "vocabulary_list", "dtype", "default_value", "num_oov_buckets"])):
    name = property(lambda self: self.key)
    num_buckets = property(lambda self: len(self.vocabulary_list) + self.num_oov_buckets)

    def host_encode(self, values):
        """numpy values (strings or ints) -> int64 ids, on the host."""
        index = {v: i for i, v in enumerate(self.vocabulary_list)}
        values = np.asarray(values)
        out = np.empty(values.shape, np.int64)
        for pos, v in np.ndenumerate(values):
            v = v.decode() if isinstance(v, bytes) else (v if isinstance(v, str) else int(v))
            if v in index:
                out[pos] = index[v]
            elif self.num_oov_buckets:
                out[pos] = len(index) + _fingerprint(str(v)) % self.num_oov_buckets
            else:
                out[pos] = self.default_value
        return out

    def ids(self, cache):
        def build(cache):
            x = _raw_ids(cache, self.key)
            if self.dtype == _tf.string:
                return x  # already ids: the strings were encoded on the host
            vocab = _tf.constant(np.asarray(self.vocabulary_list, np.int64))
            hit = _tf.equal(_tf.expand_dims(x, -1), vocab)                      # [batch, n, V]
            found = _tf.reduce_any(hit, -1)
            index = _tf.argmax(_tf.cast(hit, _tf.int32), -1)
            if self.num_oov_buckets:
                miss = len(self.vocabulary_list) + _tf.floormod(x, self.num_oov_buckets)
            else:
                miss = _tf.constant(self.default_value, _tf.int64) * _tf.ones_like(x)
            return _tf.where_v2(found, index, miss)
        return cache.get(self, build)


def categorical_column_with_vocabulary_list(key, vocabulary_list, dtype=None, default_value=-1, num_oov_buckets=0):
    """Maps each value to its index in vocabulary_list; others to default_value or an OOV bucket."""
    vocabulary_list = tuple(v.decode() if isinstance(v, bytes) else v for v in vocabulary_list)
    if not vocabulary_list:
        raise ValueError("vocabulary_list {} must be non-empty, column_name: {}".format(vocabulary_list, key))
    if len(set(vocabulary_list)) != len(vocabulary_list):
        raise ValueError("Duplicate keys in vocabulary_list {}, column_name: {}".format(vocabulary_list, key))
    is_str = isinstance(vocabulary_list[0], str)
    dtype = _tf.as_dtype(dtype) if dtype is not None else (_tf.string if is_str else _tf.int64)
    if is_str != (dtype == _tf.string):
        raise ValueError("dtype {} and vocabulary dtype do not match, column_name: {}".format(dtype, key))
    if num_oov_buckets and default_value != -1:
        raise ValueError("Can't specify both num_oov_buckets and default_value in {}.".format(key))
    return VocabularyListCategoricalColumn(key, vocabulary_list, dtype, default_value, int(num_oov_buckets))


def categorical_column_with_vocabulary_file(key, vocabulary_file, vocabulary_size=None, num_oov_buckets=0,
                                            default_value=None, dtype=_tf.string):
    """As vocabulary_list, with the vocabulary read (one entry a line) from a file, now."""
    with open(vocabulary_file, encoding="utf-8") as f:
        vocab = [line.rstrip("\n") for line in f][:vocabulary_size]
    if _tf.as_dtype(dtype).is_integer:
        vocab = [int(v) for v in vocab]
    return categorical_column_with_vocabulary_list(key, vocab, dtype, -1 if default_value is None else default_value,
                                                   num_oov_buckets)


def _fingerprint(text):
    """The hash of hash buckets and OOV buckets: TF's Fingerprint64 (FarmHash) of the UTF-8 text, so a value
    lands in TF's bucket (the pyfarmhash binding when installed, else tinyflow's transcription of it)."""
    from tinyflow.api.farmhash import fingerprint64
    return fingerprint64(text.encode("utf-8"))


class HashedCategoricalColumn(_CategoricalColumn, collections.namedtuple(
        "HashedCategoricalColumn", ["key", "hash_bucket_size", "dtype"])):
    name = property(lambda self: self.key)
    num_buckets = property(lambda self: self.hash_bucket_size)

    def host_encode(self, values):
        values = np.asarray(values)
        out = np.empty(values.shape, np.int64)
        for pos, v in np.ndenumerate(values):
            out[pos] = _fingerprint(v.decode() if isinstance(v, bytes) else str(v)) % self.hash_bucket_size
        return out

    def ids(self, cache):
        def build(cache):
            x = _raw_ids(cache, self.key)
            if self.dtype == _tf.string:
                return x
            # TF hashes an integer as its decimal string: Fingerprint64(str(x)) mod size; -1 is no id
            from tinyflow.api.farmhash import int_fingerprint64, uint64_mod
            return _tf.where_v2(_tf.equal(x, -1), x,
                                uint64_mod(int_fingerprint64(x), self.hash_bucket_size))
        return cache.get(self, build)


def categorical_column_with_hash_bucket(key, hash_bucket_size, dtype=_tf.string):
    """Ids by hashing values into hash_bucket_size buckets: TF's Fingerprint64 of the value (of an integer's
    decimal string) mod hash_bucket_size (strings on the host, integers in the graph)."""
    if hash_bucket_size is None or hash_bucket_size < 1:
        raise ValueError("hash_bucket_size must be at least 1. hash_bucket_size: {}, key: {}".format(
            hash_bucket_size, key))
    return HashedCategoricalColumn(key, int(hash_bucket_size), _tf.as_dtype(dtype))


class CrossedColumn(_CategoricalColumn, collections.namedtuple("CrossedColumn", ["keys", "hash_bucket_size",
                                                                                 "hash_key"])):
    name = property(lambda self: "_X_".join(sorted(k if isinstance(k, str) else k.name for k in self.keys)))
    num_buckets = property(lambda self: self.hash_bucket_size)

    def ids(self, cache):
        def build(cache):
            # TF's SparseCross: the categorical columns' ids (sparse: -1 is no id) first, then the raw
            # features (dense: every value counts), each in the order given; every combination of one id
            # of each, the last column changing fastest, folded into the hash key with FingerprintCat64
            from tinyflow.api.farmhash import DEFAULT_HASH_KEY, cross_hash, uint64_mod
            leaves = _leaf_keys(self)
            columns = [k.ids(cache) for k in leaves if not isinstance(k, str)]
            columns += [_raw_ids(cache, k) for k in leaves if isinstance(k, str)]
            missing, hashed = None, None
            for i, ids in enumerate(columns):
                sparse = i < len(columns) - sum(isinstance(k, str) for k in leaves)
                gone = _tf.less(ids, 0) if sparse else _tf.zeros_like(ids) < 0
                if hashed is None:
                    hashed, missing = cross_hash(self.hash_key or DEFAULT_HASH_KEY, ids), gone
                    continue
                # every pair of one example: [batch, n1, 1] x [batch, 1, n2] -> [batch, n1*n2]
                n = _n_ids(_tf.expand_dims(hashed, 2), _tf.expand_dims(ids, 1))
                hashed = _tf.reshape(cross_hash(_tf.expand_dims(hashed, 2), _tf.expand_dims(ids, 1)), [-1, n])
                missing = _tf.reshape(_tf.logical_or(_tf.expand_dims(missing, 2), _tf.expand_dims(gone, 1)), [-1, n])
            return _tf.where_v2(missing, -_tf.ones_like(hashed, dtype=_tf.int64),
                                uint64_mod(hashed, self.hash_bucket_size))
        return cache.get(self, build)


def _leaf_keys(column):
    """TF's _collect_leaf_level_keys: the keys of a crossed column, nested crossed columns inlined."""
    out = []
    for k in column.keys:
        out.extend(_leaf_keys(k) if isinstance(k, CrossedColumn) else [k])
    return out


def _n_ids(a, b):
    n1, n2 = a.shape.as_list()[1], b.shape.as_list()[2]
    return -1 if n1 is None or n2 is None else n1 * n2


def crossed_column(keys, hash_bucket_size, hash_key=None):
    """Crosses categorical columns (or integer feature keys) into hash_bucket_size buckets."""
    if len(keys) < 2:
        raise ValueError("keys must be a list with length > 1. Given: {}".format(keys))
    if hash_bucket_size is None or hash_bucket_size < 1:
        raise ValueError("hash_bucket_size must be > 1. hash_bucket_size: {}".format(hash_bucket_size))
    for k in keys:
        if not isinstance(k, (str, _CategoricalColumn)):
            raise ValueError("Unsupported key type. All keys must be either string, or categorical column except "
                             "HashedCategoricalColumn. Given: {}".format(k))
        if isinstance(k, HashedCategoricalColumn):
            raise ValueError("categorical_column_with_hash_bucket is not supported for crossing. Hashing before "
                             "crossing will increase probability of collision. Instead, use the feature name as a "
                             "string. Given: {}".format(k))
    return CrossedColumn(tuple(keys), int(hash_bucket_size), hash_key)


class WeightedCategoricalColumn(_CategoricalColumn, collections.namedtuple(
        "WeightedCategoricalColumn", ["categorical_column", "weight_feature_key", "dtype"])):
    name = property(lambda self: "%s_weighted_by_%s" % (self.categorical_column.name, self.weight_feature_key))
    num_buckets = property(lambda self: self.categorical_column.num_buckets)

    def ids(self, cache):
        return self.categorical_column.ids(cache)

    def weights(self, cache):
        return _rank2(_tf.cast(cache.raw(self.weight_feature_key), _tf.float32))


def weighted_categorical_column(categorical_column, weight_feature_key, dtype=_tf.float32):
    """A categorical column whose ids are weighted by features[weight_feature_key] (same shape)."""
    return WeightedCategoricalColumn(categorical_column, weight_feature_key, _tf.as_dtype(dtype))


class IndicatorColumn(_DenseColumn, collections.namedtuple("IndicatorColumn", ["categorical_column"])):
    name = property(lambda self: self.categorical_column.name + "_indicator")
    dimension = property(lambda self: self.categorical_column.num_buckets)

    def dense(self, cache):
        def build(cache):
            col = self.categorical_column
            one_hot = _tf.one_hot(col.ids(cache), col.num_buckets, dtype=_tf.float32)   # -1 -> all zeros
            w = col.weights(cache)
            if w is not None:
                one_hot = one_hot * _tf.expand_dims(w, -1)
            return _tf.reduce_sum(one_hot, 1)  # an id given twice counts twice, as TF's indicator
        return cache.get(self, build)


def indicator_column(categorical_column):
    """A categorical column as a dense multi-hot vector of num_buckets."""
    if not isinstance(categorical_column, _CategoricalColumn):
        raise ValueError("categorical_column must be a categorical column. Given: %s" % (categorical_column,))
    return IndicatorColumn(categorical_column)


def _combine(values, ids, weights, combiner):
    """Combines [batch, n, d] per-id values over n, ignoring ids < 0, as TF combines a sparse row."""
    w = _tf.cast(_tf.greater_equal(ids, 0), _tf.float32)
    if weights is not None:
        w = w * weights
    total = _tf.reduce_sum(values * _tf.expand_dims(w, -1), 1)
    if combiner == "sum":
        return total
    den = _tf.reduce_sum(w, 1, keepdims=True) if combiner == "mean" else \
        _tf.sqrt(_tf.reduce_sum(w * w, 1, keepdims=True))
    return _tf.div_no_nan(total, den)


class EmbeddingColumn(_DenseColumn, collections.namedtuple(
        "EmbeddingColumn", ["categorical_column", "dimension", "combiner", "initializer", "ckpt_to_load_from",
                            "tensor_name_in_ckpt", "max_norm", "trainable"])):
    name = property(lambda self: self.categorical_column.name + "_embedding")

    def dense(self, cache):
        def build(cache):
            col = self.categorical_column
            table = _tf.get_variable("embedding_weights", [col.num_buckets, self.dimension], _tf.float32,
                                     initializer=self.initializer, trainable=self.trainable)
            ids = col.ids(cache)
            rows = _tf.nn.embedding_lookup(table, _tf.maximum(ids, 0))               # [batch, n, d]
            return _combine(rows, ids, col.weights(cache), self.combiner)
        return cache.get(self, build)


def embedding_column(categorical_column, dimension, combiner="mean", initializer=None, ckpt_to_load_from=None,
                     tensor_name_in_ckpt=None, max_norm=None, trainable=True):
    """A categorical column as a trained dense embedding of `dimension` (combined over an example's ids)."""
    if dimension is None or dimension < 1:
        raise ValueError("Invalid dimension {}.".format(dimension))
    if combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError("combiner must be one of 'mean', 'sqrtn' or 'sum'; got {}".format(combiner))
    if initializer is not None and not callable(initializer):
        raise ValueError("initializer must be callable if specified. Embedding of column_name: {}".format(
            categorical_column.name))
    if ckpt_to_load_from is not None or tensor_name_in_ckpt is not None:
        raise NotImplementedError("tinyflow: embedding_column(ckpt_to_load_from=...) is not supported; use the "
                                  "Estimator's warm_start_from.")
    if initializer is None:
        initializer = _tf.truncated_normal_initializer(mean=0.0, stddev=1 / math.sqrt(dimension))
    return EmbeddingColumn(categorical_column, int(dimension), combiner, initializer, None, None, max_norm, trainable)


def shared_embedding_columns(categorical_columns, dimension, combiner="mean", initializer=None,
                             shared_embedding_collection_name=None, ckpt_to_load_from=None, tensor_name_in_ckpt=None,
                             max_norm=None, trainable=True):
    raise NotImplementedError("tinyflow: shared_embedding_columns is not supported; use one embedding_column each.")


def _check_columns(feature_columns):
    if isinstance(feature_columns, _Column):
        feature_columns = [feature_columns]
    feature_columns = list(feature_columns or [])
    if not feature_columns:
        raise ValueError("feature_columns must not be empty.")
    names = [c.name for c in feature_columns]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ValueError("Duplicate feature column name found for columns: %s" % dup)
    return sorted(feature_columns, key=lambda c: c.name)


def input_layer(features, feature_columns, weight_collections=None, trainable=True, cols_to_vars=None,
                cols_to_output_tensors=None):
    """The dense [batch, sum of dimensions] tensor of the columns (sorted by name), for a DNN."""
    with _tf.variable_scope(None, default_name="input_layer"):
        return _dense_columns(features, feature_columns, trainable, cols_to_vars, cols_to_output_tensors)


def _dense_columns(features, feature_columns, trainable=True, cols_to_vars=None, cols_to_output_tensors=None):
    """input_layer's tensor, each column's variables in a scope of its name under the current one
    (keras.layers.DenseFeatures calls it in its own scope)."""
    columns = _check_columns(feature_columns)
    for c in columns:
        if not isinstance(c, _DenseColumn):
            raise ValueError("Items of feature_columns must be a _DenseColumn. You can wrap a categorical column "
                             "with an embedding_column or indicator_column. Given: {}".format(c))
    cache = _Cache(features)
    outputs = []
    for c in columns:
        with _tf.variable_scope(None, default_name=c._var_scope_name):
            out = _tf.cast(c.dense(cache), _tf.float32)
            outputs.append(out)
            if cols_to_output_tensors is not None:
                cols_to_output_tensors[c] = out
            if cols_to_vars is not None:
                scope = _tf.get_variable_scope().name + "/"
                cols_to_vars[c] = [v for v in _tf.global_variables() if v.op.name.startswith(scope)]
    return _tf.concat(outputs, 1)


def linear_model(features, feature_columns, units=1, sparse_combiner="sum", weight_collections=None, trainable=True,
                 cols_to_vars=None):
    """sum over columns of column @ weights, plus bias_weights: [batch, units] (a linear model's logits)."""
    columns = _check_columns(feature_columns)
    if sparse_combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError("sparse_combiner must be one of 'mean', 'sqrtn' or 'sum'; got {}".format(sparse_combiner))
    cache = _Cache(features)
    parts = []
    with _tf.variable_scope(None, default_name="linear_model"):
        for c in columns:
            with _tf.variable_scope(None, default_name=c._var_scope_name):
                if isinstance(c, _CategoricalColumn):
                    w = _tf.get_variable("weights", [c.num_buckets, units], _tf.float32, _tf.zeros_initializer(),
                                         trainable=trainable)
                    ids = c.ids(cache)
                    rows = _tf.nn.embedding_lookup(w, _tf.maximum(ids, 0))            # [batch, n, units]
                    parts.append(_combine(rows, ids, c.weights(cache), sparse_combiner))
                else:
                    w = _tf.get_variable("weights", [c.dimension, units], _tf.float32, _tf.zeros_initializer(),
                                         trainable=trainable)
                    parts.append(_tf.matmul(_tf.cast(c.dense(cache), _tf.float32), w))
                if cols_to_vars is not None:
                    cols_to_vars[c] = [w]
        bias = _tf.get_variable("bias_weights", [units], _tf.float32, _tf.zeros_initializer(), trainable=trainable)
        if cols_to_vars is not None:
            cols_to_vars["bias"] = [bias]
        return _tf.nn.bias_add(_tf.add_n(parts), bias, name="weighted_sum")


def make_parse_example_spec(feature_columns):
    """{feature key: FixedLenFeature / VarLenFeature}, as TF's: what tf.parse_example needs to give
    the columns their raw features (a numeric column is fixed-length, a categorical one variable)."""
    from tinyflow.ops.parsing_ops import FixedLenFeature, VarLenFeature
    spec = {}
    for c in feature_columns:
        for key, dtype in _raw_keys(c):
            numeric = _numeric_of(c, key)
            if numeric is not None:
                spec[key] = FixedLenFeature(numeric.shape, numeric.dtype, numeric.default_value)
            else:
                spec[key] = VarLenFeature(dtype)
    return spec


def _numeric_of(column, key):
    """The NumericColumn of `key` that `column` reads (itself, or its bucketized source), or None."""
    while not isinstance(column, NumericColumn) and hasattr(column, "source_column"):
        column = column.source_column
    return column if isinstance(column, NumericColumn) and column.key == key else None


def _raw_keys(column):
    """(feature key, dtype) pairs a column reads."""
    if isinstance(column, (NumericColumn, SequenceNumericColumn)):
        return [(column.key, column.dtype)]
    if isinstance(column, (IdentityCategoricalColumn,)):
        return [(column.key, _tf.int64)]
    if isinstance(column, (VocabularyListCategoricalColumn, HashedCategoricalColumn)):
        return [(column.key, column.dtype)]
    if isinstance(column, CrossedColumn):
        return [kd for k in column.keys for kd in ([(k, _tf.int64)] if isinstance(k, str) else _raw_keys(k))]
    if isinstance(column, WeightedCategoricalColumn):
        return _raw_keys(column.categorical_column) + [(column.weight_feature_key, column.dtype)]
    for attr in ("source_column", "categorical_column"):
        if hasattr(column, attr):
            return _raw_keys(getattr(column, attr))
    return []


def string_encoders(feature_columns):
    """{feature key: host function numpy strings -> int64 ids} for the string columns among feature_columns."""
    out = {}

    def visit(c):
        if isinstance(c, (VocabularyListCategoricalColumn, HashedCategoricalColumn)) and c.dtype == _tf.string:
            out[c.key] = c.host_encode
        for attr in ("source_column", "categorical_column"):
            if hasattr(c, attr):
                visit(getattr(c, attr))
        for k in getattr(c, "keys", ()) if isinstance(c, CrossedColumn) else ():
            if not isinstance(k, str):
                visit(k)
    for c in feature_columns or ():
        visit(c)
    return out


def encode_strings(features, feature_columns):
    """A copy of a dict of numpy features with each string feature a column reads turned into int64 ids
    (tinyflow's stand-in for string tensors: call it on numpy data before it enters the graph)."""
    encoders = string_encoders(feature_columns)
    out = dict(features)
    for key, value in features.items():
        arr = np.asarray(value) if not isinstance(value, _tf.Tensor) else None
        if arr is not None and arr.dtype.kind in "USO":
            if key not in encoders:
                raise ValueError("Feature %r holds strings, which tinyflow cannot put in a tensor; no string "
                                 "categorical column reads it." % key)
            out[key] = encoders[key](arr)
    return out

# ---- sequence columns (tf.feature_column.sequence_*): features of one value per step -------------------
class SequenceNumericColumn(_Column, collections.namedtuple("SequenceNumericColumn", ["key", "shape", "default_value",
                                                                                       "dtype", "normalizer_fn"])):
    """Floats per step of a sequence (parsed as a VarLenFeature, as TF's)."""
    name = property(lambda self: self.key)


def sequence_numeric_column(key, shape=(1,), default_value=0., dtype=_tf.float32, normalizer_fn=None):
    """A sequence of `shape`-sized floats per example read from features[key]."""
    shape = (shape,) if isinstance(shape, int) else tuple(int(d) for d in shape)
    dtype = _tf.as_dtype(dtype)
    if not dtype.is_floating and not dtype.is_integer:
        raise ValueError("dtype must be convertible to float. dtype: %s, key: %s" % (dtype, key))
    if normalizer_fn is not None and not callable(normalizer_fn):
        raise TypeError("normalizer_fn must be a callable. Given: %s" % normalizer_fn)
    return SequenceNumericColumn(key, shape, default_value, dtype, normalizer_fn)


class SequenceCategoricalColumn(_CategoricalColumn, collections.namedtuple("SequenceCategoricalColumn",
                                                                           ["categorical_column"])):
    """A categorical column whose ids come one per step of a sequence."""
    name = property(lambda self: self.categorical_column.name)
    num_buckets = property(lambda self: self.categorical_column.num_buckets)

    def ids(self, cache):
        return self.categorical_column.ids(cache)


def sequence_categorical_column_with_identity(key, num_buckets, default_value=None):
    """categorical_column_with_identity, one id per step."""
    return SequenceCategoricalColumn(categorical_column_with_identity(key, num_buckets, default_value))


def sequence_categorical_column_with_hash_bucket(key, hash_bucket_size, dtype=_tf.string):
    """categorical_column_with_hash_bucket, one id per step."""
    return SequenceCategoricalColumn(categorical_column_with_hash_bucket(key, hash_bucket_size, dtype))


def sequence_categorical_column_with_vocabulary_list(key, vocabulary_list, dtype=None, default_value=-1,
                                                     num_oov_buckets=0):
    """categorical_column_with_vocabulary_list, one id per step."""
    return SequenceCategoricalColumn(categorical_column_with_vocabulary_list(key, vocabulary_list, dtype,
                                                                             default_value, num_oov_buckets))


def sequence_categorical_column_with_vocabulary_file(key, vocabulary_file, vocabulary_size=None, num_oov_buckets=0,
                                                     default_value=None, dtype=_tf.string):
    """categorical_column_with_vocabulary_file, one id per step."""
    return SequenceCategoricalColumn(categorical_column_with_vocabulary_file(
        key, vocabulary_file, vocabulary_size, num_oov_buckets, default_value, dtype))


def _steps_present(ids):
    """Per example the sequence length: the last step holding an id (>= 0), plus one."""
    from tinyflow.ops.core.math_ops import reduce_max
    steps = _tf.cast(_tf.range(1, _tf.shape(ids)[1] + 1), _tf.int64)
    return reduce_max(_tf.where_v2(_tf.greater_equal(ids, 0), steps * _tf.ones_like(ids),
                                       _tf.zeros_like(ids)), axis=1)


def _sequence_dense(column, cache):
    """(values [batch, steps, d], sequence length [batch]) of a sequence column, or of an embedding /
    indicator column over a sequence categorical column (per step, no combining: TF's
    get_sequence_dense_tensor). A numeric sequence's rows are full (dense features: every step)."""
    if isinstance(column, SequenceNumericColumn):
        x = _tf.cast(cache.raw(column.key), _tf.float32)
        n = int(np.prod(column.shape))
        values = _tf.reshape(x, [-1, x.shape.as_list()[1] // n, n]) if x.shape.ndims == 2 else x
        if column.normalizer_fn is not None:
            values = column.normalizer_fn(values)
        return values, _tf.cast(_tf.ones_like(values[:, 0, 0]), _tf.int64) * _tf.cast(_tf.shape(values)[1],
                                                                                        _tf.int64)
    inner = getattr(column, "categorical_column", None)
    if not isinstance(inner, SequenceCategoricalColumn):
        raise ValueError("In embedding_column: {}. categorical_column must be of type SequenceCategoricalColumn "
                         "to use SequenceFeatures. Suggested fix: Use one of sequence_categorical_column_with_*. "
                         "Given (type {}): {}".format(column.name, type(inner), inner))
    ids = inner.ids(cache)                                                        # [batch, steps]
    present = _tf.expand_dims(_tf.cast(_tf.greater_equal(ids, 0), _tf.float32), -1)
    if isinstance(column, IndicatorColumn):
        values = _tf.one_hot(ids, inner.num_buckets, dtype=_tf.float32)           # (-1: zeros)
    else:
        table = _tf.get_variable("embedding_weights", [inner.num_buckets, column.dimension], _tf.float32,
                                 initializer=column.initializer, trainable=column.trainable)
        values = _tf.nn.embedding_lookup(table, _tf.maximum(ids, 0)) * present
    return values, _steps_present(ids)


def sequence_input(features, feature_columns):
    """keras.experimental.SequenceFeatures' output: the columns' per-step values side by side [batch, steps,
    sum d] (columns sorted by name, each in a variable scope of its name), and the sequence lengths."""
    cache = _Cache(features)
    values, lengths = [], []
    for c in sorted(feature_columns, key=lambda c: c.name):
        with _tf.variable_scope(None, default_name=c._var_scope_name):
            v, n = _sequence_dense(c, cache)
        values.append(v)
        lengths.append(n)
    return _tf.concat(values, -1), lengths[0]


__all__ += ["sequence_numeric_column", "sequence_categorical_column_with_identity",
            "sequence_categorical_column_with_hash_bucket", "sequence_categorical_column_with_vocabulary_list",
            "sequence_categorical_column_with_vocabulary_file"]
