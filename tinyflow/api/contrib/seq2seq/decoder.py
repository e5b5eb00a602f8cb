"""tf.contrib.seq2seq's decoding loop: Helpers, BasicDecoder and dynamic_decode, as TF 1.15 has them.

dynamic_decode runs decoder.step in a tf.while_loop until every sequence is finished (or
`maximum_iterations`), under the variable scope "decoder" (so "decoder/gru_cell/...",
"decoder/dense/kernel" as in TF). TF collects the outputs in TensorArrays that grow; here:

- with a bound on the steps (a constant maximum_iterations, or a TrainingHelper's time dimension,
  static or known at run time) the outputs are written into [bound, batch, ...] buffers and cut to
  the steps run ([:time], a value-dependent shape: the fetch set runs as jitted segments,
  docs/dynamic_shapes.md); gradients flow (a bounded scan when the bound is static);
- without one (a GreedyEmbeddingHelper with a run-time maximum_iterations, or none) the outputs are
  loop variables that grow by one step per iteration: the loop runs from the host, its body jitted
  once per length (ops/control_flow_ops.py, "Loops that grow"); no gradient through it.
"""
import collections

from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import name_scope
from tinyflow.graph.nest import flatten, pack_as
from tinyflow.graph.shapes import TensorShape, as_shape
from tinyflow.ops import nn_ops, random_ops
from tinyflow.ops import variable_scope as vs
from tinyflow.ops.control_flow_ops import cond, while_loop
from tinyflow.ops.core import array_ops, indexing_ops, math_ops
from tinyflow.ops.core.base import constant_value_of, convert_to_tensor
from tinyflow.ops.functional_ops import get_item, set_item

__all__ = ["BasicDecoder", "BasicDecoderOutput", "CustomHelper", "Decoder", "GreedyEmbeddingHelper", "Helper",
           "InferenceHelper", "SampleEmbeddingHelper", "ScheduledEmbeddingTrainingHelper",
           "ScheduledOutputTrainingHelper", "TrainingHelper", "dynamic_decode"]


def map_structure(fn, *structures):
    """tf.nest.map_structure over tinyflow's nest (tuples, namedtuples, lists, dicts)."""
    return pack_as(structures[0], [fn(*leaves) for leaves in zip(*[flatten(s) for s in structures])])


def _batch_of(t):
    return t.shape[0].value if t.shape.ndims and t.shape[0].value is not None else array_ops.shape(t)[0]


# ---- helpers ---------------------------------------------------------------------------------------
class Helper:
    """The interface BasicDecoder samples and feeds through: initialize() -> (finished, inputs);
    sample(time, outputs, state) -> sample_ids; next_inputs(time, outputs, state, sample_ids) ->
    (finished, next_inputs, next_state)."""

    max_steps = None    # a bound on the decoding steps when the helper knows one: an int, or a scalar tensor

    @property
    def batch_size(self):
        raise NotImplementedError("batch_size")

    @property
    def sample_ids_shape(self):
        raise NotImplementedError("sample_ids_shape")

    @property
    def sample_ids_dtype(self):
        raise NotImplementedError("sample_ids_dtype")

    def initialize(self, name=None):
        raise NotImplementedError("initialize")

    def sample(self, time, outputs, state, name=None):
        raise NotImplementedError("sample")

    def next_inputs(self, time, outputs, state, sample_ids, name=None):
        raise NotImplementedError("next_inputs")


class CustomHelper(Helper):
    """A Helper from three functions: initialize_fn(), sample_fn(time, outputs, state),
    next_inputs_fn(time, outputs, state, sample_ids)."""

    def __init__(self, initialize_fn, sample_fn, next_inputs_fn, sample_ids_shape=None, sample_ids_dtype=None):
        self._initialize_fn, self._sample_fn, self._next_inputs_fn = initialize_fn, sample_fn, next_inputs_fn
        self._batch_size = None
        self._sample_ids_shape = as_shape(sample_ids_shape or [])
        self._sample_ids_dtype = dt.as_dtype(sample_ids_dtype or dt.int32)

    @property
    def batch_size(self):
        if self._batch_size is None:
            raise ValueError("batch_size accessed before initialize was called")
        return self._batch_size

    sample_ids_shape = property(lambda self: self._sample_ids_shape)
    sample_ids_dtype = property(lambda self: self._sample_ids_dtype)

    def initialize(self, name=None):
        with name_scope(name, "%sInitialize" % type(self).__name__):
            finished, next_inputs = self._initialize_fn()
            if self._batch_size is None:
                self._batch_size = _batch_of(convert_to_tensor(finished))
        return finished, next_inputs

    def sample(self, time, outputs, state, name=None):
        with name_scope(name, "%sSample" % type(self).__name__):
            return self._sample_fn(time=time, outputs=outputs, state=state)

    def next_inputs(self, time, outputs, state, sample_ids, name=None):
        with name_scope(name, "%sNextInputs" % type(self).__name__):
            return self._next_inputs_fn(time=time, outputs=outputs, state=state, sample_ids=sample_ids)


class TrainingHelper(Helper):
    """Teacher forcing: step t reads inputs[:, t] ([batch, time, ...], or time-major); a sequence is
    finished once t + 1 >= its sequence_length. Samples are argmax ids (int32)."""

    def __init__(self, inputs, sequence_length, time_major=False, name=None):
        with name_scope(name, "TrainingHelper", [inputs, sequence_length]):
            inputs = map_structure(lambda x: convert_to_tensor(x, name="inputs"), inputs)
            if not time_major:
                inputs = map_structure(lambda x: array_ops.transpose(x, [1, 0] + list(range(2, x.shape.ndims))),
                                       inputs)
            self._inputs = inputs
            self._sequence_length = convert_to_tensor(sequence_length, name="sequence_length")
            if self._sequence_length.shape.ndims != 1:
                raise ValueError("Expected sequence_length to be a vector, but received shape: %s"
                                 % self._sequence_length.shape)
            self._zero_inputs = map_structure(lambda x: array_ops.zeros_like(x[0]), inputs)
            self._batch_size = array_ops.size(self._sequence_length)
            first = flatten(inputs)[0]   # the time length bounds the steps: static, else at run time
            self.max_steps = first.shape[0].value if first.shape[0].value is not None else array_ops.shape(first)[0]

    batch_size = property(lambda self: self._batch_size)
    inputs = property(lambda self: self._inputs)
    sequence_length = property(lambda self: self._sequence_length)
    sample_ids_shape = property(lambda self: TensorShape([]))
    sample_ids_dtype = property(lambda self: dt.int32)

    def _read(self, time, finished):
        all_finished = math_ops.reduce_all(finished)
        return cond(all_finished, lambda: self._zero_inputs,
                    lambda: map_structure(lambda x: get_item(x, time), self._inputs))

    def initialize(self, name=None):
        with name_scope(name, "TrainingHelperInitialize"):
            finished = math_ops.equal(0, self._sequence_length)
            return finished, self._read(0, finished)

    def sample(self, time, outputs, state, name=None):
        with name_scope(name, "TrainingHelperSample"):
            return math_ops.cast(math_ops.argmax(outputs, axis=-1), dt.int32)

    def next_inputs(self, time, outputs, state, sample_ids=None, name=None, **unused):
        with name_scope(name, "TrainingHelperNextInputs"):
            next_time = time + 1
            finished = next_time >= self._sequence_length
            return finished, self._read(next_time, finished), state


def _bernoulli(probs, outputs, seed):
    """[batch] bools, each true with probability probs (a scalar or one per entry). The batch is read
    from the step's outputs: inside the loop's body their shape is static, a captured size is not."""
    return random_ops.random_uniform(array_ops.shape(outputs)[:1], seed=seed) < math_ops.cast(probs, dt.float32)


def _sampling_probability(p):
    p = convert_to_tensor(p, name="sampling_probability")
    if p.shape.ndims not in (0, 1):
        raise ValueError("sampling_probability must be either a scalar or a vector. saw shape: %s" % p.shape)
    return p


class ScheduledEmbeddingTrainingHelper(TrainingHelper):
    """Scheduled sampling (Bengio et al., 2015): with probability sampling_probability an entry's next
    input is the embedding of an id sampled from its outputs instead of the true next input
    (sample_ids: the sampled id, or -1 where the true input is read). TF gathers and scatters the
    two sets of rows; here one select per step (the same values: XLA keeps the shapes static)."""

    def __init__(self, inputs, sequence_length, embedding, sampling_probability, time_major=False, seed=None,
                 scheduling_seed=None, name=None):
        self._embedding_fn = embedding if callable(embedding) else (
            lambda ids: nn_ops.embedding_lookup(embedding, ids))
        self._sampling_probability = _sampling_probability(sampling_probability)
        self._seed, self._scheduling_seed = seed, scheduling_seed
        super().__init__(inputs, sequence_length, time_major=time_major, name=name)

    def sample(self, time, outputs, state, name=None):
        with name_scope(name, "ScheduledEmbeddingTrainingHelperSample"):
            select = _bernoulli(self._sampling_probability, outputs, self._scheduling_seed)
            sampled = array_ops.reshape(random_ops.multinomial(outputs, 1, seed=self._seed, output_dtype=dt.int32),
                                        [-1])
            return indexing_ops.where(select, sampled, -array_ops.ones_like(sampled))

    def next_inputs(self, time, outputs, state, sample_ids, name=None):
        with name_scope(name, "ScheduledEmbeddingTrainingHelperNextInputs"):
            finished, base_next_inputs, state = super().next_inputs(time, outputs, state, sample_ids)
            sampled = self._embedding_fn(math_ops.maximum(sample_ids, 0))
            next_inputs = cond(math_ops.reduce_all(finished), lambda: base_next_inputs,
                               lambda: indexing_ops.where(sample_ids > -1, sampled, base_next_inputs))
            return finished, next_inputs, state


class ScheduledOutputTrainingHelper(TrainingHelper):
    """Scheduled sampling on outputs: with probability sampling_probability an entry's next input is
    next_inputs_fn(its output) (the output itself by default), with auxiliary_inputs appended."""

    def __init__(self, inputs, sequence_length, sampling_probability, time_major=False, seed=None,
                 next_inputs_fn=None, auxiliary_inputs=None, name=None):
        self._sampling_probability = _sampling_probability(sampling_probability)
        self._seed, self._next_inputs_fn, self._auxiliary = seed, next_inputs_fn, None
        if auxiliary_inputs is not None:
            aux = convert_to_tensor(auxiliary_inputs, name="auxiliary_inputs")
            inputs = array_ops.concat([convert_to_tensor(inputs, name="inputs"), aux], -1)
            self._auxiliary = aux if time_major else array_ops.transpose(
                aux, [1, 0] + list(range(2, aux.shape.ndims)))
        super().__init__(inputs, sequence_length, time_major=time_major, name=name)

    def sample(self, time, outputs, state, name=None):
        with name_scope(name, "ScheduledOutputTrainingHelperSample"):
            return math_ops.cast(_bernoulli(self._sampling_probability, outputs, self._seed), dt.int32)

    def next_inputs(self, time, outputs, state, sample_ids, name=None):
        with name_scope(name, "ScheduledOutputTrainingHelperNextInputs"):
            finished, base_next_inputs, state = super().next_inputs(time, outputs, state, sample_ids)
            sample_ids = math_ops.cast(sample_ids, dt.bool_)

            def maybe_sample():
                sampled = outputs if self._next_inputs_fn is None else self._next_inputs_fn(outputs)
                if self._auxiliary is not None:
                    sampled = array_ops.concat([sampled, get_item(self._auxiliary, time + 1)], -1)
                return indexing_ops.where(sample_ids, sampled, base_next_inputs)
            no_samples = math_ops.logical_not(math_ops.reduce_any(sample_ids))
            next_inputs = cond(math_ops.logical_or(math_ops.reduce_all(finished), no_samples),
                               lambda: base_next_inputs, maybe_sample)
            return finished, next_inputs, state


class GreedyEmbeddingHelper(Helper):
    """Inference: each step's input is the embedding of the previous step's argmax; a sequence is
    finished when it emits end_token."""

    def __init__(self, embedding, start_tokens, end_token):
        self._embedding_fn = embedding if callable(embedding) else (
            lambda ids: nn_ops.embedding_lookup(embedding, ids))
        self._start_tokens = convert_to_tensor(start_tokens, dtype=dt.int32, name="start_tokens")
        self._end_token = convert_to_tensor(end_token, dtype=dt.int32, name="end_token")
        if self._start_tokens.shape.ndims != 1:
            raise ValueError("start_tokens must be a vector")
        if self._end_token.shape.ndims != 0:
            raise ValueError("end_token must be a scalar")
        self._batch_size = array_ops.size(self._start_tokens)
        self._start_inputs = self._embedding_fn(self._start_tokens)

    batch_size = property(lambda self: self._batch_size)
    sample_ids_shape = property(lambda self: TensorShape([]))
    sample_ids_dtype = property(lambda self: dt.int32)

    def initialize(self, name=None):
        return array_ops.tile([False], [self._batch_size]), self._start_inputs

    def sample(self, time, outputs, state, name=None):
        if outputs.shape.ndims != 2:
            raise ValueError("Expected outputs to be a single Tensor, got: %s" % outputs)
        return math_ops.cast(math_ops.argmax(outputs, axis=-1), dt.int32)

    def next_inputs(self, time, outputs, state, sample_ids, name=None):
        finished = math_ops.equal(sample_ids, self._end_token)
        next_inputs = cond(math_ops.reduce_all(finished), lambda: self._start_inputs,
                           lambda: self._embedding_fn(sample_ids))
        return finished, next_inputs, state


class SampleEmbeddingHelper(GreedyEmbeddingHelper):
    """GreedyEmbeddingHelper that samples each id from softmax(outputs / softmax_temperature)."""

    def __init__(self, embedding, start_tokens, end_token, softmax_temperature=None, seed=None):
        super().__init__(embedding, start_tokens, end_token)
        self._softmax_temperature, self._seed = softmax_temperature, seed

    def sample(self, time, outputs, state, name=None):
        if outputs.shape.ndims != 2:
            raise ValueError("Expected outputs to be a single Tensor, got: %s" % outputs)
        logits = outputs if self._softmax_temperature is None else outputs / self._softmax_temperature
        return array_ops.reshape(random_ops.multinomial(logits, 1, seed=self._seed, output_dtype=dt.int32), [-1])


class InferenceHelper(Helper):
    """Feeds sample_fn(outputs) back as the next inputs; finished when end_fn(sample_ids) is true."""

    def __init__(self, sample_fn, sample_shape, sample_dtype, start_inputs, end_fn, next_inputs_fn=None):
        self._sample_fn, self._end_fn, self._next_inputs_fn = sample_fn, end_fn, next_inputs_fn
        self._sample_shape, self._sample_dtype = as_shape(sample_shape), dt.as_dtype(sample_dtype)
        self._start_inputs = convert_to_tensor(start_inputs, name="start_inputs")
        self._batch_size = _batch_of(self._start_inputs)

    batch_size = property(lambda self: self._batch_size)
    sample_ids_shape = property(lambda self: self._sample_shape)
    sample_ids_dtype = property(lambda self: self._sample_dtype)

    def initialize(self, name=None):
        return array_ops.tile([False], [self._batch_size]), self._start_inputs

    def sample(self, time, outputs, state, name=None):
        return self._sample_fn(outputs)

    def next_inputs(self, time, outputs, state, sample_ids, name=None):
        finished = self._end_fn(sample_ids)
        next_inputs = sample_ids if self._next_inputs_fn is None else self._next_inputs_fn(sample_ids)
        return finished, next_inputs, state


# ---- decoders ----------------------------------------------------------------------------------------
class Decoder:
    """The interface dynamic_decode runs: batch_size, output_size, output_dtype, initialize(),
    step(time, inputs, state) -> (outputs, next_state, next_inputs, finished), finalize()."""

    tracks_own_finished = False
    max_steps = None

    def finalize(self, outputs, final_state, sequence_lengths):
        raise NotImplementedError("finalize")


class BasicDecoderOutput(collections.namedtuple("BasicDecoderOutput", ("rnn_output", "sample_id"))):
    """One step's (or, stacked, every step's) cell output and sampled id."""
    __slots__ = ()


class BasicDecoder(Decoder):
    """cell (then output_layer) each step, the helper choosing the samples and the next inputs."""

    def __init__(self, cell, helper, initial_state, output_layer=None):
        if not callable(cell):
            raise TypeError("cell must be an RNNCell, received: %s" % type(cell))
        if not isinstance(helper, Helper):
            raise TypeError("helper must be a Helper, received: %s" % type(helper))
        self._cell, self._helper, self._initial_state, self._output_layer = cell, helper, initial_state, output_layer

    batch_size = property(lambda self: self._helper.batch_size)
    max_steps = property(lambda self: self._helper.max_steps)

    def _rnn_output_size(self):
        size = self._cell.output_size
        if self._output_layer is None:
            return size
        return map_structure(lambda s: self._output_layer.compute_output_shape(
            TensorShape([None]).concatenate(as_shape(s)))[1:], size)

    @property
    def output_size(self):
        return BasicDecoderOutput(self._rnn_output_size(), self._helper.sample_ids_shape)

    @property
    def output_dtype(self):
        dtype = flatten(self._initial_state)[0].dtype
        return BasicDecoderOutput(map_structure(lambda _: dtype, self._rnn_output_size()),
                                  self._helper.sample_ids_dtype)

    def initialize(self, name=None):
        return self._helper.initialize() + (self._initial_state,)

    def step(self, time, inputs, state, name=None):
        with name_scope(name, "BasicDecoderStep"):
            cell_outputs, cell_state = self._cell(inputs, state)
            if self._output_layer is not None:
                cell_outputs = self._output_layer(cell_outputs)
            sample_ids = self._helper.sample(time=time, outputs=cell_outputs, state=cell_state)
            finished, next_inputs, next_state = self._helper.next_inputs(
                time=time, outputs=cell_outputs, state=cell_state, sample_ids=sample_ids)
        return BasicDecoderOutput(cell_outputs, sample_ids), next_state, next_inputs, finished


# ---- dynamic_decode --------------------------------------------------------------------------------
def _zeros(batch, size, dtype):
    return array_ops.zeros(array_ops.concat([[batch], as_shape(size).as_list()], 0) if not isinstance(batch, int)
                           else [batch] + as_shape(size).as_list(), dtype=dtype)


def dynamic_decode(decoder, output_time_major=False, impute_finished=False, maximum_iterations=None,
                   parallel_iterations=32, swap_memory=False, scope=None):
    """Runs decoder.step until every sequence is finished (or maximum_iterations steps). Returns
    (final_outputs, final_state, final_sequence_lengths), outputs [batch, time, ...] unless
    output_time_major. impute_finished: zeros out outputs and carries the state past each end."""
    if not isinstance(decoder, Decoder):
        raise TypeError("Expected decoder to be type Decoder, but saw: %s" % type(decoder))
    with vs.variable_scope(scope or "decoder"):
        if maximum_iterations is not None:
            maximum_iterations = convert_to_tensor(maximum_iterations, dtype=dt.int32, name="maximum_iterations")
            if maximum_iterations.shape.ndims != 0:
                raise ValueError("maximum_iterations must be a scalar")
        initial_finished, initial_inputs, initial_state = decoder.initialize()
        batch = _batch_of(initial_finished)
        zero_outputs = map_structure(lambda s, d: _zeros(batch, s, d), decoder.output_size, decoder.output_dtype)
        if maximum_iterations is not None:
            initial_finished = math_ops.logical_or(initial_finished, 0 >= maximum_iterations)
        bound = None if maximum_iterations is None else constant_value_of(maximum_iterations)
        bound = int(bound) if bound is not None else decoder.max_steps   # an int, a scalar tensor or None
        initial_lengths = array_ops.zeros_like(initial_finished, dtype=dt.int32)
        if bound is not None:   # buffers of [bound, batch, ...], cut to the steps run after the loop
            buffers = map_structure(lambda z: array_ops.zeros(
                array_ops.concat([array_ops.reshape(bound, [1]), array_ops.shape(z)], 0), dtype=z.dtype),
                zero_outputs)
        else:                   # outputs that grow by one step per iteration
            buffers = map_structure(lambda z: array_ops.zeros_like(array_ops.expand_dims(z, 0)[:0]), zero_outputs)

        def body(time, outputs, state, inputs, finished, lengths):
            next_outputs, decoder_state, next_inputs, decoder_finished = decoder.step(time, inputs, state)
            next_finished = decoder_finished if decoder.tracks_own_finished else math_ops.logical_or(
                decoder_finished, finished)
            if maximum_iterations is not None:
                next_finished = math_ops.logical_or(next_finished, time + 1 >= maximum_iterations)
            next_lengths = indexing_ops.where(math_ops.logical_not(finished),
                                              array_ops.fill(array_ops.shape(lengths), time + 1), lengths)
            emit = next_outputs
            if impute_finished:
                emit = map_structure(lambda out, zero: indexing_ops.where(finished, zero, out), next_outputs,
                                     zero_outputs)

                def copy_state(new, cur):
                    new.set_shape(cur.shape)
                    return new if new.shape.ndims == 0 else indexing_ops.where(finished, cur, new)
                decoder_state = map_structure(copy_state, decoder_state, state)
            if bound is not None:
                outputs = map_structure(lambda buf, out: set_item(buf, time, out), outputs, emit)
            else:
                outputs = map_structure(lambda buf, out: array_ops.concat([buf, array_ops.expand_dims(out, 0)], 0),
                                        outputs, emit)
            return time + 1, outputs, decoder_state, next_inputs, next_finished, next_lengths

        loop_vars = [convert_to_tensor(0, dtype=dt.int32, name="initial_time"), buffers, initial_state, initial_inputs,
                     initial_finished, initial_lengths]
        invariants = None
        if bound is None:
            invariants = [TensorShape([]), map_structure(lambda b: TensorShape([None]).concatenate(b.shape[1:]),
                                                         buffers)] + [map_structure(lambda t: t.shape, v)
                                                                      for v in loop_vars[2:]]
        time, outputs, final_state, _, _, lengths = while_loop(
            lambda time, o, s, i, finished, lengths: math_ops.logical_not(math_ops.reduce_all(finished)), body,
            loop_vars, shape_invariants=invariants, parallel_iterations=parallel_iterations,
            maximum_iterations=bound, return_same_structure=True)
        if bound is not None:
            outputs = map_structure(lambda buf: buf[:time], outputs)
        if hasattr(decoder, "finalize") and type(decoder).finalize is not Decoder.finalize:
            outputs, final_state = decoder.finalize(outputs, final_state, lengths)
        if not output_time_major:
            outputs = map_structure(lambda x: array_ops.transpose(x, [1, 0] + list(range(2, x.shape.ndims))),
                                    outputs)
    return outputs, final_state, lengths
