"""`gen warmup` is linear in the number of inputs, measured in lines of tritoncfg executed (a
count, not a time): the warmup checks once built the config's input index anew for each warmup
input, quadratic (10,000 inputs: 90 s)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

# Runs in the child: `gen warmup MODEL` with every line executed in tritoncfg's own functions
# counted (module bodies excluded: imports cost the same at every size).
_COUNT_LINES = """
import os, sys
import tritoncfg
from tritoncfg.cli.main import main

package = os.path.dirname(tritoncfg.__file__)
count = 0

def local(frame, event, arg):
    global count
    if event == "line":
        count += 1
    return local

def calls(frame, event, arg):
    code = frame.f_code
    return local if code.co_filename.startswith(package) and code.co_name != "<module>" else None

sys.argv = ["tritoncfg", "gen", "warmup", sys.argv[1]]
sys.settrace(calls)
try:
    main()
except SystemExit as done:
    status = done.code
sys.settrace(None)
print(f"LINES {count} STATUS {status}", file=sys.stderr)
"""


def _model(root: Path, inputs: int) -> Path:
    model = root / f"m{inputs}"
    (model / "1").mkdir(parents=True)
    (model / "1" / "model.py").write_text("# never imported\n")
    tensors = "".join(
        f'input {{ name: "INPUT_{i}" data_type: TYPE_FP32 dims: [ 4 ] }}\n' for i in range(inputs)
    )
    (model / "config.pbtxt").write_text(
        f'backend: "python"\nmax_batch_size: 8\n{tensors}'
        'output { name: "OUT" data_type: TYPE_FP32 dims: [ 4 ] }\n'
    )
    return model


def _lines(model: Path) -> int:
    done = subprocess.run(
        [sys.executable, "-c", _COUNT_LINES, str(model)], capture_output=True, text=True
    )
    found = re.search(r"LINES (\d+) STATUS (\S+)", done.stderr)
    assert found is not None and found.group(2) == "0", done.stderr[-2000:]
    assert "+model_warmup" in done.stdout.replace(" ", "")  # the samples were made and shown
    return int(found.group(1))


def test_gen_warmup_is_linear_in_the_inputs(tmp_path: Path) -> None:
    """For a count a + b*N the second difference L(4N) - 3 L(2N) + 2 L(N) is 0; a c*N^2 term
    adds 6 c N^2 (here about 4% of L(4N) before the fix, under 0.02% after)."""
    small, middle, large = (_lines(_model(tmp_path, n)) for n in (50, 100, 200))
    excess = large - 3 * middle + 2 * small
    assert abs(excess) < large * 0.005, (small, middle, large, excess)
