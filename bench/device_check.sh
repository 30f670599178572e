#!/usr/bin/env bash
# One-shot GPU check for the cuda backend, for a session that has a GPU machine.
#
# On the workstation, from the repository root (the shared models do not travel by themselves):
#     mkdir -p .device_hlo && cp ../shared/hlo/* .device_hlo/
#     (then call the device tool's `run` with carry [".device_hlo"] and the command)
#     bash bench/device_check.sh
# It installs nothing (the GPU image has numba, numba-cuda, numpy, scipy, networkx, pytest and
# jax), runs the GPU tests and the benchmark with --backend cuda, and writes to $OUT:
#     env.txt         GPU, driver, numba / numba-cuda / jax versions
#     tests.txt       pytest -q of tests/codegen/test_cuda_gpu.py (full-size models on the GPU)
#     bench.txt       the benchmark table (fused / unfused / numpy / jax.jit, copy bandwidth)
#     bench.json      the same rows as JSON
# Time budget: about 6-8 minutes (numba compiles each distinct kernel once, ~0.5 s each).
set -u
OUT=${OUT:-./device_out}
mkdir -p "$OUT"
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1
export WORKBENCH_HLO_DIR=${WORKBENCH_HLO_DIR:-$PWD/.device_hlo}
export WORKBENCH_CACHE_DIR=${WORKBENCH_CACHE_DIR:-/tmp/wb-kernels}
PY=${PY:-python3}
{
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1
  $PY -c "import numba, numba_cuda, numpy, scipy; print('numba', numba.__version__, \
'numba-cuda', numba_cuda.__version__, 'numpy', numpy.__version__, 'scipy', scipy.__version__)"
  $PY -c "from numba import cuda; d = cuda.get_current_device(); print(d.name, \
d.compute_capability)" 2>&1
  $PY -c "import jax; print('jax', jax.__version__, jax.devices())" 2>&1
} > "$OUT/env.txt" 2>&1
timeout 300 $PY -m pytest tests/codegen/test_cuda_gpu.py -q -p no:cacheprovider \
    > "$OUT/tests.txt" 2>&1
echo "tests exit status $?" >> "$OUT/tests.txt"
timeout 240 $PY bench/bench_codegen.py --backend cuda --repeat 20 --json "$OUT/bench.json" \
    > "$OUT/bench.txt" 2>&1
echo "bench exit status $?" >> "$OUT/bench.txt"
tail -3 "$OUT/tests.txt"; cat "$OUT/bench.txt"
