#!/usr/bin/env bash
# The GPU checks, for a session whose task has a device machine (the `device` tool's run): the whole
# test suite (stopped with SIGINT after 210 s, so pytest still prints its summary) and the benchmarks
# against hand-written JAX on the GPU. Everything it
# prints lands in $OUT (gpu_tests.log, bench.log). google-crc32c travels as a wheel
# in .whl/ (the image lacks it; pyfarmhash too); the image's python3 has jax with CUDA, optax, absl, protobuf, pytest.
#     run(command="bash tools/gpu_check.sh", carry=[".whl"], timeout_s=580)
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_PREALLOCATE=false
nvidia-smi -L
python3 -c "import jax, numpy; print('jax', jax.__version__, 'numpy', numpy.__version__, jax.devices())"
T0=$SECONDS
JAX_PLATFORMS=cuda timeout -s INT 210 python3 -m pytest -q -p no:cacheprovider -n 12 -rf tests \
    > "$OUT/gpu_tests.log" 2>&1; echo "gpu tests rc=$? in $((SECONDS - T0)) s"; tail -4 "$OUT/gpu_tests.log"
T0=$SECONDS
{
  for b in session_overhead.py "train_step.py --steps 300" "train_step_deep.py --steps 200" "lstm.py --no-tf1 --reps 2"; do
    echo "== $b (cuda)"; JAX_PLATFORMS=cuda timeout 60 python3 benchmarks/$b
  done
  echo "== memory_zoo (cuda)"; JAX_PLATFORMS=cuda timeout 80 python3 benchmarks/memory_zoo.py --quick --platforms cuda
  echo "== keras_fit (cuda)"; JAX_PLATFORMS=cuda timeout 45 python3 benchmarks/keras_fit.py
} > "$OUT/bench.log" 2>&1; echo "benchmarks in $((SECONDS - T0)) s"; cat "$OUT/bench.log" | tail -120
