"""The backends' auto-complete from the model file (`TritonModel::UpdateModelConfig`; the
backends' `AutoCompleteConfig`), and the
whole completion Triton ends up with (`complete_model`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from google.protobuf import text_format

from tritoncfg.complete.backend import autocomplete_backend, take_backend_fields
from tritoncfg.complete.full import complete_model
from tritoncfg.models.io import Dim, ModelIO, Profile, TensorInfo, Unknowable
from tritoncfg.schema import DataType, ModelConfig
from tritoncfg.workspace import LoadedModel, load


def config(text: str = "", backend: str = "onnxruntime") -> ModelConfig:
    return text_format.Parse(f'name: "m"\nbackend: "{backend}"\n{text}', ModelConfig())


def tensor(
    name: str, *shape: Dim, data_type: str | None = "TYPE_FP32", is_shape_tensor: bool = False
) -> TensorInfo:
    return TensorInfo(name, data_type, "float", tuple(shape), is_shape_tensor=is_shape_tensor)


def onnx_io(inputs: list[TensorInfo], outputs: list[TensorInfo]) -> ModelIO:
    return ModelIO("onnx", Path("model.onnx"), tuple(inputs), tuple(outputs))


def expect(text: str, backend: str = "onnxruntime") -> ModelConfig:
    return config(text, backend)


DYNAMIC = onnx_io([tensor("x", "N", 3, 224, 224)], [tensor("y", "N", 1000)])
STATIC = onnx_io([tensor("x", 1, 3, 224, 224)], [tensor("y", 1, 1000)])


# ---------------------------------------------------------------------------------------------
# ONNX Runtime


def test_onnx_dynamic_batch_gets_default_max_batch_size_and_dynamic_batching() -> None:
    done = autocomplete_backend(config(), DYNAMIC)
    assert done.ok and done.ran
    assert done.config == expect(
        """max_batch_size: 4
        input { name: "x" data_type: TYPE_FP32 dims: [3, 224, 224] }
        output { name: "y" data_type: TYPE_FP32 dims: [1000] }
        dynamic_batching {}"""
    )
    assert done.notes == [
        "autofilled max_batch_size to 4 for model 'm' since batching is supporrted but no "
        "max_batch_size is specified in model configuration. Must specify max_batch_size to "
        "utilize autofill with a larger max batch size"
    ]


def test_onnx_static_batch_keeps_dim_0_and_does_not_batch() -> None:
    done = autocomplete_backend(config(), STATIC)
    assert done.ok and not done.notes
    assert done.config == expect(
        """input { name: "x" data_type: TYPE_FP32 dims: [1, 3, 224, 224] }
        output { name: "y" data_type: TYPE_FP32 dims: [1, 1000] }"""
    )


def test_onnx_static_batch_with_max_batch_size_fails() -> None:
    done = autocomplete_backend(config("max_batch_size: 8"), STATIC)
    assert done.errors == [
        "autofill failed for model 'm': model does not support batching while non-zero "
        "max_batch_size is specified"
    ]
    assert done.config == config("max_batch_size: 8") and not done.ran


def test_onnx_batching_needs_every_output_dynamic_too() -> None:
    model = onnx_io([tensor("x", "N", 4)], [tensor("y", "N", 4), tensor("z", 2, 4)])
    done = autocomplete_backend(config(), model)
    assert done.config.max_batch_size == 0
    assert [list(o.dims) for o in done.config.output] == [[-1, 4], [2, 4]]


def test_onnx_symbolic_and_unknown_dims_are_minus_one() -> None:
    model = onnx_io([tensor("x", "N", "seq", None)], [tensor("y", None, "seq")])
    done = autocomplete_backend(config(), model)
    assert list(done.config.input[0].dims) == [-1, -1]
    assert list(done.config.output[0].dims) == [-1]


def test_onnx_scalar_per_batch_item_gets_dims_1_and_an_empty_reshape() -> None:
    model = onnx_io([tensor("x", "N", 4)], [tensor("score", "N")])
    done = autocomplete_backend(config(), model)
    (output,) = done.config.output
    assert list(output.dims) == [1]
    assert output.HasField("reshape") and not output.reshape.shape


def test_onnx_rank_0_scalar_without_batching_gets_dims_1_and_no_reshape() -> None:
    model = onnx_io([tensor("x", 4)], [tensor("score")])
    done = autocomplete_backend(config(), model)
    (output,) = done.config.output
    assert list(output.dims) == [1] and not output.HasField("reshape")


def test_onnx_multiple_outputs_keep_the_model_order() -> None:
    model = onnx_io(
        [tensor("a", "N", 2), tensor("b", "N", 2, data_type="TYPE_INT64")],
        [tensor("z", "N", 1), tensor("y", "N", 3, data_type="TYPE_FP16")],
    )
    done = autocomplete_backend(config(), model)
    assert [(i.name, i.data_type) for i in done.config.input] == [
        ("a", DataType.TYPE_FP32),
        ("b", DataType.TYPE_INT64),
    ]
    assert [(o.name, o.data_type) for o in done.config.output] == [
        ("z", DataType.TYPE_FP32),
        ("y", DataType.TYPE_FP16),
    ]


def test_onnx_skips_when_inputs_and_outputs_are_given() -> None:
    given = config('input { name: "x" } output { name: "y" }')
    done = autocomplete_backend(given, DYNAMIC)
    assert done.config == given and not done.ran
    assert done.notes == [
        "skipping model configuration auto-complete for 'm': inputs and outputs already specified"
    ]


def test_onnx_batch_input_counts_as_an_input() -> None:
    given = config(
        'max_batch_size: 2 batch_input { kind: BATCH_ELEMENT_COUNT target_name: "n" '
        'data_type: TYPE_INT32 source_input: "x" }'
    )
    done = autocomplete_backend(given, DYNAMIC)
    assert not done.config.input  # only the outputs are completed
    assert [o.name for o in done.config.output] == ["y"]


def test_onnx_completes_only_the_missing_side_and_keeps_a_given_max_batch_size() -> None:
    done = autocomplete_backend(config('max_batch_size: 8 input { name: "mine" }'), DYNAMIC)
    assert [i.name for i in done.config.input] == ["mine"]
    assert [o.name for o in done.config.output] == ["y"]
    assert done.config.max_batch_size == 8 and done.config.HasField("dynamic_batching")
    assert not done.notes


def test_onnx_keeps_a_configured_scheduler() -> None:
    done = autocomplete_backend(config("sequence_batching {}"), DYNAMIC)
    assert done.config.WhichOneof("scheduling_choice") == "sequence_batching"


@pytest.mark.parametrize(("default", "batching"), [(1, False), (0, False), (16, True)])
def test_onnx_default_max_batch_size(default: int, batching: bool) -> None:
    done = autocomplete_backend(config(), DYNAMIC, default_max_batch_size=default)
    assert done.config.max_batch_size == default
    assert done.config.HasField("dynamic_batching") is batching
    # with max_batch_size 0 the batch dimension stays in dims
    assert len(done.config.input[0].dims) == (4 if default == 0 else 3)


def test_onnx_type_without_triton_type_is_type_invalid() -> None:
    model = onnx_io([tensor("x", "N", 4, data_type=None)], [tensor("y", "N", 4)])
    assert autocomplete_backend(config(), model).config.input[0].data_type == 0


def test_strict_mode_does_not_auto_complete() -> None:
    done = autocomplete_backend(config(), DYNAMIC, strict=True)
    assert done.config == config() and not done.ran
    assert "strict mode" in done.notes[0]


def test_other_backends_are_not_modelled() -> None:
    done = autocomplete_backend(config(backend="python"), DYNAMIC)
    assert done.config == config(backend="python") and not done.ran
    assert done.notes == [
        "no auto-complete is modelled for backend 'python' with a onnx model file (model.onnx)"
    ]


def test_core_keeps_only_the_backend_fields_and_refuses_another_scheduler() -> None:
    current = config("dynamic_batching {}")
    proposal = config('max_batch_size: 3 sequence_batching {} parameters { key: "k" value {} }')
    assert take_backend_fields(current, proposal) == (
        "Cannot update scheduling choice from 11 to 11 when auto-completing."
    )
    current = config()
    assert take_backend_fields(current, proposal) is None
    assert current == config("max_batch_size: 3 sequence_batching {}")


# ---------------------------------------------------------------------------------------------
# TensorRT


def plan(inputs: list[TensorInfo], outputs: list[TensorInfo], *maxima: dict[str, int]) -> ModelIO:
    profiles = tuple(
        Profile(i, {name: ((1,), (1,), (top,)) for name, top in m.items()})
        for i, m in enumerate(maxima)
    )
    return ModelIO("tensorrt", Path("model.plan"), tuple(inputs), tuple(outputs), profiles=profiles)


GPU = "instance_group { kind: KIND_GPU gpus: [0] }"
ENGINE = plan(
    [tensor("a", -1, 16), tensor("b", -1, 16)],
    [tensor("c", -1, 16)],
    {"a": 8, "b": 16},
    {"a": 32, "b": 32},
)


def trt(text: str = "", model: ModelIO = ENGINE) -> ModelConfig:
    done = autocomplete_backend(config(GPU + "\n" + text, "tensorrt"), model)
    assert done.ok, done.errors
    return done.config


def test_tensorrt_max_batch_is_the_smallest_profile_max_of_profile_0() -> None:
    done = trt()
    assert done.max_batch_size == 8 and done.HasField("dynamic_batching")
    assert [list(i.dims) for i in done.input] == [[16], [16]]
    assert [o.name for o in done.output] == ["c"]


def test_tensorrt_max_batch_over_the_selected_profiles() -> None:
    assert trt('instance_group { kind: KIND_GPU profile: ["0", "1"] }').max_batch_size == 32


def test_tensorrt_configured_max_batch_above_the_engine_fails() -> None:
    done = autocomplete_backend(config(GPU + " max_batch_size: 9", "tensorrt"), ENGINE)
    assert done.errors == [
        "autofill failed for model 'm': configuration specified max-batch 9 but TensorRT engine "
        "only supports max-batch 8"
    ]


def test_tensorrt_invalid_profile() -> None:
    done = autocomplete_backend(
        config('instance_group { kind: KIND_GPU profile: "2" }', "tensorrt"), ENGINE
    )
    assert done.errors == [
        "unable to autofill for 'm', configuration specified invalid profile 2 . Number of "
        "profiles supported by TensorRT engine: 2"
    ]


def test_tensorrt_runs_only_for_a_gpu_first_group() -> None:
    done = autocomplete_backend(config("instance_group { kind: KIND_CPU }", "tensorrt"), ENGINE)
    assert not done.ran and "KIND_GPU" in done.notes[0]


def test_tensorrt_dims_equal_to_the_engine_rank_hint_no_batching() -> None:
    done = autocomplete_backend(
        config(GPU + ' input { name: "a" dims: [-1, 16] }', "tensorrt"), ENGINE
    )
    assert done.notes == [
        "The specified dimensions in model config for m hints that batching is unavailable"
    ]
    assert done.config.max_batch_size == 0 and not done.config.HasField("dynamic_batching")
    assert done.config.input[0].data_type == DataType.TYPE_FP32  # FixIO fills the missing type
    assert [list(o.dims) for o in done.config.output] == [[-1, 16]]


def test_tensorrt_contradicting_hints() -> None:
    given = GPU + ' input { name: "a" dims: [16] } input { name: "b" dims: [-1, 16] }'
    done = autocomplete_backend(config(given, "tensorrt"), ENGINE)
    assert done.errors == [
        "unable to autofill for 'm', model tensor configurations are contradicting each other "
        "in terms of whether batching is supported"
    ]


def test_tensorrt_unknown_configured_input() -> None:
    done = autocomplete_backend(config(GPU + ' input { name: "zz" }', "tensorrt"), ENGINE)
    assert done.errors == ["unexpected inference input 'zz', allowed inputs are: a, b"]


def test_tensorrt_scalar_gets_reshape_and_flags_come_from_the_engine() -> None:
    profile = Profile(0, {"x": ((1,), (2,), (4,))}, values={"shape": ((1, 1), (2, 2), (6, 8))})
    model = ModelIO(
        "tensorrt",
        Path("model.plan"),
        (tensor("shape", 2, is_shape_tensor=True), tensor("x", -1)),
        (tensor("y", -1, 4),),
        profiles=(profile,),
    )
    done = trt(model=model)
    assert done.max_batch_size == 4
    shape, x = done.input
    assert shape.is_shape_tensor and list(shape.dims) == [1]  # one value is the batch
    assert list(x.dims) == [1] and x.HasField("reshape")


def test_tensorrt_wrongly_flagged_shape_tensor() -> None:
    given = GPU + ' input { name: "a" dims: [16] is_shape_tensor: true }'
    done = autocomplete_backend(config(given, "tensorrt"), ENGINE)
    assert done.errors == ["'a' is incorrectly specified as a shape tensor."]


# ---------------------------------------------------------------------------------------------
# complete_model: core autofill, instance groups, backend, normalize again


def model_dir(root: Path, name: str, text: str | None, files: dict[str, bytes]) -> LoadedModel:
    folder = root / name
    (folder / "1").mkdir(parents=True)
    if text is not None:
        (folder / "config.pbtxt").write_text(text)
    for rel, data in files.items():
        (folder / rel).write_bytes(data)
    return load([folder]).models[0]


def onnx_bytes(
    inputs: list[tuple[str, list[int | str]]], outputs: list[tuple[str, list[int | str]]]
) -> bytes:
    """A tiny valid ONNX model: each output is Identity of the first input (types FP32)."""
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("Identity", [inputs[0][0]], [name]) for name, _ in outputs],
        "g",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in outputs],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return bytes(model.SerializeToString())


def read(loaded: LoadedModel) -> ModelIO | Unknowable | None:
    from tritoncfg.complete import complete_core
    from tritoncfg.models.locate import read_model_io

    message = loaded.config.message if loaded.config else None
    return read_model_io(loaded.dir, complete_core(message, loaded.dir).config)


@pytest.mark.parametrize(
    ("inputs", "outputs", "wanted"),
    [
        pytest.param(
            [("x", ["N", 4])],
            [("y", ["N", 4])],
            'max_batch_size: 4 input { name: "x" data_type: TYPE_FP32 dims: [4] } '
            'output { name: "y" data_type: TYPE_FP32 dims: [4] } '
            "dynamic_batching { preferred_batch_size: [4] }",
            id="dynamic-batch",
        ),
        pytest.param(
            [("x", [1, 4])],
            [("y", [1, 4])],
            'input { name: "x" data_type: TYPE_FP32 dims: [1, 4] } '
            'output { name: "y" data_type: TYPE_FP32 dims: [1, 4] }',
            id="static-batch",
        ),
        pytest.param(
            [("x", ["N"])],
            [("y", ["N"])],
            'max_batch_size: 4 input { name: "x" data_type: TYPE_FP32 dims: [1] reshape {} } '
            'output { name: "y" data_type: TYPE_FP32 dims: [1] reshape {} } '
            "dynamic_batching { preferred_batch_size: [4] }",
            id="scalar-output",
        ),
        pytest.param(
            [("x", ["N", 2])],
            [("y1", ["N", 2]), ("y0", ["N", 2])],
            'max_batch_size: 4 input { name: "x" data_type: TYPE_FP32 dims: [2] } '
            'output { name: "y1" data_type: TYPE_FP32 dims: [2] } '
            'output { name: "y0" data_type: TYPE_FP32 dims: [2] } '
            "dynamic_batching { preferred_batch_size: [4] }",
            id="multiple-outputs",
        ),
    ],
)
def test_complete_model_from_a_real_onnx_file(
    tmp_path: Path,
    inputs: list[tuple[str, list[int | str]]],
    outputs: list[tuple[str, list[int | str]]],
    wanted: str,
) -> None:
    loaded = model_dir(tmp_path, "m", None, {"1/model.onnx": onnx_bytes(inputs, outputs)})
    done = complete_model(loaded, model_io=read(loaded), gpus=(0,))
    assert done.ok, done.errors
    expected = text_format.Parse(
        'name: "m" platform: "onnxruntime_onnx" backend: "onnxruntime" '
        'default_model_filename: "model.onnx" version_policy { latest { num_versions: 1 } } '
        'instance_group { name: "m" kind: KIND_GPU count: 1 gpus: [0] } '
        "optimization { input_pinned_memory { enable: true } output_pinned_memory { enable: true } } "
        + wanted,
        ModelConfig(),
    )
    assert done.config == expected


def test_complete_model_without_gpus_is_a_cpu_host_and_says_so(tmp_path: Path) -> None:
    loaded = model_dir(
        tmp_path, "m", None, {"1/model.onnx": onnx_bytes([("x", [4])], [("y", [4])])}
    )
    done = complete_model(loaded, model_io=read(loaded), gpus=None)
    (group,) = done.config.instance_group
    assert (group.kind, group.count, list(group.gpus)) == (2, 2, [])  # KIND_CPU, 2 for ORT
    assert any("GPUs are unknown" in note for note in done.notes)


def test_complete_model_strict_mode_keeps_the_file_io(tmp_path: Path) -> None:
    loaded = model_dir(
        tmp_path,
        "m",
        'backend: "onnxruntime"',
        {"1/model.onnx": onnx_bytes([("x", [4])], [("y", [4])])},
    )
    done = complete_model(loaded, model_io=read(loaded), gpus=(), strict=True)
    assert not done.config.input and done.backend is None


def test_complete_model_backend_error_fails_the_load(tmp_path: Path) -> None:
    loaded = model_dir(
        tmp_path, "m", "max_batch_size: 8", {"1/model.onnx": onnx_bytes([("x", [4])], [("y", [4])])}
    )
    done = complete_model(loaded, model_io=read(loaded), gpus=(0,))
    assert not done.ok and "does not support batching" in done.errors[0]


def test_complete_model_unreadable_model_file_is_noted(tmp_path: Path) -> None:
    loaded = model_dir(tmp_path, "m", None, {"1/model.onnx": b"not onnx"})
    done = complete_model(loaded, model_io=read(loaded), gpus=(0,))
    assert done.ok and not done.config.input
    assert any(
        "would complete 'm' from its model file; not done here" in note for note in done.notes
    )


def test_complete_model_ensemble_is_decoupled_when_a_step_is(tmp_path: Path) -> None:
    step = 'backend: "python" model_transaction_policy { decoupled: true }'
    model_dir(tmp_path, "step", step, {})
    ensemble = model_dir(
        tmp_path,
        "ens",
        'platform: "ensemble" ensemble_scheduling { step { model_name: "step" model_version: -1 } }',
        {},
    )
    done = complete_model(ensemble, model_io=None, gpus=(0,))
    assert done.config.model_transaction_policy.decoupled
    assert not done.config.instance_group and not done.config.HasField("optimization")
