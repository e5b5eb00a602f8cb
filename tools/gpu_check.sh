#!/usr/bin/env bash
# The GPU checks, for a session whose task has a device machine (the `device` tool's run): the whole
# test suite (stopped with SIGINT after $TESTS_S seconds, so pytest still prints its summary), the
# benchmarks against hand-written JAX on the GPU, and the memory zoo (hlo_memory's model of XLA's GPU
# buffer assignment against XLA's own figure). Parts: `tests`, `bench`, `zoo` (default: all three).
# Everything it prints lands in $OUT (gpu_tests.log, bench.log, zoo.log). google-crc32c travels as a
# wheel in .whl/ (the image lacks it; pyfarmhash too); the image's python3 has jax with CUDA, optax,
# absl, protobuf, pytest.
#     run(command="bash tools/gpu_check.sh", carry=[".whl"], timeout_s=580)
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
PARTS=${*:-tests bench zoo}
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_PREALLOCATE=false
nvidia-smi -L
python3 -c "import jax, numpy; print('jax', jax.__version__, 'numpy', numpy.__version__, jax.devices())"
if [[ " $PARTS " == *" tests "* ]]; then
  T0=$SECONDS
  JAX_PLATFORMS=cuda timeout -s INT "${TESTS_S:-210}" python3 -m pytest -q -p no:cacheprovider -n 14 -rf tests \
      > "$OUT/gpu_tests.log" 2>&1; echo "gpu tests rc=$? in $((SECONDS - T0)) s"; tail -40 "$OUT/gpu_tests.log"
fi
if [[ " $PARTS " == *" bench "* ]]; then
  T0=$SECONDS
  {
    JAX_PLATFORMS=cuda python3 - <<'PY'
import time, jax
d = jax.devices()[0]
d.memory_stats(); t = time.perf_counter()
for _ in range(1000):
    d.memory_stats()
print("device.memory_stats(): %.1f us per call" % ((time.perf_counter() - t) * 1e3))
PY
    for b in session_overhead.py "train_step.py --steps 300" "train_step_deep.py --steps 200" "lstm.py --no-tf1 --reps 2"; do
      echo "== $b (cuda)"; JAX_PLATFORMS=cuda timeout 60 python3 benchmarks/$b
    done
    echo "== keras_fit (cuda)"; JAX_PLATFORMS=cuda timeout 45 python3 benchmarks/keras_fit.py
  } > "$OUT/bench.log" 2>&1; echo "benchmarks in $((SECONDS - T0)) s"; tail -100 "$OUT/bench.log"
fi
if [[ " $PARTS " == *" zoo "* ]]; then
  T0=$SECONDS
  { echo "== memory_zoo_gpu.sh (cuda)"; JAX_PLATFORMS=cuda timeout "${ZOO_S:-240}" sh benchmarks/memory_zoo_gpu.sh
  } > "$OUT/zoo.log" 2>&1; echo "zoo in $((SECONDS - T0)) s"; tail -40 "$OUT/zoo.log"
fi
