"""Test support for the PyTorch runner: real TorchScript models (`torch.jit.script` / `trace`) in
real repositories on disk. Import it as `from probe.torchkit import ...` after
`pytest.importorskip("torch")`; `tools/gpu_check.sh` builds its model with it too.

- `healthy`: y = 2x, x [N, 4] FP32, named INPUT__0 / OUTPUT__0 (Triton's <name>__<index>);
- `past_four`: the same, times a table of 4 rows indexed by position in the batch, so batch 5
  and above fail inside the model (index out of bounds), batch 1-4 run;
- `two_types`: traced forward(ids INT64 [N, 3], scale FP32 [N, 3]) -> (ids * scale, ids + 1);
  the config lists `scale` before `ids`, so only binding by forward()'s argument names (not
  the config's order) feeds each input the right tensor.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

# every batch size of max_batch_size 8 is in the plan, whichever default the plan has
EVERY_BATCH = "dynamic_batching { preferred_batch_size: [ 2, 3, 4, 5, 6, 7 ] }"

INDEXED_CONFIG = """\
name: "{name}"
platform: "pytorch_libtorch"
max_batch_size: 8
input [ {{ name: "INPUT__0" data_type: TYPE_FP32 dims: [ 4 ] }} ]
output [ {{ name: "OUTPUT__0" data_type: TYPE_FP32 dims: [ 4 ] }} ]
{batching}
instance_group [ {{ kind: {kind} }} ]
"""

TWO_TYPES_CONFIG = """\
name: "two_types"
backend: "pytorch"
max_batch_size: 8
input [
  { name: "scale" data_type: TYPE_FP32 dims: [ 3 ] },
  { name: "ids" data_type: TYPE_INT64 dims: [ 3 ] }
]
output [
  { name: "product" data_type: TYPE_FP32 dims: [ 3 ] },
  { name: "next_ids" data_type: TYPE_INT64 dims: [ 3 ] }
]
instance_group [ { kind: KIND_CPU } ]
"""


class Double(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * 2


class PastFour(torch.nn.Module):
    """Batch rows weighted by a table of 4: row 5 has no weight, so batch 5 and above fail."""

    def __init__(self) -> None:
        super().__init__()
        self.table = torch.nn.Parameter(torch.ones(4, 4))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * 2 * self.table[torch.arange(x.shape[0])]


class TwoTypes(torch.nn.Module):
    def forward(self, ids: torch.Tensor, scale: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return ids.to(torch.float32) * scale, ids + 1


def save(make: Callable[[], Any], path: Path) -> Path:
    """`make()` (a torch.jit.script or trace call) saved at `path`; torch 2.13 warns that
    TorchScript is deprecated, which is what Triton's PyTorch backend still loads."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        module = make()
    path.parent.mkdir(parents=True, exist_ok=True)
    module.save(str(path))
    return path


def indexed_model(
    root: Path, name: str, module: torch.nn.Module, *, kind: str = "KIND_CPU"
) -> Path:
    """A scripted `module` as `root/name/1/model.pt` with the INPUT__0 / OUTPUT__0 config."""
    save(lambda: torch.jit.script(module), root / name / "1" / "model.pt")
    config = INDEXED_CONFIG.format(name=name, batching=EVERY_BATCH, kind=kind)
    (root / name / "config.pbtxt").write_text(config, encoding="utf-8")
    return root / name


def two_types_model(root: Path) -> Path:
    example = (torch.ones(2, 3, dtype=torch.int64), torch.ones(2, 3))
    path = root / "two_types" / "1" / "model.pt"
    save(lambda: torch.jit.trace(TwoTypes(), example), path)
    (root / "two_types" / "config.pbtxt").write_text(TWO_TYPES_CONFIG, encoding="utf-8")
    return root / "two_types"


def torch_repository(root: Path, *, kind: str = "KIND_CPU") -> Path:
    """`healthy`, `past_four` and `two_types` in one repository."""
    indexed_model(root, "healthy", Double(), kind=kind)
    indexed_model(root, "past_four", PastFour(), kind=kind)
    two_types_model(root)
    return root
