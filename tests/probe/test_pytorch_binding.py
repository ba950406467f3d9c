"""Binding a config to a TorchScript model's forward() as Triton's PyTorch backend does
(`pytorch_backend` `src/pt/model_instance_state.cc`), on real `torch.jit` schemas, and the runner
run in process on the bound inputs."""

from __future__ import annotations

from pathlib import Path

import pytest
from google.protobuf import text_format

from tritoncfg.probe.contract import ProbeSettings, RunnerError, TestPoint
from tritoncfg.probe.runners.pytorch import PyTorchRunner
from tritoncfg.probe.runners.pytorch_binding import (
    DICTIONARY,
    FORWARD_ARGUMENT,
    NAMED_INDEX,
    STRICT_CONFIG_ORDERING,
    Argument,
    bind,
)
from tritoncfg.schema import ModelConfig

torch = pytest.importorskip("torch")

import numpy as np  # noqa: E402
from probe.torchkit import Double, TwoTypes, indexed_model, save, two_types_model  # noqa: E402

SELF = Argument("self", "ClassType")


def config(text: str) -> ModelConfig:
    return text_format.Parse(text, ModelConfig())


def tensors(*names: str) -> list[Argument]:
    return [SELF, *(Argument(n, "TensorType") for n in names)]


def io(inputs: list[str], outputs: list[str], extra: str = "") -> ModelConfig:
    ins = ", ".join(f'{{ name: "{n}" data_type: TYPE_FP32 dims: [ 4 ] }}' for n in inputs)
    outs = ", ".join(f'{{ name: "{n}" data_type: TYPE_FP32 dims: [ 4 ] }}' for n in outputs)
    return config(f'name: "m" input [ {ins} ] output [ {outs} ] {extra}')


def test_forward_argument_names_win_over_the_configs_order() -> None:
    binding = bind(io(["b", "a"], ["y"]), tensors("a", "b"))
    assert binding.input_convention == FORWARD_ARGUMENT
    assert binding.inputs == {"b": 1, "a": 0}


def test_named_index_places_each_input_at_its_index() -> None:
    binding = bind(io(["x__1", "x__0"], ["out__1", "out__0"]), tensors("p", "q"))
    assert binding.input_convention == NAMED_INDEX and binding.inputs == {"x__1": 1, "x__0": 0}
    assert binding.output_convention == NAMED_INDEX
    assert binding.outputs == {"out__1": 1, "out__0": 0}


def test_other_names_follow_the_configs_order() -> None:
    binding = bind(io(["b", "x__9z"], ["y", "z"]), tensors("p", "q"))
    assert binding.input_convention == STRICT_CONFIG_ORDERING
    assert binding.inputs == {"b": 0, "x__9z": 1}
    assert binding.output_convention == STRICT_CONFIG_ORDERING
    assert binding.outputs == {"y": 0, "z": 1}


def test_an_empty_index_reads_as_zero_as_atoi_reads_it() -> None:
    assert bind(io(["x__"], ["y__"]), tensors("p")).inputs == {"x__": 0}


def test_a_dictionary_input_takes_every_input_by_name() -> None:
    binding = bind(io(["b", "a"], ["y"]), [SELF, Argument("inputs", "DictType")])
    assert binding.as_dict and binding.input_convention == DICTIONARY
    assert list(binding.inputs) == ["b", "a"]


def test_sequence_controls_take_their_index_and_count_as_arguments() -> None:
    extra = (
        'sequence_batching { control_input [ { name: "START__1" control [ { kind: '
        "CONTROL_SEQUENCE_START fp32_false_true: [ 0, 1 ] } ] } ] }"
    )
    binding = bind(io(["x__0"], ["y__0"], extra), tensors("x", "start"))
    assert binding.inputs == {"x__0": 0, "START__1": 1}
    with pytest.raises(RunnerError, match="configuration expects 2 inputs, model provides 1"):
        bind(io(["x__0"], ["y__0"], extra), tensors("x"))


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (tensors("a", "b"), "configuration expects 1 inputs, model provides 2"),
        (
            [SELF, Argument("a", "TensorType"), Argument("d", "DictType")],
            "Multiple inputs of kind DictType were detected",
        ),
        ([SELF, Argument("k", "IntType")], "An input of type 'IntType' was detected"),
    ],
)
def test_what_the_backend_refuses_is_refused_with_its_message(
    arguments: list[Argument], message: str
) -> None:
    with pytest.raises(RunnerError, match=message) as caught:
        bind(io(["a"], ["y"]), arguments)
    assert str(caught.value).startswith("Triton would not load it: ")
    assert str(caught.value).endswith("(pytorch backend)")


def test_a_type_torch_has_no_tensor_for_is_refused() -> None:
    model = config(
        'name: "m" input [ { name: "a" data_type: TYPE_UINT32 dims: [ 4 ] } ] '
        'output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]'
    )
    with pytest.raises(RunnerError, match="unsupported datatype TYPE_UINT32 for input 'a'"):
        bind(model, tensors("a"))


def test_a_real_scripted_and_traced_schema_binds(tmp_path: Path) -> None:
    """Argument names and kinds as torch reports them, `self` first."""
    example = (torch.ones(2, 3, dtype=torch.int64), torch.ones(2, 3))
    path = save(lambda: torch.jit.trace(TwoTypes(), example), tmp_path / "model.pt")
    loaded = torch.jit.load(str(path))
    arguments = [Argument(a.name, a.type.kind()) for a in loaded.forward.schema.arguments]
    assert arguments == tensors("ids", "scale")
    assert bind(io(["scale", "ids"], ["y"]), arguments).inputs == {"scale": 1, "ids": 0}


def test_the_runner_feeds_each_input_to_its_argument_and_picks_the_outputs(
    tmp_path: Path,
) -> None:
    model = two_types_model(tmp_path)
    runner = PyTorchRunner(ProbeSettings())
    runner.load(model / "1" / "model.pt", config((model / "config.pbtxt").read_text()))
    ids = np.array([[1, 2, 3]], dtype=np.int64)
    scale = np.array([[0.5, 0.5, 2.0]], dtype=np.float32)
    point = TestPoint(1, {"scale": (1, 3), "ids": (1, 3)})
    out = runner.run(point, {"scale": scale, "ids": ids}).outputs
    np.testing.assert_array_equal(out["product"], [[0.5, 1.0, 6.0]])
    np.testing.assert_array_equal(out["next_ids"], [[2, 3, 4]])
    assert out["product"].dtype == np.float32 and out["next_ids"].dtype == np.int64
    runner.close()


def test_an_output_index_the_model_does_not_have_fails_with_the_backends_message(
    tmp_path: Path,
) -> None:
    model = indexed_model(tmp_path, "m", Double())
    text = (model / "config.pbtxt").read_text().replace('"OUTPUT__0"', '"OUTPUT__3"')
    runner = PyTorchRunner(ProbeSettings())
    runner.load(model / "1" / "model.pt", config(text))
    with pytest.raises(RunnerError, match="The output OUTPUT__3 in the model configuration "):
        runner.run(TestPoint(1, {"INPUT__0": (1, 4)}), {"INPUT__0": np.ones((1, 4), "float32")})


def test_parameters_the_backend_reads_are_applied_and_reported(tmp_path: Path) -> None:
    model = indexed_model(tmp_path, "m", Double())
    text = (model / "config.pbtxt").read_text() + (
        'parameters { key: "INFERENCE_MODE" value: { string_value: "false" } }\n'
        'parameters { key: "DISABLE_OPTIMIZED_EXECUTION" value: { string_value: "true" } }\n'
    )
    runner = PyTorchRunner(ProbeSettings())
    runner.load(model / "1" / "model.pt", config(text))
    options = runner.describe()["options"]
    assert options["inference_mode"] is False and options["optimized_execution"] is False
    bad = text.replace('string_value: "false"', 'string_value: "maybe"')
    with pytest.raises(RunnerError, match="parameters 'INFERENCE_MODE' is 'maybe', not a bool"):
        PyTorchRunner(ProbeSettings()).load(model / "1" / "model.pt", config(bad))


def test_an_output_of_another_type_than_declared_fails_the_point(tmp_path: Path) -> None:
    """The outputs are checked against the config like any runner's (execute.check_outputs)."""
    from tritoncfg.probe.execute import run_point

    model = two_types_model(tmp_path)
    text = (
        (model / "config.pbtxt")
        .read_text()
        .replace('"next_ids" data_type: TYPE_INT64', '"next_ids" data_type: TYPE_INT32')
    )
    runner = PyTorchRunner(ProbeSettings())
    runner.load(model / "1" / "model.pt", config(text))
    point = TestPoint(2, {"scale": (2, 3), "ids": (2, 3)})
    inputs = {"scale": np.ones((2, 3), np.float32), "ids": np.ones((2, 3), np.int64)}
    result = run_point(runner, config(text), point, inputs, ProbeSettings(timed_runs=1))
    assert result.status == "FAIL"
    assert result.reason == "output 'next_ids' is TYPE_INT64, the config declares TYPE_INT32"
