#!/usr/bin/env bash
# The GPU check (docs/probe.md, "GPU check"): from the root of a copy of the working tree, on a
# machine with a GPU and PyTorch with CUDA, in under five minutes: installs what the project
# lacks there (never torch), runs the GPU tests, probes a TorchScript model on cuda:0 at every
# batch size and prints one summary. On a machine without CUDA it runs the same steps on the CPU
# and says the GPU part was skipped. PYTHON=... picks the interpreter (default: python3).
set -euo pipefail
cd "$(dirname "$0")/.."
python="${PYTHON:-$(command -v python3 || command -v python)}"
exec timeout 290 "$python" tools/gpu_check.py "$@"
