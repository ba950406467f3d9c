"""The one runtime table (`tritoncfg/runtimes.py`): every part of probe reads it, so a runtime is
added by one entry, and its name is written nowhere else in probe but its own runner."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

from clikit import run
from google.protobuf import text_format

from tritoncfg.probe.plan import ModelPlan
from tritoncfg.probe.runners import choose_runtime, runs_on_gpu
from tritoncfg.probe.scheduler import uses_gpu
from tritoncfg.runtimes import BY_NAME, RUNTIMES, runtime_for_file, runtime_serving
from tritoncfg.schema import ModelConfig

PROBE = Path(__file__).resolve().parents[1] / "tritoncfg" / "probe"
# the one other place: `gpu_execution_accelerator { name: "tensorrt" }`, the config's own value
ACCELERATOR = ("runners/onnxruntime.py", "tensorrt")


def config(text: str) -> ModelConfig:
    return text_format.Parse(text, ModelConfig())


def test_every_runtime_names_a_runner_class_of_its_name() -> None:
    for runtime in RUNTIMES:
        module, _, name = runtime.runner.partition(":")
        runner = getattr(importlib.import_module(module), name)  # imports no runtime library
        assert runner.name == runtime.name
        for method in ("load", "run", "describe", "close"):
            assert callable(getattr(runner, method)), (runtime.name, method)


def test_probe_runtime_offers_auto_and_each_runtime() -> None:
    import typer.main

    from tritoncfg.cli.app import app

    command = typer.main.get_command(app).commands["probe"]  # type: ignore[attr-defined]
    (option,) = [p for p in command.params if "--runtime" in p.opts]
    assert list(option.type.choices) == ["auto", *(r.name for r in RUNTIMES)]
    shown = " ".join(run("probe", "--help").stdout.replace("│", " ").split())
    assert ".pt on PyTorch) or one runtime: onnxruntime, tensorrt, pytorch." in shown, shown


def test_a_runtime_name_is_written_only_in_its_own_runner() -> None:
    names = "|".join(re.escape(r.name) for r in RUNTIMES)
    written = re.compile(rf"""["']({names})["']""")
    found = []
    for path in sorted(PROBE.rglob("*.py")):
        where = path.relative_to(PROBE).as_posix()
        for name in written.findall(path.read_text(encoding="utf-8")):
            own = where.startswith((f"runners/{name}", f"{name}/"))
            if not own and (where, name) != ACCELERATOR:
                found.append(f"{where}: {name!r}")
    assert found == []
    text = (PROBE / ACCELERATOR[0]).read_text(encoding="utf-8")
    assert text.count(f'"{ACCELERATOR[1]}"') == 1  # the scan saw the one it allows


def test_backends_platforms_and_files() -> None:
    assert runtime_serving("pytorch", "pytorch_libtorch") is BY_NAME["pytorch"]
    assert runtime_serving("pytorch", "torch_aoti") is None  # AOTInductor is not run
    assert runtime_serving("onnxruntime", "") is BY_NAME["onnxruntime"]
    assert runtime_serving("", "tensorrt_plan") is BY_NAME["tensorrt"]
    assert runtime_serving("python", "") is None
    assert runtime_for_file(".pt") is BY_NAME["pytorch"]
    assert runtime_for_file(".pt2") is None


def test_choose_runtime_reads_the_table() -> None:
    assert choose_runtime("auto", Path("model.pt")) == ("pytorch", None)
    assert choose_runtime("pytorch", Path("model.pt")) == ("pytorch", None)
    assert choose_runtime("pytorch", Path("model.onnx")) == (
        None,
        "PyTorch cannot run model.onnx (ONNX Runtime runs it: use --runtime onnxruntime or auto)",
    )
    assert choose_runtime("auto", Path("model.savedmodel")) == (
        None,
        "model.savedmodel: probe runs .onnx, .plan, .pt model files only",
    )


def test_pytorch_takes_the_gpu_when_an_instance_group_is_kind_gpu() -> None:
    gpu = config("instance_group [ { kind: KIND_CPU }, { kind: KIND_GPU } ]")
    cpu = config("instance_group [ { kind: KIND_CPU } ]")
    assert runs_on_gpu("pytorch", gpu) and not runs_on_gpu("pytorch", cpu)
    assert runs_on_gpu("tensorrt", cpu)  # TensorRT always runs on a GPU
    assert not runs_on_gpu("onnxruntime", gpu) and not runs_on_gpu(None, gpu)
    # the scheduler runs GPU models one at a time: an ensemble through its steps
    ensemble = ModelPlan("e", "", ModelConfig(), runtime=None)
    ensemble.steps = [ModelPlan("s", "", gpu, runtime="pytorch")]
    assert uses_gpu(ensemble) and not uses_gpu(ModelPlan("c", "", cpu, runtime="pytorch"))
