"""Generators merge into what the config has: options not given keep their values, comments on
the fields not changed stay, a changed field's trailing comment goes, a no-op changes nothing."""

from __future__ import annotations

from pathlib import Path

from clikit import run
from gen.genkit import errors

from tritoncfg.text import parse

TENSORRT = """\
name: "trt"
platform: "tensorrt_plan"
max_batch_size: 8
input [
  {
    name: "IN"
    data_type: TYPE_FP32
    dims: [ 4 ]
  }
]
output [
  {
    name: "OUT"
    data_type: TYPE_FP32
    dims: [ 4 ]
  }
]
instance_group [
  {
    # two per GPU to overlap copies
    count: 2  # measured on A100
    kind: KIND_GPU
    profile: [ "1" ]  # the batch-8 engine profile
  }
]
dynamic_batching {
  # fill batches a little
  max_queue_delay_microseconds: 100  # from perf_analyzer
}
"""


def _tensorrt(repo: Path) -> Path:
    """A TensorRT model that lints without errors here (its plan is not inspected)."""
    model = repo / "trt"
    (model / "1").mkdir(parents=True)
    (model / "1" / "model.plan").write_bytes(b"plan")
    (model / "config.pbtxt").write_text(TENSORRT)
    assert errors(model) == []
    return model


def test_instance_group_count_keeps_the_profile_and_the_comments(tmp_path: Path) -> None:
    model = _tensorrt(tmp_path / "repo")
    done = run("gen", "instance-group", str(model), "--count", "1", "--write")
    assert done.returncode == 0, done.stderr
    after = (model / "config.pbtxt").read_text()
    (group,) = parse(after).message.instance_group
    assert (group.count, list(group.profile)) == (1, ["1"])
    assert after == TENSORRT.replace("count: 2  # measured on A100", "count: 1")
    assert errors(model) == []


def test_dynamic_batching_keeps_the_comments_of_the_fields_it_keeps(tmp_path: Path) -> None:
    model = _tensorrt(tmp_path / "repo")
    args = ("--preferred", "4", "--max-queue-delay-us", "200", "--write")
    done = run("gen", "dynamic-batching", str(model), *args)
    assert done.returncode == 0, done.stderr
    after = (model / "config.pbtxt").read_text()
    assert after.startswith(TENSORRT[: TENSORRT.index("dynamic_batching")])  # byte for byte
    assert "  # fill batches a little\n  max_queue_delay_microseconds: 200\n" in after
    assert "from perf_analyzer" not in after  # it described the old value
    assert list(parse(after).message.dynamic_batching.preferred_batch_size) == [4]


def test_gpus_make_a_cpu_group_a_gpu_group_and_keep_its_count(tmp_path: Path) -> None:
    model = _tensorrt(tmp_path / "repo")
    config = model / "config.pbtxt"
    config.write_text(TENSORRT.replace("KIND_GPU", "KIND_CPU").replace('    profile: [ "1" ]', ""))
    done = run("gen", "instance-group", str(model), "--gpus", "0,1", "--per-gpu")
    assert done.returncode == 0, done.stderr
    assert "KIND_GPU group" in done.stderr and "4 in all" in done.stderr
    done = run("gen", "instance-group", str(model), "--gpus", "0,1", "--per-gpu", "--write")
    assert done.returncode == 0, done.stderr
    groups = parse(config.read_text()).message.instance_group
    assert [(g.count, list(g.gpus)) for g in groups] == [(2, [0]), (2, [1])]
    again = run("gen", "instance-group", str(model), "--gpus", "0,1", "--per-gpu", "--write")
    assert again.returncode == 0 and "nothing to change" in again.stderr  # not 4 groups


def test_a_no_op_changes_nothing_and_says_so(tmp_path: Path) -> None:
    model = _tensorrt(tmp_path / "repo")
    for args in (("dynamic-batching",), ("instance-group",), ("instance-group", "--count", "2")):
        done = run("gen", *args, str(model))
        assert done.returncode == 0, done.stderr
        assert done.stdout == "" and "nothing to change" in done.stderr
    assert (model / "config.pbtxt").read_text() == TENSORRT


def test_warmup_data_written_before_is_no_change(tmp_path: Path) -> None:
    model = _tensorrt(tmp_path / "repo")
    args = ("gen", "warmup", str(model), "--data", "random", "--data-dir", "--write")
    first = run(*args)
    assert first.returncode == 0 and "wrote" in first.stderr, first.stderr
    data = (model / "warmup" / "IN.bin").read_bytes()
    again = run(*args)
    assert again.returncode == 0 and "nothing to change" in again.stderr, again.stderr
    (model / "warmup" / "IN.bin").write_bytes(b"\0" * len(data))  # edited: written again
    third = run(*args)
    assert third.returncode == 0 and "wrote" in third.stderr
    assert (model / "warmup" / "IN.bin").read_bytes() == data


def test_groups_added_and_removed_keep_the_comments_of_the_first(tmp_path: Path) -> None:
    model = _tensorrt(tmp_path / "repo")
    config = model / "config.pbtxt"
    split = run("gen", "instance-group", str(model), "--gpus", "0,1", "--per-gpu", "--write")
    assert split.returncode == 0, split.stderr
    groups = parse(config.read_text()).message.instance_group
    assert [(g.count, list(g.gpus), list(g.profile)) for g in groups] == [
        (2, [0], ["1"]),
        (2, [1], ["1"]),
    ]
    assert "    count: 2  # measured on A100\n" in config.read_text()
    joined = run("gen", "instance-group", str(model), "--gpus", "0", "--write")
    assert joined.returncode == 0, joined.stderr
    expected = TENSORRT.replace('    profile: [ "1" ]  # the batch-8 engine profile\n', "")
    expected = expected.replace("    kind: KIND_GPU\n", "")
    after = config.read_text()
    for line in expected.splitlines():
        assert line in after.splitlines()  # every line kept, comments included
    assert [list(g.gpus) for g in parse(after).message.instance_group] == [[0]]
    assert run("fmt", "--check", str(config)).returncode == 0
    assert errors(model) == []
