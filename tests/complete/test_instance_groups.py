"""Instance-group normalization (`NormalizeInstanceGroup`) and version selection
(`model_lifecycle.cc`)."""

from __future__ import annotations

import pytest
from google.protobuf import text_format

from tritoncfg.complete.instance_groups import (
    KIND_AUTO,
    KIND_CPU,
    KIND_GPU,
    KIND_MODEL,
    NormalizedGroup,
    kind_name,
    normalize_instance_groups,
)
from tritoncfg.repository.version_selection import select_versions
from tritoncfg.schema import ModelConfig, ModelVersionPolicy


def config(text: str) -> ModelConfig:
    return text_format.Parse('name: "m"\n' + text, ModelConfig())


def groups(
    text: str, backend: str = "python", gpus: tuple[int, ...] | None = ()
) -> list[NormalizedGroup]:
    return normalize_instance_groups(config(text), backend, gpus)


def test_default_group_is_named_after_the_model() -> None:
    (group,) = groups("", gpus=())
    assert (group.index, group.name, group.kind, group.count, group.gpus) == (
        None,
        "m",
        KIND_CPU,
        1,
        (),
    )


def test_default_group_on_a_gpu_host_takes_every_gpu() -> None:
    (group,) = groups("", gpus=(1, 0))
    assert (group.kind, group.gpus, group.host_policies) == (KIND_GPU, (0, 1), ("gpu_0", "gpu_1"))


def test_default_group_of_openvino_is_cpu_even_with_gpus() -> None:
    (group,) = groups("", backend="openvino", gpus=(0,))
    assert (group.kind, group.count) == (KIND_CPU, 1)


def test_groups_without_names_get_model_and_index() -> None:
    named = groups('instance_group [ { name: "a" }, {}, { kind: KIND_CPU } ]')
    assert [g.name for g in named] == ["a", "m_1", "m_2"]


@pytest.mark.parametrize(
    ("gpus", "kind"),
    [((), KIND_CPU), ((0,), KIND_GPU), ((1,), KIND_CPU), (None, None)],
)
def test_kind_auto_with_gpus_depends_on_the_host(
    gpus: tuple[int, ...] | None, kind: int | None
) -> None:
    (group,) = groups("instance_group [ { gpus: [ 0 ] } ]", gpus=gpus)
    assert group.kind == kind
    assert group.gpus == (0,)  # the list is kept even when the group becomes KIND_CPU


def test_kind_auto_with_a_negative_gpu_is_cpu_on_every_host() -> None:
    (group,) = groups("instance_group [ { gpus: [ -1 ] } ]", gpus=None)
    assert group.kind == KIND_CPU


@pytest.mark.parametrize(
    ("backend", "kind", "count"),
    [
        ("onnxruntime", "KIND_CPU", 2),
        ("tensorflow", "KIND_CPU", 2),
        ("pytorch", "KIND_CPU", 1),
        ("onnxruntime", "KIND_GPU", 1),
        ("python", "KIND_MODEL", 1),
    ],
)
def test_count_default(backend: str, kind: str, count: int) -> None:
    (group,) = groups(f"instance_group [ {{ kind: {kind} count: -5 }} ]", backend, gpus=(0,))
    assert group.count == count
    assert group.instance_names == tuple(f"m_0_{k}" for k in range(count))


def test_count_of_kind_auto_is_unknown_when_the_host_is() -> None:
    (onnx,) = groups("instance_group [ {} ]", "onnxruntime", gpus=None)
    (python,) = groups("instance_group [ {} ]", "python", gpus=None)
    assert (onnx.kind, onnx.count, onnx.gpus, onnx.host_dependent) == (None, None, None, True)
    assert python.count == 1


def test_explicit_count_is_kept() -> None:
    (group,) = groups("instance_group [ { kind: KIND_CPU count: 3 } ]", "onnxruntime")
    assert group.count == 3


def test_kind_gpu_without_gpus_gets_all_or_unknown() -> None:
    text = "instance_group [ { kind: KIND_GPU } ]"
    assert groups(text, gpus=(2, 0))[0].gpus == (0, 2)
    assert groups(text, gpus=())[0].gpus == ()
    assert groups(text, gpus=None)[0].gpus is None


def test_host_policy_defaults_by_kind() -> None:
    text = 'instance_group [ { kind: KIND_CPU }, { kind: KIND_MODEL }, { kind: KIND_CPU host_policy: "numa0" } ]'
    assert [g.host_policies for g in groups(text)] == [("cpu",), ("model",), ("numa0",)]


def test_undefined_kind_is_kept() -> None:
    (group,) = groups("instance_group [ { kind: 7 } ]")
    assert (group.written_kind, group.kind, group.count) == (7, 7, 1)
    assert kind_name(7) == "7"
    assert kind_name(KIND_MODEL) == "KIND_MODEL"
    assert kind_name(KIND_AUTO) == "KIND_AUTO"


def test_ensembles_are_not_normalized() -> None:
    assert groups('platform: "ensemble" ensemble_scheduling { step [ { model_name: "a" } ] }') == []


def policy(text: str) -> ModelVersionPolicy:
    return text_format.Parse(text, ModelVersionPolicy())


@pytest.mark.parametrize(
    ("text", "selected"),
    [
        ("latest { num_versions: 2 }", (3, 7)),
        ("latest { num_versions: 9 }", (-3, 1, 3, 7)),
        ("latest {}", ()),
        ("all {}", (-3, 1, 3, 7)),
        ("", (-3, 1, 3, 7)),  # `version_policy {}` with no member set loads all
        ("specific { versions: [ 1, 7 ] }", (1, 7)),
    ],
)
def test_select_versions(text: str, selected: tuple[int, ...]) -> None:
    assert select_versions(policy(text), [7, 1, -3, 3]).selected == selected


def test_specific_versions_missing() -> None:
    selection = select_versions(policy("specific { versions: [ 2, 1, 5 ] }"), [1])
    assert (selection.selected, selection.missing) == ((1,), ((0, 2), (2, 5)))


def test_a_missing_version_listed_twice_is_selected_the_second_time() -> None:
    # Triton tests membership by inserting into the existing set (model_lifecycle.cc)
    selection = select_versions(policy("specific { versions: [ 4, 4 ] }"), [1])
    assert (selection.selected, selection.missing) == ((4,), ((0, 4),))
