"""The edit flow every generator shares: fields replaced in place or appended, comments kept."""

from __future__ import annotations

from pathlib import Path

import pytest
from clikit import run

from tritoncfg.gen.change import Change, GenError
from tritoncfg.gen.field_update import set_fields
from tritoncfg.gen.instance_group import GroupRequest, build
from tritoncfg.schema import ModelConfig, ModelInstanceGroup
from tritoncfg.text import parse

SOURCE = """\
# header
name: "m"  # the name
max_batch_size: 4
instance_group { count: 2 kind: KIND_GPU }  # first
# between
instance_group { count: 1 kind: KIND_CPU }
# trailing comment at the end"""


def _groups(count: int) -> ModelConfig:
    wanted = ModelConfig()
    wanted.instance_group.add(kind=ModelInstanceGroup.KIND_CPU, count=count)
    return wanted


def test_repeated_blocks_are_replaced_by_one_list_in_the_first_place() -> None:
    # two groups become one: the list is replaced, and its trailing comment (on the old value)
    # goes with it; comment lines stay
    text = set_fields(parse(SOURCE), _groups(3), ("instance_group",))
    assert text == (
        "# header\n"
        'name: "m"  # the name\n'
        "max_batch_size: 4\n"
        "instance_group [\n  {\n    count: 3\n    kind: KIND_CPU\n  }\n]\n"
        "# between\n"
        "# trailing comment at the end"
    )
    assert list(parse(text).message.instance_group) == list(_groups(3).instance_group)


def test_a_missing_field_is_appended_after_the_last_field() -> None:
    wanted = ModelConfig()
    wanted.dynamic_batching.max_queue_delay_microseconds = 100
    text = set_fields(parse(SOURCE), wanted, ("dynamic_batching",))
    assert text.startswith(SOURCE[: SOURCE.index("# trailing")])  # byte for byte up to there
    assert "dynamic_batching {\n  max_queue_delay_microseconds: 100\n}\n" in text
    assert text.index("dynamic_batching") < text.index("# trailing comment at the end")
    assert parse(text).message.dynamic_batching.max_queue_delay_microseconds == 100


def test_a_config_that_does_not_parse_is_refused_with_its_position() -> None:
    with pytest.raises(GenError, match=r"c.pbtxt:3:1: Expected a value"):
        set_fields(
            parse('name: "m"\nmax_batch_size: [\n', "c.pbtxt"), _groups(1), ("instance_group",)
        )


def test_diff_of_a_new_file_and_nothing_to_change(tmp_path: Path) -> None:
    change = Change(tmp_path / "c.pbtxt", "", 'name: "m"\n')
    assert change.diff().startswith("--- /dev/null\n")
    model = tmp_path / "repo" / "m"
    (model / "1").mkdir(parents=True)
    (model / "1" / "model.py").write_text("# never imported\n")
    (model / "config.pbtxt").write_text('backend: "python"\nmax_batch_size: 4\n')
    assert run("gen", "dynamic-batching", str(model), "--write").returncode == 0
    again = run("gen", "dynamic-batching", str(model), "--write")
    assert again.returncode == 0 and "nothing to change" in again.stderr and again.stdout == ""


def test_tensorrt_groups_take_profiles_and_nvdla_cores() -> None:
    config = ModelConfig(platform="tensorrt_plan", max_batch_size=8)
    request = GroupRequest(
        count=1, gpus=(0, 1), per_gpu=True, profiles=("0", "1"), secondary_devices=(0,)
    )
    groups = build(request, config, "m")
    assert [list(g.gpus) for g in groups] == [[0], [1]]
    assert all(list(g.profile) == ["0", "1"] for g in groups)
    assert [d.device_id for d in groups[0].secondary_devices] == [0]
    with pytest.raises(GenError, match="non-negative integer"):
        build(GroupRequest(profiles=("-1",)), config, "m")
    with pytest.raises(GenError, match="ensemble"):
        build(GroupRequest(), ModelConfig(platform="ensemble"), "e")


NESTED = """\
name: "m"
instance_group [
  {
    # first group
    count: 2  # two
    kind: KIND_GPU
    profile: [ "1" ]  # engine profile
  }
]
dynamic_batching { }  # on
"""


def test_only_the_fields_that_differ_are_edited() -> None:
    parsed = parse(NESTED)
    wanted = ModelConfig()
    wanted.CopyFrom(parsed.message)
    del wanted.instance_group[0].profile[:]
    wanted.dynamic_batching.max_queue_delay_microseconds = 50
    text = set_fields(parsed, wanted, ("instance_group", "dynamic_batching"))
    assert text == NESTED.replace('    profile: [ "1" ]  # engine profile\n', "").replace(
        "dynamic_batching { }  # on",
        "dynamic_batching {\n  max_queue_delay_microseconds: 50\n}  # on",
    )
    assert set_fields(parsed, parsed.message, ("instance_group", "dynamic_batching")) == NESTED


def test_an_empty_value_clears_an_instance_group_field() -> None:
    config = parse(NESTED).message
    config.platform = "tensorrt_plan"
    (group,) = build(GroupRequest(profiles=(), gpus=()), config, "m")
    assert (group.count, list(group.profile), list(group.gpus)) == (2, [], [])
