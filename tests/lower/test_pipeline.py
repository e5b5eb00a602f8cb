"""The compile pipeline (lower/pipeline.py): its stages hand their facts on, the render stage is a
parameter whose source is what runs, and the generated source reads like the graph in tracebacks."""
import gc
import linecache
import traceback

import numpy as np
import pytest

import tinyflow as tf
from tinyflow.lower import jax_backend, pipeline, render


def test_the_render_stage_is_replaceable_and_its_source_is_what_runs():
    x = tf.placeholder(tf.float32, [3], name="x")
    y = x * 2.0
    seen = []

    def times_three(prog):           # the standard render, with the constant changed
        source, lines = render.render(prog)
        seen.append(prog)
        return source.replace("np.array(2.0, 'float32')", "np.array(3.0, 'float32')"), lines

    xv = np.arange(3, dtype=np.float32)
    low = pipeline.compile_fetch_set([y], [x], render=times_three)
    assert seen == [low.program] and "np.array(3.0, 'float32')" in low.source
    np.testing.assert_array_equal(low.call((), (), (xv,))[1][0], xv * 3)
    np.testing.assert_array_equal(pipeline.compile_fetch_set([y], [x]).call((), (), (xv,))[1][0], xv * 2)


def test_build_takes_the_rendered_source():
    x = tf.placeholder(tf.float32, [2], name="x")
    y = tf.negative(x, name="y")
    prog = pipeline.compile_fetch_set([y], [x]).program
    source, lines = render.render(prog)
    low = jax_backend.build(prog, source.replace("return (), (y, )", "return (), (x, )"), lines)
    assert low.call((), (), (np.ones(2, np.float32),))[1][0].tolist() == [1.0, 1.0]
    assert low.waits and not low.donate


def test_a_traceback_through_generated_code_shows_the_generated_line():
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    w = tf.constant(np.ones((3, 2), np.float32), name="w")
    y = tf.matmul(x, w, name="MatMul")
    low = pipeline.compile_fetch_set([y], [x])
    filename = low.fn.__code__.co_filename
    assert filename.startswith("<tinyflow ")
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        low.fn((), (), (np.ones((2, 4), np.float32),), None)    # 4 columns: the rule fails while running
    text = "".join(traceback.format_exception(info.value))
    assert 'File "%s", line 4, in fetch_set' % filename in text
    assert "    MatMul = op.MatMul(x, w, transpose_a=False, transpose_b=False)  # f32[?,2]  MatMul\n" in text
    del low, info
    gc.collect()
    assert filename not in linecache.cache       # dropped with its function


def test_the_lowering_example_replaces_the_render_stage():
    import importlib.util
    import os
    path = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "passes", "lowering_example.py")
    spec = importlib.util.spec_from_file_location("lowering_example", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    source, y = example.main()     # the Lowered's own source: the one that was jitted and run
    assert "MatMul = op.MatMul(x, w, transpose_a=False, transpose_b=False)  # f32[8,3]  MatMul  flops=192" in source
    assert y == 8 * 4 * 3 * 0.5
