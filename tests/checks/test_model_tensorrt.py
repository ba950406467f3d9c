"""TC850-TC866: the TensorRT backend's checks against an engine.

A real plan can only be read with TensorRT and a GPU (tests/models/test_tensorrt.py covers the
reader); here the engine's description (the ModelIO the reader would return) is handed to the
rules by replacing the reader, and the repository on disk has a placeholder model.plan.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from corpus import TRITON_QA, parametrize_corpus
from lintkit import found, lint_repo, make_model

from tritoncfg.diagnostics import Diagnostic
from tritoncfg.models import tensorrt as reader
from tritoncfg.models.io import ModelIO, Profile, TensorInfo, Unknowable

TRT = 'platform: "tensorrt_plan"\n'
GPU_GROUP = "instance_group [ { kind: KIND_GPU } ]\n"


def tritons(diagnostics: list[Diagnostic], code: str) -> list[str | None]:
    return [f[2] for f in found(diagnostics, code)]


def messages(diagnostics: list[Diagnostic], code: str) -> list[str]:
    return [d.message for d in diagnostics if d.code == code]


def tensor(
    name: str, dtype: str, shape: Sequence[int], *, shape_tensor: bool = False, fmt: str = "LINEAR"
) -> TensorInfo:
    triton = reader.trt_type(dtype)
    dims = tuple(d if d >= 0 else None for d in shape)
    return TensorInfo(name, triton, dtype, dims, is_shape_tensor=shape_tensor, io_format=fmt)


def batch_profile(
    index: int, low: int, high: int, *names: str, rest: tuple[int, ...] = (16,)
) -> Profile:
    return Profile(index, {n: ((low, *rest), (high, *rest), (high, *rest)) for n in names})


def engine(
    inputs: Sequence[TensorInfo],
    outputs: Sequence[TensorInfo],
    profiles: Sequence[Profile] | None = None,
) -> ModelIO:
    if profiles is None:
        profiles = [batch_profile(0, 1, 8, *(t.name for t in inputs if not t.is_shape_tensor))]
    return ModelIO(
        "tensorrt", Path("model.plan"), tuple(inputs), tuple(outputs), profiles=tuple(profiles)
    )


X = tensor("x", "FLOAT", [-1, 16])
Y = tensor("y", "FLOAT", [-1, 16])
SIMPLE = engine([X], [Y])


def lint_trt(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    config: str | None,
    io: ModelIO | Unknowable,
    *,
    strict: bool = False,
) -> list[Diagnostic]:
    make_model(tmp_path / "repo", "m", config, files={"1/model.plan": "placeholder"})
    monkeypatch.setattr(reader, "read_plan", lambda path, **_: io)
    return lint_repo(tmp_path / "repo", triton_mode="strict" if strict else "default", gpus=(0,))


def io_entry(kind: str, name: str, data_type: str, dims: str, extra: str = "") -> str:
    return f'{kind} [ {{ name: "{name}" data_type: {data_type} dims: [ {dims} ]{extra} }} ]\n'


def both(
    mbs: int, x: str = "16", y: str = "16", xt: str = "TYPE_FP32", yt: str = "TYPE_FP32"
) -> str:
    return (
        TRT
        + f"max_batch_size: {mbs}\n"
        + io_entry("input", "x", xt, x)
        + io_entry("output", "y", yt, y)
    )


def model_rules(diagnostics: list[Diagnostic]) -> list[str]:
    return [d.code for d in diagnostics if "TC850" <= d.code <= "TC899"]


def test_a_matching_config_passes_everything(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for mode, config in (("default", both(8)), ("strict", both(8) + GPU_GROUP), ("none", None)):
        diagnostics = lint_trt(
            tmp_path / mode, monkeypatch, config, SIMPLE, strict=mode == "strict"
        )
        assert model_rules(diagnostics) == [], (mode, [d.message for d in diagnostics])


# --- TC850 -----------------------------------------------------------------------------------


def test_plan_not_inspected_is_a_note(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reader.importlib.util, "find_spec", lambda name: None)
    make_model(tmp_path, "m", TRT, files={"1/model.plan": "engine bytes"})
    diagnostics = lint_repo(tmp_path, gpus=(0,))
    assert found(diagnostics, "TC850") == [("1:1", "info", None)]
    assert messages(diagnostics, "TC850") == [
        "1/model.plan was not checked against the config: cannot inspect .plan here: the "
        "tensorrt Python package is not installed; lint where tensorrt and the target GPU are to "
        "check names, types, shapes and profiles"
    ]


def test_plan_read_or_absent_gives_no_note(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert not found(lint_trt(tmp_path / "a", monkeypatch, both(8), SIMPLE), "TC850")
    make_model(tmp_path / "b", "m", TRT)  # no model.plan: another rule's finding
    assert not found(lint_repo(tmp_path / "b", gpus=(0,)), "TC850")


# --- TC851 / TC852 / TC859 -------------------------------------------------------------------


def test_unknown_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = both(8).replace('"x"', '"images"').replace('"y"', '"scores"')
    diagnostics = lint_trt(tmp_path, monkeypatch, config, SIMPLE)
    assert found(diagnostics, "TC851") == [
        ("3:17", "error", "unexpected inference input 'images', allowed inputs are: x")
    ]
    assert found(diagnostics, "TC852") == [
        ("4:18", "error", "unexpected inference output 'scores', allowed outputs are: y")
    ]


def test_too_many_inputs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = both(8) + io_entry("input", "z", "TYPE_FP32", "16")
    diagnostics = lint_trt(tmp_path, monkeypatch, config, SIMPLE)
    assert tritons(diagnostics, "TC859") == [
        "unable to load model 'm', configuration expects 2 inputs, model provides at most 1"
    ]
    assert not found(lint_trt(tmp_path / "b", monkeypatch, both(8), SIMPLE), "TC859")


# --- TC853 / TC854 / TC855 -------------------------------------------------------------------


def test_contradicting_batch_hints(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = (
        TRT
        + io_entry("input", "x", "TYPE_FP32", "16")
        + io_entry("output", "y", "TYPE_FP32", "-1, 16")
    )
    diagnostics = lint_trt(tmp_path, monkeypatch, config, SIMPLE)
    assert found(diagnostics, "TC853") == [
        (
            "3:43",
            "error",
            "unable to autofill for 'm', model tensor configurations are contradicting each other "
            "in terms of whether batching is supported",
        )
    ]
    # the other order is no contradiction for Triton: the first tensor hints "no batching"
    reversed_ = (
        TRT
        + io_entry("input", "x", "TYPE_FP32", "-1, 16")
        + io_entry("output", "y", "TYPE_FP32", "16")
    )
    assert not found(lint_trt(tmp_path / "b", monkeypatch, reversed_, SIMPLE), "TC853")
    assert not found(lint_trt(tmp_path / "c", monkeypatch, config, SIMPLE, strict=True), "TC853")


def test_engine_that_cannot_batch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    zero = engine([X], [Y], [batch_profile(0, 0, 0, "x")])
    diagnostics = lint_trt(tmp_path, monkeypatch, both(0), zero)
    assert tritons(diagnostics, "TC854") == [
        "autofill failed for model 'm': model tensor shape configuration hints for dynamic "
        "batching but the underlying engine doesn't support batching."
    ]
    assert not found(lint_trt(tmp_path / "b", monkeypatch, both(0), SIMPLE), "TC854")


def test_max_batch_size_above_the_engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    diagnostics = lint_trt(tmp_path, monkeypatch, both(16), SIMPLE)
    assert found(diagnostics, "TC855") == [
        (
            "2:17",
            "error",
            "autofill failed for model 'm': configuration specified max-batch 16 but TensorRT "
            "engine only supports max-batch 8",
        )
    ]
    assert messages(diagnostics, "TC855") == [
        "max_batch_size is 16 but the engine's optimization profiles allow batch sizes up to 8; "
        "set max_batch_size: 8 or rebuild the engine with a larger maximum shape"
    ]
    assert not found(lint_trt(tmp_path / "b", monkeypatch, both(8), SIMPLE), "TC855")
    strict = both(16) + GPU_GROUP  # no auto-complete: no max-batch check at load (TC865 instead)
    diagnostics = lint_trt(tmp_path / "c", monkeypatch, strict, SIMPLE, strict=True)
    assert not found(diagnostics, "TC855") and found(diagnostics, "TC865")


def test_full_rank_dims_mean_no_batching(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    diagnostics = lint_trt(tmp_path, monkeypatch, both(8, x="-1, 16", y="-1, 16"), SIMPLE)
    assert tritons(diagnostics, "TC855") == [
        "autofill failed for model 'm': configuration specified max-batch 8 but TensorRT engine "
        "only supports max-batch 0"
    ]
    assert "which Triton reads as a model that does not batch" in messages(diagnostics, "TC855")[0]


def test_selected_profiles_decide_the_engine_max(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    two = engine([X], [Y], [batch_profile(0, 1, 8, "x"), batch_profile(1, 9, 32, "x")])
    config = both(32) + 'instance_group [ { kind: KIND_GPU profile: [ "1" ] } ]\n'
    assert not found(lint_trt(tmp_path / "a", monkeypatch, config, two), "TC855")
    assert found(lint_trt(tmp_path / "b", monkeypatch, both(32), two), "TC855")  # profile 0 only


# --- TC856 -----------------------------------------------------------------------------------


def test_profile_index_beyond_the_engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = both(8) + 'instance_group [ { kind: KIND_GPU profile: [ "0", "2" ] } ]\n'
    two = engine([X], [Y], [batch_profile(0, 1, 8, "x"), batch_profile(1, 1, 8, "x")])
    diagnostics = lint_trt(tmp_path / "a", monkeypatch, config, two)
    assert found(diagnostics, "TC856") == [
        (
            "5:51",
            "error",
            "unable to autofill for 'm', configuration specified invalid profile 2 . Number of "
            "profiles supported by TensorRT engine: 2",
        )
    ]
    diagnostics = lint_trt(tmp_path / "b", monkeypatch, config, two, strict=True)
    assert tritons(diagnostics, "TC856") == [
        "Can not set the specified optimization profile 2[2] for m_0_0. Expected optimization "
        "profile index range 0-1"
    ]
    good = config.replace('"2"', '"1"')
    assert not found(lint_trt(tmp_path / "c", monkeypatch, good, two), "TC856")


# --- TC857 / TC858 ---------------------------------------------------------------------------


def test_shape_tensor_flag(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    flagged = both(8).replace("dims: [ 16 ] }", "dims: [ 16 ] is_shape_tensor: true }", 1)
    diagnostics = lint_trt(tmp_path / "a", monkeypatch, flagged, SIMPLE)
    assert tritons(diagnostics, "TC857") == ["'x' is incorrectly specified as a shape tensor."]
    diagnostics = lint_trt(tmp_path / "b", monkeypatch, flagged + GPU_GROUP, SIMPLE, strict=True)
    assert tritons(diagnostics, "TC857") == [
        "input 'x' for model 'm' is incorrectly marked as a shape tensor in the model "
        "configuration."
    ]
    shapes = engine([X, tensor("s", "INT32", [2], shape_tensor=True)], [Y])
    config = both(8) + io_entry("input", "s", "TYPE_INT32", "1") + GPU_GROUP
    diagnostics = lint_trt(tmp_path / "c", monkeypatch, config, shapes, strict=True)
    assert tritons(diagnostics, "TC857") == [
        "input 's' for model 'm' is a shape tensor but the model configuration doesn't mark it as "
        "a shape tensor."
    ]
    # auto-complete marks it from the engine
    assert not found(lint_trt(tmp_path / "d", monkeypatch, config, shapes), "TC857")


def test_non_linear_format_flag(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    flagged = both(8).replace("dims: [ 16 ] }", "dims: [ 16 ] is_non_linear_format_io: true }", 1)
    diagnostics = lint_trt(tmp_path / "a", monkeypatch, flagged, SIMPLE)
    assert tritons(diagnostics, "TC858") == [
        "'x' uses a linear IO format, but 'is_non_linear_format_io' is incorrectly set to true in "
        "the model configuration."
    ]
    chw = engine([tensor("x", "FLOAT", [-1, 16], fmt="CHW32")], [Y])
    diagnostics = lint_trt(tmp_path / "b", monkeypatch, both(8) + GPU_GROUP, chw, strict=True)
    assert tritons(diagnostics, "TC858") == [
        "input 'x' for model 'm' uses a non-linear IO format, but 'is_non_linear_format_io' is "
        "incorrectly set to false in the model configuration."
    ]
    assert messages(diagnostics, "TC858") == [
        "the engine's input 'x' is in IO format CHW32; set is_non_linear_format_io: true"
    ]
    assert not found(lint_trt(tmp_path / "c", monkeypatch, both(8), chw), "TC858")


# --- TC860 / TC861 ---------------------------------------------------------------------------


def test_unsupported_datatype_needs_no_engine(tmp_path: Path) -> None:
    make_model(tmp_path, "m", both(8, xt="TYPE_FP64"), files={})
    diagnostics = lint_repo(tmp_path, gpus=(0,))
    assert found(diagnostics, "TC860") == [
        ("3:32", "error", "unsupported datatype TYPE_FP64 for input 'x' for model 'm'")
    ]
    make_model(tmp_path / "b", "m", both(8), files={})
    assert not found(lint_repo(tmp_path / "b", gpus=(0,)), "TC860")


def test_datatype_mismatch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    half = engine([tensor("x", "HALF", [-1, 16])], [tensor("y", "FP8", [-1, 16])])
    diagnostics = lint_trt(tmp_path, monkeypatch, both(8), half)
    assert found(diagnostics, "TC861") == [
        (
            "3:32",
            "error",
            "unexpected datatype TYPE_FP16 for inference input 'x', expecting TYPE_FP32 for m_0",
        ),
        (
            "4:33",
            "error",
            "unexpected datatype TYPE_INVALID for inference output 'y', expecting TYPE_FP32 for m_0",
        ),
    ]
    assert messages(diagnostics, "TC861")[0] == (
        "the engine's input 'x' is FP16 (DataType.HALF) but the config says TYPE_FP32; set "
        "data_type: TYPE_FP16"
    )


def test_shape_tensor_datatypes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shapes = engine([X, tensor("s", "INT64", [2], shape_tensor=True)], [Y])
    config = both(8) + io_entry("input", "s", "TYPE_FP32", "1", " is_shape_tensor: true")
    diagnostics = lint_trt(tmp_path / "a", monkeypatch, config, shapes)
    assert tritons(diagnostics, "TC861") == [
        "unexpected datatype TYPE_FP32 in model configuration for shape input 's', expecting "
        "TYPE_INT32 or TYPE_INT64 for m_0"
    ]
    config = config.replace("TYPE_FP32 dims: [ 1 ]", "TYPE_INT32 dims: [ 1 ]")
    diagnostics = lint_trt(tmp_path / "b", monkeypatch, config, shapes)
    assert tritons(diagnostics, "TC861") == [
        "unexpected datatype TYPE_INT64 in engine for shape input 's', expecting TYPE_INT32 for m_0"
    ]


# --- TC862 / TC863 ---------------------------------------------------------------------------


def test_dims_mismatch_is_not_exact(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    image = engine(
        [tensor("x", "FLOAT", [-1, 3, 512, 864])],
        [Y],
        [batch_profile(0, 1, 8, "x", rest=(3, 512, 864))],
    )
    diagnostics = lint_trt(tmp_path / "a", monkeypatch, both(8, x="-1, 3, 512, 864"), image)
    assert tritons(diagnostics, "TC862") == [
        "model 'm', tensor 'x': the model expects 4 dimensions (shape [-1,3,512,864]) but the "
        "model configuration specifies 5 dimensions (an initial batch dimension because "
        "max_batch_size > 0 followed by the explicit tensor shape, making complete shape "
        "[-1,-1,3,512,864])"
    ]
    # a config -1 against a fixed engine dim passes in TensorRT (not in ONNX Runtime)
    assert not found(lint_trt(tmp_path / "b", monkeypatch, both(8, x="3, -1, 864"), image), "TC862")
    diagnostics = lint_trt(tmp_path / "c", monkeypatch, both(8, x="3, 512, 863"), image)
    assert (
        "dimension 3 is 863 in the config but 864 in the engine"
        in messages(diagnostics, "TC862")[0]
    )


def test_shape_tensor_dims(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shapes = engine([X, tensor("s", "INT32", [3], shape_tensor=True)], [Y])
    config = both(8) + io_entry("input", "s", "TYPE_INT32", "3", " is_shape_tensor: true")
    diagnostics = lint_trt(tmp_path / "a", monkeypatch, config, shapes)
    assert tritons(diagnostics, "TC863") == [
        "unable to load model 'm_0', binding 's' shape expected by framework [3] doesn't match "
        "model configuration shape [3]"
    ]
    good = config.replace("TYPE_INT32 dims: [ 3 ]", "TYPE_INT32 dims: [ 2 ]")
    assert not found(lint_trt(tmp_path / "b", monkeypatch, good, shapes), "TC863")


# --- TC864 / TC865 / TC866 -------------------------------------------------------------------


def test_fixed_dims_outside_a_profile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ranged = engine(
        [tensor("x", "FLOAT", [-1, -1])], [Y], [Profile(0, {"x": ((1, 4), (4, 16), (8, 32))})]
    )
    diagnostics = lint_trt(tmp_path / "a", monkeypatch, both(8, x="33"), ranged)
    assert tritons(diagnostics, "TC864") == [
        "model configuration specified invalid shape for input 'x' for model m. Error details: "
        "model expected the shape of dimension 1 to be between 4 and 32 but received 33"
    ]
    for dims in ("-1", "32"):
        assert not found(lint_trt(tmp_path / dims, monkeypatch, both(8, x=dims), ranged), "TC864")


def test_batch_sizes_no_profile_takes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    two = engine([X], [Y], [batch_profile(0, 1, 4, "x"), batch_profile(1, 8, 16, "x")])
    config = both(16) + 'instance_group [ { kind: KIND_GPU profile: [ "0", "1" ] } ]\n'
    diagnostics = lint_trt(tmp_path / "a", monkeypatch, config, two)
    assert found(diagnostics, "TC865") == [
        (
            "5:35",
            "warning",
            "failed to find any Optimization Profile among [ 0[0] 1[1]] to support the requested "
            "dimensions (or shape values), proceeding with first profile.",
        )
    ]
    assert messages(diagnostics, "TC865")[0].startswith(
        "max_batch_size is 16 but batch sizes 5-7 fit none of instance group 0's optimization "
        "profiles (profile 0 takes 1-4, profile 1 takes 8-16)"
    )
    batch1 = engine([X], [Y], [batch_profile(0, 1, 1, "x")])  # built at batch 1 (tutorials#28)
    diagnostics = lint_trt(tmp_path / "b", monkeypatch, both(8) + GPU_GROUP, batch1, strict=True)
    assert tritons(diagnostics, "TC865") == [
        "request specifies invalid shape for input 'x' for m_0_0. Error details: model expected "
        "the shape of dimension 0 to be between 1 and 1 but received 2"
    ]
    assert not found(lint_trt(tmp_path / "c", monkeypatch, both(8), SIMPLE), "TC865")


def test_every_engine_output_must_be_configured(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    two_out = engine([X], [Y, tensor("labels", "INT32", [-1, 1])])
    diagnostics = lint_trt(tmp_path / "a", monkeypatch, both(8), two_out)
    assert found(diagnostics, "TC866") == [
        ("4:1", "error", "expected configuration for output 'labels' for m_0")
    ]
    # auto-complete adds the outputs when the config lists none
    inputs_only = TRT + "max_batch_size: 8\n" + io_entry("input", "x", "TYPE_FP32", "16")
    assert not found(lint_trt(tmp_path / "b", monkeypatch, inputs_only, two_out), "TC866")
    diagnostics = lint_trt(
        tmp_path / "c", monkeypatch, inputs_only + GPU_GROUP, two_out, strict=True
    )
    assert tritons(diagnostics, "TC866") == [
        "expected configuration for output 'y' for m_0_0",
        "expected configuration for output 'labels' for m_0_0",
    ]


# --- Triton's QA corpus, with engines described after the QA model repositories ----------------
#
# The corpus lacks the QA's plans (they are built by gen_qa_models.py on a GPU); each source model
# is described here from what Triton's auto-complete made of it (the success cases' `expected`
# configs): names, types, shapes, formats and a batch range 1-8.


def _batch_io(
    names: Sequence[str], shape: tuple[int, ...], fmt: str = "LINEAR"
) -> list[TensorInfo]:
    return [tensor(n, "FLOAT", [-1, *shape], fmt=fmt) for n in names]


def _qa_engine(source: str) -> ModelIO:
    ins, outs = ("INPUT0", "INPUT1"), ("OUTPUT0", "OUTPUT1")
    if "qa_shapetensor_model_repository" in source:
        inputs = [
            tensor("DUMMY_INPUT0", "FLOAT", [-1, -1, -1]),
            tensor("INPUT0", "INT32", [3], shape_tensor=True),
        ]
        outputs = [
            tensor("DUMMY_OUTPUT0", "FLOAT", [-1, -1, -1]),
            tensor("OUTPUT0", "INT64", [3], shape_tensor=True),
        ]
        profile = Profile(
            0,
            {"DUMMY_INPUT0": ((1, 1, 1), (4, 4, 4), (8, 8, 8)), "INPUT0": ((3,), (3,), (3,))},
            {"INPUT0": ((1, 1, 1), (4, 4, 4), (8, 8, 8))},
        )
        return engine(inputs, outputs, [profile])
    if "qa_trt_format_model_repository" in source:
        # rank 4, [batch, -1, 2, 1]: the QA's expected auto-complete has dims [-1, 2, 1]
        inputs = _batch_io(ins, (-1, 2, 1), "CHW32")
        outputs = _batch_io(outs, (-1, 2, 1))
        return engine(inputs, outputs, [batch_profile(0, 1, 8, *ins, rest=(2, 2, 1))])
    if "qa_reshape_model_repository" in source:
        shapes = [(2, 2, 4), (1, 2, 1), (3, 2, 2), (1, 1, 1)]
        inputs = [tensor(f"INPUT{i}", "FLOAT", [-1, *s]) for i, s in enumerate(shapes)]
        outputs = [tensor(f"OUTPUT{i}", "FLOAT", [-1, *s]) for i, s in enumerate(shapes)]
        profile = Profile(
            0, {f"INPUT{i}": ((1, *s), (8, *s), (8, *s)) for i, s in enumerate(shapes)}
        )
        return engine(inputs, outputs, [profile])
    if "qa_variable_model_repository" in source:
        low = 4 if "-4-32" in source else 1
        profiles = [Profile(p, {n: ((1, low), (4, 16), (8, 32)) for n in ins}) for p in range(3)]
        return engine(_batch_io(ins, (-1,)), _batch_io(outs, (-1,)), profiles)
    assert "qa_model_repository/plan_float32_float32_float32" in source, source
    return engine(_batch_io(ins, (16,)), _batch_io(outs, (16,)))


def _trt_cases() -> list[tuple[dict[str, str], str]]:
    from corpus import TRITON_QA, read_tsv

    if not (TRITON_QA / "INDEX.tsv").is_file():
        return []
    sources = {
        row["case_id"]: row["source"]
        for row in read_tsv(TRITON_QA / "SETUP.tsv")
        if row["source"].endswith("model.plan")
    }
    return [
        (row, sources[row["case_id"]])
        for row in read_tsv(TRITON_QA / "INDEX.tsv")
        if "/autofill_noplatform" in row["source_path_in_repo"]
        and "/tensorrt/" in row["source_path_in_repo"]
        and row["case_id"] in sources
    ]


TRT_CASES = _trt_cases()


@parametrize_corpus(
    TRITON_QA, "row,source", TRT_CASES, ids=lambda case: case[0]["case_id"].split("__", 1)[1]
)
def test_triton_qa_tensorrt_cases(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, row: dict[str, str], source: str
) -> None:
    from corpus import TRITON_QA, copy_tree

    from tritoncfg.diagnostics import Severity

    case = TRITON_QA / row["source_path_in_repo"].removeprefix("qa/")
    target = tmp_path / "models" / case.name
    copy_tree(case, target, skip=lambda rel: rel.name.startswith("expected"))
    (target / "1").mkdir(exist_ok=True)
    (target / "1" / "model.plan").write_text("placeholder")
    monkeypatch.setattr(reader, "read_plan", lambda path, **_: _qa_engine(source))
    assert "--strict-model-config=false" in row["server_args"]
    errors = [d for d in lint_repo(tmp_path / "models", gpus=(0,)) if d.severity is Severity.ERROR]
    said = [f"{d.code} {d.triton.message if d.triton else d.message}" for d in errors]
    if row["kind"] == "invalid":
        wanted = row["expected_message_literal"]
        assert any(d.triton and wanted in (d.triton.message or "") for d in errors), said
    else:
        assert not errors, said
