"""Test support: a repository of a few hundred models with ensembles, errors and suppressions."""

from __future__ import annotations

from pathlib import Path

PLAIN = """backend: "python"
max_batch_size: {mbs}
{batching}input [ {{ name: "x" data_type: TYPE_FP32 dims: [ 4 ] }} ]
output [ {{ name: "y" data_type: TYPE_FP32 dims: [ 4 ] }} ]
instance_group [ {{ kind: KIND_CPU count: {count} }} ]
"""

ENSEMBLE = """platform: "ensemble"
max_batch_size: 4
input [ {{ name: "IN" data_type: TYPE_FP32 dims: [ 4 ] }} ]
output [ {{ name: "OUT" data_type: TYPE_FP32 dims: [ 4 ] }} ]
ensemble_scheduling {{ step [
  {{ model_name: "{a}" model_version: -1 input_map {{ key: "x" value: "IN" }} output_map {{ key: "y" value: "mid" }} }},
  {{ model_name: "{b}" model_version: -1 input_map {{ key: "x" value: "mid" }} output_map {{ key: "y" value: "OUT" }} }}
] }}
"""


def model_name(index: int) -> str:
    return f"m{index:04d}"


def config(index: int, count: int) -> str:
    """Every 10th an ensemble over two others (every 30th names a missing or a broken step),
    every 7th a batching error, every 13th a parse error, every 11th a suppression comment."""
    if index % 10 == 0:
        a = model_name((index + 1) % count)
        b = "missing_step" if index % 30 == 0 else model_name((index + 13 * 3) % count)
        return ENSEMBLE.format(a=a, b=b)
    if index % 13 == 0:
        return 'backend: "python"\nmax_batch_size: [\n'
    batching = "dynamic_batching { preferred_batch_size: [ 16 ] }\n" if index % 7 == 0 else ""
    text = PLAIN.format(mbs=8 if index % 3 else 0, batching=batching, count=index % 4)
    if index % 11 == 0:
        text = "# tritoncfg: noqa-file TC203 TC999\n" + text
    return text


def write_repository(root: Path, count: int) -> Path:
    for index in range(count):
        model = root / model_name(index)
        (model / "1").mkdir(parents=True)
        (model / "1" / "model.py").write_text("# never executed\n", encoding="utf-8")
        (model / "config.pbtxt").write_text(config(index, count), encoding="utf-8")
    return root


def dependents(index: int, count: int) -> set[str]:
    """The ensembles of `config` that name model `index` as a step."""
    found = set()
    for e in range(0, count, 10):
        if index in ((e + 1) % count, (e + 13 * 3) % count) and not (
            e % 30 == 0 and index == (e + 13 * 3) % count
        ):
            found.add(model_name(e))
    return found
