"""tf.contrib.legacy_seq2seq: TF 1.15's static (list-of-steps) sequence-to-sequence models.

Each function is TF's, step for step, so the variables have TF's names and shapes
("embedding_attention_seq2seq/rnn/embedding_wrapper/gru_cell/gates/kernel",
".../attention_decoder/AttnW_0", ...) and a checkpoint TF wrote restores into them. Inputs are
Python lists of [batch, ...] tensors, one per time step; a `feed_previous` that is a bool tensor
builds both decoders (sharing their variables) and picks one with tf.cond, as TF does.
"""
import copy

from tinyflow.api.contrib.rnn import EmbeddingWrapper, Linear, OutputProjectionWrapper
from tinyflow.api.rnn import static_rnn
from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import name_scope
from tinyflow.graph.nest import flatten, pack_as
from tinyflow.ops import nn_ops
from tinyflow.ops import variable_scope as vs
from tinyflow.ops.control_flow_ops import cond
from tinyflow.ops.conv_ops import conv2d
from tinyflow.ops.core import array_ops, math_ops
from tinyflow.ops.core.base import convert_to_tensor

__all__ = ["attention_decoder", "basic_rnn_seq2seq", "embedding_attention_decoder", "embedding_attention_seq2seq",
           "embedding_rnn_decoder", "embedding_rnn_seq2seq", "embedding_tied_rnn_seq2seq", "model_with_buckets",
           "one2many_rnn_seq2seq", "rnn_decoder", "sequence_loss", "sequence_loss_by_example", "tied_rnn_seq2seq"]


def _extract_argmax_and_embed(embedding, output_projection=None, update_embedding=True):
    """loop_function: the embedding of the previous output's argmax (after the output projection)."""
    def loop_function(prev, _):
        if output_projection is not None:
            prev = nn_ops.xw_plus_b(prev, output_projection[0], output_projection[1])
        emb_prev = nn_ops.embedding_lookup(embedding, math_ops.argmax(prev, 1))
        return emb_prev if update_embedding else array_ops.stop_gradient(emb_prev)
    return loop_function


def rnn_decoder(decoder_inputs, initial_state, cell, loop_function=None, scope=None):
    """The cell over decoder_inputs from initial_state; with loop_function, step i > 0 takes
    loop_function(previous output, i) as its input. Returns (outputs, final state)."""
    with vs.variable_scope(scope or "rnn_decoder"):
        state, outputs, prev = initial_state, [], None
        for i, inp in enumerate(decoder_inputs):
            if loop_function is not None and prev is not None:
                with vs.variable_scope("loop_function", reuse=True):
                    inp = loop_function(prev, i)
            if i > 0:
                vs.get_variable_scope().reuse_variables()
            output, state = cell(inp, state)
            outputs.append(output)
            if loop_function is not None:
                prev = output
    return outputs, state


def basic_rnn_seq2seq(encoder_inputs, decoder_inputs, cell, dtype=dt.float32, scope=None):
    """An encoder (a copy of `cell`) whose final state starts the decoder."""
    with vs.variable_scope(scope or "basic_rnn_seq2seq"):
        _, enc_state = static_rnn(copy.deepcopy(cell), encoder_inputs, dtype=dtype)
        return rnn_decoder(decoder_inputs, enc_state, cell)


def tied_rnn_seq2seq(encoder_inputs, decoder_inputs, cell, loop_function=None, dtype=dt.float32, scope=None):
    """Encoder and decoder share one cell and its variables."""
    with vs.variable_scope("combined_tied_rnn_seq2seq"):
        scope = scope or "tied_rnn_seq2seq"
        _, enc_state = static_rnn(cell, encoder_inputs, dtype=dtype, scope=scope)
        vs.get_variable_scope().reuse_variables()
        return rnn_decoder(decoder_inputs, enc_state, cell, loop_function=loop_function, scope=scope)


def _check_projection(output_projection, num_symbols, dtype):
    if output_projection is not None:
        convert_to_tensor(output_projection[0], dtype=dtype).shape.assert_is_compatible_with([None, num_symbols])
        convert_to_tensor(output_projection[1], dtype=dtype).shape.assert_is_compatible_with([num_symbols])


def embedding_rnn_decoder(decoder_inputs, initial_state, cell, num_symbols, embedding_size, output_projection=None,
                          feed_previous=False, update_embedding_for_previous=True, scope=None):
    """rnn_decoder over the embeddings ("embedding" [num_symbols, embedding_size]) of int inputs;
    feed_previous=True feeds back the embedding of each output's argmax."""
    with vs.variable_scope(scope or "embedding_rnn_decoder") as scope:
        _check_projection(output_projection, num_symbols, scope.dtype)
        embedding = vs.get_variable("embedding", [num_symbols, embedding_size])
        loop_function = _extract_argmax_and_embed(embedding, output_projection, update_embedding_for_previous) \
            if feed_previous else None
        emb_inp = [nn_ops.embedding_lookup(embedding, i) for i in decoder_inputs]
        return rnn_decoder(emb_inp, initial_state, cell, loop_function=loop_function)


def _both_decoders(feed_previous, decoder, n_outputs, structure):
    """A bool-tensor feed_previous: both decoders built (the False one reusing the True one's
    variables) and tf.cond choosing; returns (outputs, state packed like `structure`)."""
    def branch(flag):
        with vs.variable_scope(vs.get_variable_scope(), reuse=None if flag else True):
            outputs, state = decoder(flag)
            return list(outputs) + flatten(state)
    outputs_and_state = cond(feed_previous, lambda: branch(True), lambda: branch(False))
    state_list = list(outputs_and_state[n_outputs:])
    state = pack_as(structure, state_list) if isinstance(structure, (tuple, list)) else state_list[0]
    return list(outputs_and_state[:n_outputs]), state


def embedding_rnn_seq2seq(encoder_inputs, decoder_inputs, cell, num_encoder_symbols, num_decoder_symbols,
                          embedding_size, output_projection=None, feed_previous=False, dtype=None, scope=None):
    """An embedding encoder (EmbeddingWrapper around a copy of `cell`) and embedding_rnn_decoder;
    without output_projection the decoder's cell is wrapped to emit num_decoder_symbols logits."""
    with vs.variable_scope(scope or "embedding_rnn_seq2seq") as scope:
        if dtype is not None:
            scope.set_dtype(dtype)
        else:
            dtype = scope.dtype
        encoder_cell = EmbeddingWrapper(copy.deepcopy(cell), embedding_classes=num_encoder_symbols,
                                        embedding_size=embedding_size)
        _, encoder_state = static_rnn(encoder_cell, encoder_inputs, dtype=dtype)
        if output_projection is None:
            cell = OutputProjectionWrapper(cell, num_decoder_symbols)
        if isinstance(feed_previous, bool):
            return embedding_rnn_decoder(decoder_inputs, encoder_state, cell, num_decoder_symbols, embedding_size,
                                         output_projection=output_projection, feed_previous=feed_previous)
        return _both_decoders(feed_previous, lambda flag: embedding_rnn_decoder(
            decoder_inputs, encoder_state, cell, num_decoder_symbols, embedding_size,
            output_projection=output_projection, feed_previous=flag, update_embedding_for_previous=False),
            len(decoder_inputs), encoder_state)


def embedding_tied_rnn_seq2seq(encoder_inputs, decoder_inputs, cell, num_symbols, embedding_size,
                               num_decoder_symbols=None, output_projection=None, feed_previous=False, dtype=None,
                               scope=None):
    """tied_rnn_seq2seq over the embeddings of one shared "embedding" table."""
    with vs.variable_scope(scope or "embedding_tied_rnn_seq2seq", dtype=dtype) as scope:
        dtype = scope.dtype
        _check_projection(output_projection, num_symbols, dtype)
        embedding = vs.get_variable("embedding", [num_symbols, embedding_size], dtype=dtype)
        emb_encoder_inputs = [nn_ops.embedding_lookup(embedding, x) for x in encoder_inputs]
        emb_decoder_inputs = [nn_ops.embedding_lookup(embedding, x) for x in decoder_inputs]
        if output_projection is None:
            cell = OutputProjectionWrapper(cell, num_decoder_symbols or num_symbols)

        def decoder(flag, update=True):
            loop_function = _extract_argmax_and_embed(embedding, output_projection, update) if flag else None
            return tied_rnn_seq2seq(emb_encoder_inputs, emb_decoder_inputs, cell, loop_function=loop_function,
                                    dtype=dtype)
        if isinstance(feed_previous, bool):
            return decoder(feed_previous)
        batch = encoder_inputs[0].shape[0].value
        zero_state = cell.zero_state(batch if batch is not None else array_ops.shape(encoder_inputs[0])[0], dtype)
        return _both_decoders(feed_previous, lambda flag: decoder(flag, False), len(decoder_inputs), zero_state)


def attention_decoder(decoder_inputs, initial_state, attention_states, cell, output_size=None, num_heads=1,
                      loop_function=None, dtype=None, scope=None, initial_state_attention=False):
    """rnn_decoder with Bahdanau-style attention over attention_states [batch, length, size]: each
    step's input is Linear([input] + attention reads) and its output Linear([cell output] + reads)
    ("AttnOutputProjection"); `num_heads` reads, each with its own AttnW_i, AttnV_i, Attention_i."""
    if not decoder_inputs:
        raise ValueError("Must provide at least 1 input to attention decoder.")
    if num_heads < 1:
        raise ValueError("With less than 1 heads, use a non-attention decoder.")
    if attention_states.shape[2].value is None:
        raise ValueError("Shape[2] of attention_states must be known: %s" % attention_states.shape)
    if output_size is None:
        output_size = cell.output_size
    with vs.variable_scope(scope or "attention_decoder", dtype=dtype) as scope:
        dtype = scope.dtype
        batch_size = array_ops.shape(decoder_inputs[0])[0]
        attn_length = attention_states.shape[1].value
        if attn_length is None:
            attn_length = array_ops.shape(attention_states)[1]
        attn_size = attention_states.shape[2].value
        hidden = array_ops.reshape(attention_states, [-1, attn_length, 1, attn_size])
        hidden_features, v = [], []
        for a in range(num_heads):
            k = vs.get_variable("AttnW_%d" % a, [1, 1, attn_size, attn_size], dtype=dtype)
            hidden_features.append(conv2d(hidden, k, [1, 1, 1, 1], "SAME"))
            v.append(vs.get_variable("AttnV_%d" % a, [attn_size], dtype=dtype))

        def attention(query):
            """The num_heads attention reads ([batch, attn_size] each) for `query` (a state, flattened)."""
            if isinstance(query, (tuple, list)):
                query = array_ops.concat(flatten(query), 1)
            ds = []
            for a in range(num_heads):
                with vs.variable_scope("Attention_%d" % a):
                    y = Linear(query, attn_size, True)(query)
                    y = math_ops.cast(array_ops.reshape(y, [-1, 1, 1, attn_size]), dtype)
                    s = math_ops.reduce_sum(v[a] * math_ops.tanh(hidden_features[a] + y), [2, 3])
                    weights = math_ops.cast(nn_ops.softmax(math_ops.cast(s, dt.float32)), dtype)
                    d = math_ops.reduce_sum(array_ops.reshape(weights, [-1, attn_length, 1, 1]) * hidden, [1, 2])
                    ds.append(array_ops.reshape(d, [-1, attn_size]))
            return ds

        state, outputs, prev = initial_state, [], None
        attns = [array_ops.zeros(array_ops.stack([batch_size, attn_size]), dtype=dtype) for _ in range(num_heads)]
        for a in attns:
            a.set_shape([None, attn_size])
        if initial_state_attention:
            attns = attention(initial_state)
        for i, inp in enumerate(decoder_inputs):
            if i > 0:
                vs.get_variable_scope().reuse_variables()
            if loop_function is not None and prev is not None:
                with vs.variable_scope("loop_function", reuse=True):
                    inp = loop_function(prev, i)
            input_size = inp.shape.with_rank(2)[1]
            if input_size.value is None:
                raise ValueError("Could not infer input size from input: %s" % inp.name)
            inputs = [math_ops.cast(e, dtype) for e in [inp] + attns]
            cell_output, state = cell(Linear(inputs, input_size.value, True)(inputs), state)
            if i == 0 and initial_state_attention:
                with vs.variable_scope(vs.get_variable_scope(), reuse=True):
                    attns = attention(state)
            else:
                attns = attention(state)
            with vs.variable_scope("AttnOutputProjection"):
                inputs = [math_ops.cast(cell_output, dtype)] + attns
                output = Linear(inputs, output_size, True)(inputs)
            if loop_function is not None:
                prev = output
            outputs.append(output)
    return outputs, state


def embedding_attention_decoder(decoder_inputs, initial_state, attention_states, cell, num_symbols, embedding_size,
                                num_heads=1, output_size=None, output_projection=None, feed_previous=False,
                                update_embedding_for_previous=True, dtype=None, scope=None,
                                initial_state_attention=False):
    """attention_decoder over the embeddings of int decoder inputs."""
    if output_size is None:
        output_size = cell.output_size
    if output_projection is not None:
        convert_to_tensor(output_projection[1], dtype=dtype).shape.assert_is_compatible_with([num_symbols])
    with vs.variable_scope(scope or "embedding_attention_decoder", dtype=dtype):
        embedding = vs.get_variable("embedding", [num_symbols, embedding_size])
        loop_function = _extract_argmax_and_embed(embedding, output_projection, update_embedding_for_previous) \
            if feed_previous else None
        emb_inp = [nn_ops.embedding_lookup(embedding, i) for i in decoder_inputs]
        return attention_decoder(emb_inp, initial_state, attention_states, cell, output_size=output_size,
                                 num_heads=num_heads, loop_function=loop_function,
                                 initial_state_attention=initial_state_attention)


def embedding_attention_seq2seq(encoder_inputs, decoder_inputs, cell, num_encoder_symbols, num_decoder_symbols,
                                embedding_size, num_heads=1, output_projection=None, feed_previous=False, dtype=None,
                                scope=None, initial_state_attention=False):
    """The attention model of TF's translate tutorial: an embedding encoder whose outputs are the
    attention states of an embedding_attention_decoder."""
    with vs.variable_scope(scope or "embedding_attention_seq2seq", dtype=dtype) as scope:
        dtype = scope.dtype
        encoder_cell = EmbeddingWrapper(copy.deepcopy(cell), embedding_classes=num_encoder_symbols,
                                        embedding_size=embedding_size)
        encoder_outputs, encoder_state = static_rnn(encoder_cell, encoder_inputs, dtype=dtype)
        top_states = [array_ops.reshape(e, [-1, 1, cell.output_size]) for e in encoder_outputs]
        attention_states = array_ops.concat(top_states, 1)
        output_size = None
        if output_projection is None:
            cell = OutputProjectionWrapper(cell, num_decoder_symbols)
            output_size = num_decoder_symbols

        def decoder(flag, update=True):
            return embedding_attention_decoder(
                decoder_inputs, encoder_state, attention_states, cell, num_decoder_symbols, embedding_size,
                num_heads=num_heads, output_size=output_size, output_projection=output_projection,
                feed_previous=flag, update_embedding_for_previous=update,
                initial_state_attention=initial_state_attention)
        if isinstance(feed_previous, bool):
            return decoder(feed_previous)
        return _both_decoders(feed_previous, lambda flag: decoder(flag, False), len(decoder_inputs), encoder_state)


def one2many_rnn_seq2seq(encoder_inputs, decoder_inputs_dict, enc_cell, dec_cells_dict, num_encoder_symbols,
                         num_decoder_symbols_dict, embedding_size, feed_previous=False, dtype=None, scope=None):
    """One embedding encoder, one embedding_rnn_decoder per key of decoder_inputs_dict."""
    if set(dec_cells_dict) != set(decoder_inputs_dict):
        raise ValueError("keys of dec_cells_dict != keys of decodre_inputs_dict")
    outputs_dict, state_dict = {}, {}
    with vs.variable_scope(scope or "one2many_rnn_seq2seq", dtype=dtype) as scope:
        dtype = scope.dtype
        enc_cell = EmbeddingWrapper(enc_cell, embedding_classes=num_encoder_symbols, embedding_size=embedding_size)
        _, encoder_state = static_rnn(enc_cell, encoder_inputs, dtype=dtype)
        for name, decoder_inputs in decoder_inputs_dict.items():
            with vs.variable_scope("one2many_decoder_" + str(name)):
                dec_cell = OutputProjectionWrapper(dec_cells_dict[name], num_decoder_symbols_dict[name])

                def decoder(flag, d=decoder_inputs, c=dec_cell, n=num_decoder_symbols_dict[name]):
                    return embedding_rnn_decoder(d, encoder_state, c, n, embedding_size, feed_previous=flag)
                if isinstance(feed_previous, bool):
                    outputs, state = decoder(feed_previous)
                else:
                    outputs, state = _both_decoders(feed_previous, decoder, len(decoder_inputs), encoder_state)
            outputs_dict[name], state_dict[name] = outputs, state
    return outputs_dict, state_dict


def sequence_loss_by_example(logits, targets, weights, average_across_timesteps=True, softmax_loss_function=None,
                             name=None):
    """Per-example weighted cross entropy summed over the steps ([batch]); divided by the summed
    weights (+1e-12) when average_across_timesteps."""
    if len(targets) != len(logits) or len(weights) != len(logits):
        raise ValueError("Lengths of logits, weights, and targets must be the same %d, %d, %d."
                         % (len(logits), len(weights), len(targets)))
    with name_scope(name, "sequence_loss_by_example", list(logits) + list(targets) + list(weights)):
        log_perp_list = []
        for logit, target, weight in zip(logits, targets, weights):
            if softmax_loss_function is None:
                crossent = nn_ops.sparse_softmax_cross_entropy_with_logits(
                    labels=array_ops.reshape(target, [-1]), logits=logit)
            else:
                crossent = softmax_loss_function(labels=target, logits=logit)
            log_perp_list.append(crossent * weight)
        log_perps = math_ops.add_n(log_perp_list)
        if average_across_timesteps:
            log_perps /= math_ops.add_n(weights) + 1e-12   # 1e-12: all-zero weights
    return log_perps


def sequence_loss(logits, targets, weights, average_across_timesteps=True, average_across_batch=True,
                  softmax_loss_function=None, name=None):
    """The sum over the batch of sequence_loss_by_example, divided by the batch size by default."""
    with name_scope(name, "sequence_loss", list(logits) + list(targets) + list(weights)):
        cost = math_ops.reduce_sum(sequence_loss_by_example(
            logits, targets, weights, average_across_timesteps=average_across_timesteps,
            softmax_loss_function=softmax_loss_function))
        if average_across_batch:
            return cost / math_ops.cast(array_ops.shape(targets[0])[0], cost.dtype)
        return cost


def model_with_buckets(encoder_inputs, decoder_inputs, targets, weights, buckets, seq2seq, softmax_loss_function=None,
                       per_example_loss=False, name=None):
    """One seq2seq model per bucket (encoder length, decoder length) over the first steps of the
    inputs, every bucket sharing the first one's variables. Returns (outputs, losses) per bucket."""
    if len(encoder_inputs) < buckets[-1][0]:
        raise ValueError("Length of encoder_inputs (%d) must be at least that of last bucket (%d)."
                         % (len(encoder_inputs), buckets[-1][0]))
    if len(targets) < buckets[-1][1]:
        raise ValueError("Length of targets (%d) must be at least that of last bucket (%d)."
                         % (len(targets), buckets[-1][1]))
    if len(weights) < buckets[-1][1]:
        raise ValueError("Length of weights (%d) must be at least that of last bucket (%d)."
                         % (len(weights), buckets[-1][1]))
    losses, outputs = [], []
    with name_scope(name, "model_with_buckets", list(encoder_inputs) + list(decoder_inputs)):
        for j, bucket in enumerate(buckets):
            with vs.variable_scope(vs.get_variable_scope(), reuse=True if j > 0 else None):
                bucket_outputs, _ = seq2seq(encoder_inputs[:bucket[0]], decoder_inputs[:bucket[1]])
                outputs.append(bucket_outputs)
                loss = sequence_loss_by_example if per_example_loss else sequence_loss
                losses.append(loss(outputs[-1], targets[:bucket[1]], weights[:bucket[1]],
                                   softmax_loss_function=softmax_loss_function))
    return outputs, losses
