"""TC914 (weights of KIND_GPU instances vs --gpu-memory) and TC915 (alternative configs).

Both need more than a config: model files of a given size, or a `configs/` folder, so their
PASS and FAIL cases are here rather than in the rule docs' examples."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from clikit import run
from lintkit import lint_repo, make_model

from tritoncfg.diagnostics import Diagnostic
from tritoncfg.units import format_size, parse_size

GIB = 2**30
IO = (
    'input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
    'output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
)


def _sparse(path: Path, size: int) -> None:
    """A file of `size` bytes that takes no disk space (the rule reads only its size)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        handle.truncate(size)


def _gpu_model(root: Path, backend: str, groups: str, size: int, *, mbs: int = 8) -> None:
    filename = {"onnxruntime": "model.onnx", "pytorch": "model.pt", "tensorrt": "model.plan"}
    config = f'backend: "{backend}"\nmax_batch_size: {mbs}\n{IO}instance_group [ {groups} ]\n'
    make_model(root, "m", config, files={})
    _sparse(root / "m" / "1" / filename[backend], size)


def _tc914(root: Path, **options: object) -> list[Diagnostic]:
    # TC801 etc. would read the (empty) model file: only the rule under test runs
    from tritoncfg.api import lint
    from tritoncfg.checks import LintOptions
    from tritoncfg.checks.core.selection import RuleSelection

    result = lint(root, LintOptions(**options), RuleSelection(select=("TC914",)))  # type: ignore[arg-type]
    return result.diagnostics


# -- TC914 gpu-weights-exceed-memory ------------------------------------------------------------


def test_instances_whose_weights_exceed_the_gpu_are_reported(tmp_path: Path) -> None:
    _gpu_model(tmp_path, "onnxruntime", "{ kind: KIND_GPU count: 3 gpus: [ 0 ] }", 9 * GIB)
    [finding] = _tc914(tmp_path, gpu_memory=24 * GIB)
    assert (finding.code, finding.severity.value, str(finding.span)) == ("TC914", "warning", "5:42")
    assert "27.0 GiB on GPU 0" in finding.message
    assert "3 instances, each with its own copy of 9.0 GiB" in finding.message


def test_instances_that_fit_pass(tmp_path: Path) -> None:
    _gpu_model(tmp_path, "onnxruntime", "{ kind: KIND_GPU count: 2 gpus: [ 0, 1 ] }", 9 * GIB)
    assert _tc914(tmp_path, gpu_memory=24 * GIB) == []


def test_without_gpu_memory_nothing_is_checked(tmp_path: Path) -> None:
    _gpu_model(tmp_path, "onnxruntime", "{ kind: KIND_GPU count: 3 gpus: [ 0 ] }", 9 * GIB)
    assert _tc914(tmp_path) == []


def test_groups_on_the_same_gpu_add_up(tmp_path: Path) -> None:
    groups = "{ kind: KIND_GPU count: 1 gpus: [ 0 ] }, { kind: KIND_GPU count: 2 gpus: [ 0, 1 ] }"
    _gpu_model(tmp_path, "pytorch", groups, 5 * GIB)
    [finding] = _tc914(tmp_path, gpu_memory=12 * GIB)
    assert "15.0 GiB on GPU 0" in finding.message  # GPU 1 holds 10 GiB: fits


def test_group_without_gpus_lands_on_every_gpu(tmp_path: Path) -> None:
    _gpu_model(tmp_path, "onnxruntime", "{ kind: KIND_GPU count: 2 }", 7 * GIB)
    [unknown_host] = _tc914(tmp_path, gpu_memory=8 * GIB)
    assert "on each GPU it runs on" in unknown_host.message
    found = _tc914(tmp_path, gpu_memory=8 * GIB, gpus=(0, 1))
    assert [f.message.split(" (")[0] for f in found] == [
        "the weights alone need 14.0 GiB on GPU 0",
        "the weights alone need 14.0 GiB on GPU 1",
    ]


def test_cpu_instances_hold_no_gpu_memory(tmp_path: Path) -> None:
    _gpu_model(tmp_path, "onnxruntime", "{ kind: KIND_CPU count: 8 }", 9 * GIB)
    assert _tc914(tmp_path, gpu_memory=8 * GIB) == []


def _engine(*shape: int) -> object:
    """The description tritoncfg's plan reader gives of an engine (a real plan needs TensorRT
    and a GPU to read: tests/models/test_tensorrt.py covers the reader)."""
    from tritoncfg.models.io import ModelIO, TensorInfo

    dims = tuple(d if d >= 0 else None for d in shape)
    x = TensorInfo("x", "TYPE_FP32", "FLOAT", dims)
    y = TensorInfo("y", "TYPE_FP32", "FLOAT", dims)
    return ModelIO("tensorrt", Path("model.plan"), (x,), (y,))


def test_static_tensorrt_engine_is_shared_by_the_instances_of_a_gpu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tritoncfg.models import tensorrt as reader

    monkeypatch.setattr(reader, "read_plan", lambda path, **_: _engine(8, 4))
    _gpu_model(tmp_path, "tensorrt", "{ kind: KIND_GPU count: 4 gpus: [ 0 ] }", 6 * GIB)
    assert _tc914(tmp_path, gpu_memory=8 * GIB) == []  # one engine of 6 GiB


def test_dynamic_tensorrt_engine_is_loaded_per_instance(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tritoncfg.models import tensorrt as reader

    monkeypatch.setattr(reader, "read_plan", lambda path, **_: _engine(-1, 4))
    _gpu_model(tmp_path, "tensorrt", "{ kind: KIND_GPU count: 2 gpus: [ 0 ] }", 6 * GIB)
    [finding] = _tc914(tmp_path, gpu_memory=8 * GIB)
    assert "12.0 GiB on GPU 0 (2 instances, each with its own copy" in finding.message


def test_uninspected_tensorrt_plan_counts_one_engine(tmp_path: Path) -> None:
    _gpu_model(tmp_path, "tensorrt", "{ kind: KIND_GPU count: 2 gpus: [ 0 ] }", 6 * GIB)
    assert _tc914(tmp_path, gpu_memory=8 * GIB) == []  # 12 GiB only if the engine is dynamic
    [finding] = _tc914(tmp_path, gpu_memory=4 * GIB)
    assert "6.0 GiB on GPU 0 (one engine of 6.0 GiB, shared by its instances)" in finding.message


def test_python_models_are_not_checked(tmp_path: Path) -> None:
    config = f'backend: "python"\n{IO}instance_group [ {{ kind: KIND_GPU count: 9 }} ]\n'
    make_model(tmp_path, "m", config, files={"1/model.py": "x" * 1000})
    assert _tc914(tmp_path, gpu_memory=100) == []  # the weights are not the files


def test_gpu_memory_on_the_command_line_and_in_the_configuration(tmp_path: Path) -> None:
    repo = tmp_path / "models"
    _gpu_model(repo, "onnxruntime", "{ kind: KIND_GPU count: 3 gpus: [ 0 ] }", 9 * GIB)

    def tc914(*args: str) -> list[str]:
        result = run("lint", str(repo), "--select", "TC914", "--format", "json", *args)
        assert result.returncode in (0, 1), result.stderr
        return [d["message"] for d in json.loads(result.stdout)["diagnostics"]]

    assert tc914() == []
    assert len(tc914("--gpu-memory", "24GiB")) == 1
    assert tc914("--gpu-memory", "80GB") == []
    (tmp_path / "tritoncfg.toml").write_text('gpu-memory = "16GiB"\n')
    assert "more than --gpu-memory 16.0 GiB" in tc914()[0]
    bad = run("lint", str(repo), "--gpu-memory", "lots")
    assert bad.returncode == 2
    assert "--gpu-memory: expected a size such as 24GiB" in bad.stderr
    assert "Traceback" not in bad.stderr


@pytest.mark.parametrize(
    ("text", "size"),
    [("24GiB", 24 * GIB), ("80GB", 80 * 10**9), ("16384MiB", 16 * GIB), ("24g", 24 * GIB),
     (" 1.5 TiB ", int(1.5 * 2**40)), ("100", 100), (512, 512)],
)  # fmt: skip
def test_parse_size(text: str | int, size: int) -> None:
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["", "GiB", "24 parsecs", "0", "-1GiB", 0])
def test_parse_size_rejects(text: str | int) -> None:
    with pytest.raises(ValueError, match="size"):
        parse_size(text)


def test_format_size() -> None:
    assert [format_size(n) for n in (100, 1536, 9 * GIB, 200 * 2**20, 3 * 2**40)] == [
        "100 B",
        "1.5 KiB",
        "9.0 GiB",
        "200 MiB",
        "3.0 TiB",
    ]


# -- TC915 alternative-config-error -------------------------------------------------------------

PY = f'backend: "python"\nmax_batch_size: 8\n{IO}'
PROD_ERROR = PY + "dynamic_batching {\n  preferred_batch_size: [ 16 ]\n}\n"


def _with_alternatives(root: Path, default: str, **alternatives: str) -> Path:
    files = {"1/model.py": ""} | {f"configs/{n}.pbtxt": t for n, t in alternatives.items()}
    return make_model(root, "m", default, files=files)


def _tc915(diagnostics: list[Diagnostic]) -> list[tuple[str, str, str]]:
    return [(Path(d.path).name, str(d.span), d.message) for d in diagnostics if d.code == "TC915"]


def test_error_in_an_alternative_is_reported_in_its_file(tmp_path: Path) -> None:
    _with_alternatives(tmp_path, PY, prod=PROD_ERROR, dev=PY)
    diagnostics = lint_repo(tmp_path)
    assert _tc915(diagnostics) == [
        (
            "prod.pbtxt",
            "6:27",
            "with --model-config-name=prod Triton would refuse this model (TC203): "
            "preferred batch size 16 is above max_batch_size 8; lower it or raise max_batch_size "
            "(lint with --model-config-name=prod to check and --fix that config)",
        )
    ]
    [finding] = [d for d in diagnostics if d.code == "TC915"]
    assert finding.severity.value == "warning"
    assert finding.triton is not None and finding.triton.phase == "VALIDATE"
    assert (
        finding.triton.message == "dynamic batching preferred size must be <= max batch size for m"
    )
    assert not [d for d in diagnostics if d.severity.value == "error"]  # the default is fine


def test_alternatives_without_errors_pass(tmp_path: Path) -> None:
    _with_alternatives(tmp_path, PY, dev=PY, prod=PY.replace("8", "16"))
    assert _tc915(lint_repo(tmp_path)) == []


def test_an_error_the_config_in_use_shares_is_reported_once(tmp_path: Path) -> None:
    _with_alternatives(tmp_path, PROD_ERROR, prod=PROD_ERROR)
    diagnostics = lint_repo(tmp_path)
    assert [d.code for d in diagnostics if d.code == "TC203"] == ["TC203"]
    assert _tc915(diagnostics) == []


def test_default_config_is_the_alternative_when_a_name_is_selected(tmp_path: Path) -> None:
    _with_alternatives(tmp_path, PROD_ERROR, prod=PY)
    found = _tc915(lint_repo(tmp_path, config_name="prod"))
    assert [(name, where) for name, where, _ in found] == [("config.pbtxt", "6:27")]
    assert found[0][2].startswith("without --model-config-name Triton would refuse this model")


def test_syntax_error_in_an_alternative(tmp_path: Path) -> None:
    _with_alternatives(tmp_path, PY, prod=PY + "max_batch_size 8\n")
    [(name, where, message)] = _tc915(lint_repo(tmp_path))
    assert (name, where) == ("prod.pbtxt", "5:16")
    assert "(TC001)" in message


def test_noqa_in_the_alternative_suppresses_its_error(tmp_path: Path) -> None:
    noqa = PROD_ERROR.replace("[ 16 ]", "[ 16 ]  # tritoncfg: noqa TC203")
    _with_alternatives(tmp_path, PY, prod=noqa)
    diagnostics = lint_repo(tmp_path)
    assert _tc915(diagnostics) == []
    assert [d.code for d in diagnostics if d.code == "TC010"] == []  # not judged "unused" here


def test_config_file_named_on_the_command_line_is_linted_alone(tmp_path: Path) -> None:
    model = _with_alternatives(tmp_path, PY, prod=PROD_ERROR)
    result = run("lint", str(model / "config.pbtxt"), "--format", "json")
    assert "TC915" not in {d["code"] for d in json.loads(result.stdout)["diagnostics"]}
    result = run("lint", str(model), "--format", "text", "--select", "TC915")
    assert result.returncode == 0  # a warning
    expected = f"{os.path.join(model, 'configs', 'prod.pbtxt')}:6:27: TC915 warning"
    assert expected in result.stdout
    assert "preferred_batch_size: [ 16 ]" in result.stdout  # the snippet of the alternative


# -- TC916 gpu-memory-oversubscribed ------------------------------------------------------------


def _onnx_model(root: Path, name: str, gpus: str, size: int) -> None:
    config = f'backend: "onnxruntime"\n{IO}instance_group [ {{ kind: KIND_GPU {gpus} }} ]\n'
    make_model(root, name, config, files={})
    _sparse(root / name / "1" / "model.onnx", size)


def _tc916(root: Path, **options: object) -> list[Diagnostic]:
    from tritoncfg.api import lint
    from tritoncfg.checks import LintOptions
    from tritoncfg.checks.core.selection import RuleSelection

    selection = RuleSelection(select=("TC914", "TC916"))
    return lint(root, LintOptions(**options), selection).diagnostics  # type: ignore[arg-type]


def test_models_that_fit_alone_but_not_together(tmp_path: Path) -> None:
    _onnx_model(tmp_path, "detector", "gpus: [ 0 ]", 14 * GIB)
    _onnx_model(tmp_path, "classifier", "gpus: [ 0 ]", 12 * GIB)
    _onnx_model(tmp_path, "tiny", "gpus: [ 1 ]", 1 * GIB)
    [finding] = _tc916(tmp_path, gpu_memory=24 * GIB)
    assert (finding.code, finding.path, finding.model) == ("TC916", str(tmp_path), None)
    assert finding.message.startswith(
        "2 models put 26.0 GiB of weights on GPU 0 (detector 14.0 GiB, classifier 12.0 GiB), "
        "more than --gpu-memory 24.0 GiB"
    )


def test_models_spread_over_gpus_pass(tmp_path: Path) -> None:
    _onnx_model(tmp_path, "detector", "gpus: [ 0 ]", 14 * GIB)
    _onnx_model(tmp_path, "classifier", "gpus: [ 1 ]", 12 * GIB)
    assert _tc916(tmp_path, gpu_memory=24 * GIB) == []
    assert _tc916(tmp_path) == []  # and nothing is checked without --gpu-memory


def test_a_model_on_every_gpu_counts_on_each(tmp_path: Path) -> None:
    _onnx_model(tmp_path, "detector", "gpus: [ 1 ]", 14 * GIB)
    _onnx_model(tmp_path, "everywhere", "", 12 * GIB)
    found = _tc916(tmp_path, gpu_memory=24 * GIB, gpus=(0, 1))
    assert [f.message.split(" (")[0] for f in found] == [
        "2 models put 26.0 GiB of weights on GPU 1"
    ]


def test_one_model_over_the_limit_is_tc914_only(tmp_path: Path) -> None:
    _onnx_model(tmp_path, "huge", "count: 2 gpus: [ 0 ]", 14 * GIB)
    assert [d.code for d in _tc916(tmp_path, gpu_memory=24 * GIB)] == ["TC914"]


def test_linting_one_model_does_not_add_up_the_repository(tmp_path: Path) -> None:
    _onnx_model(tmp_path, "detector", "gpus: [ 0 ]", 14 * GIB)
    _onnx_model(tmp_path, "classifier", "gpus: [ 0 ]", 12 * GIB)
    assert _tc916(tmp_path / "detector", gpu_memory=24 * GIB) == []
