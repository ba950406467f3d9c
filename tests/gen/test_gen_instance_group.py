"""`gen instance-group`: round trips on corpus models, placements, refusals, --gpu-memory."""

from __future__ import annotations

from pathlib import Path

import pytest
from clikit import run
from gen.genkit import ONNX_MODEL, PYTHON_MODEL, corpus_model, errors, round_trip

from tritoncfg.schema import ModelInstanceGroup
from tritoncfg.text import parse


@pytest.mark.parametrize("rel", [PYTHON_MODEL, ONNX_MODEL])
def test_round_trip_one_group_per_gpu(rel: str, tmp_path: Path) -> None:
    model = corpus_model(rel, tmp_path / "repo")
    args = ("instance-group", "--count", "2", "--gpus", "0,1", "--per-gpu")
    _, after = round_trip(model, *args)
    groups = parse(after).message.instance_group
    assert [(g.kind, g.count, list(g.gpus)) for g in groups] == [
        (ModelInstanceGroup.KIND_GPU, 2, [0]),
        (ModelInstanceGroup.KIND_GPU, 2, [1]),
    ]


def test_one_group_spanning_gpus_with_rate_limiter(tmp_path: Path) -> None:
    model = corpus_model(PYTHON_MODEL, tmp_path / "repo")
    args = (
        "instance-group",
        "--gpus",
        "0,1",
        "--resource",
        "R1:2",
        "--resource",
        "R2:1:global",
        "--priority",
        "2",
    )
    _, after = round_trip(model, *args)
    (group,) = parse(after).message.instance_group
    assert list(group.gpus) == [0, 1]
    resources = [(r.name, r.count, getattr(r, "global")) for r in group.rate_limiter.resources]
    assert resources == [("R1", 2, False), ("R2", 1, True)]
    assert group.rate_limiter.priority == 2


def test_a_gpu_group_without_gpus_is_explained(tmp_path: Path) -> None:
    model = corpus_model(PYTHON_MODEL, tmp_path / "repo")
    done = run("gen", "instance-group", str(model), "--kind", "gpu", "--count", "3")
    assert done.returncode == 0, done.stderr
    assert "every GPU of the host" in done.stderr
    assert "+    count: 3\n" in done.stdout and "gpus:" not in done.stdout


def test_cpu_group(tmp_path: Path) -> None:
    model = corpus_model(ONNX_MODEL, tmp_path / "repo")
    _, after = round_trip(model, "instance-group", "--kind", "cpu", "--count", "4")
    (group,) = parse(after).message.instance_group
    assert (group.kind, group.count, list(group.gpus)) == (ModelInstanceGroup.KIND_CPU, 4, [])


@pytest.mark.parametrize(
    ("args", "message", "status"),
    [
        (("--kind", "cpu", "--gpus", "0"), "a KIND_CPU group with gpus is refused", 1),
        (("--kind", "auto", "--gpus", "0"), "falls back to KIND_CPU", 1),
        (("--profile", "0"), "only supported for TensorRT models", 1),
        # usage errors: exit 2, as every command's
        (("--count", "0"), "count 0 means Triton's default", 2),
        (("--per-gpu",), "--per-gpu needs --gpus", 2),
        (("--profile", "x"), "invalid profile 'x'", 2),
        (("--resource", "R"), "--resource expects NAME:COUNT", 2),
        (("--gpu-memory", "lots"), "--gpu-memory:", 2),
    ],
)
def test_refusals(args: tuple[str, ...], message: str, status: int, tmp_path: Path) -> None:
    model = corpus_model(PYTHON_MODEL, tmp_path / "repo")
    before = (model / "config.pbtxt").read_text()
    done = run("gen", "instance-group", str(model), *args, "--write")
    assert done.returncode == status, done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr
    assert (model / "config.pbtxt").read_text() == before


def test_gpu_memory_refuses_a_count_whose_weights_do_not_fit(tmp_path: Path) -> None:
    from models.onnxkit import make_weighty

    model = tmp_path / "repo" / "big"
    make_weighty(model)  # 4 MiB of weights per instance
    (model / "config.pbtxt").write_text('backend: "onnxruntime"\nmax_batch_size: 8\n')
    assert errors(model) == []
    done = run("gen", "instance-group", str(model), "--count", "2", "--gpu-memory", "6MiB")
    assert done.returncode == 1
    assert "warning: TC914" in done.stderr and "nothing written" in done.stderr
    # a warning that blocks says why it does
    assert "TC914 (warning): the gpu-memory given" in done.stderr
    fits = run(
        "gen", "instance-group", str(model), "--count", "1", "--gpu-memory", "6MiB", "--write"
    )
    assert fits.returncode == 0, fits.stderr
    assert parse((model / "config.pbtxt").read_text()).message.instance_group[0].count == 1


def test_the_settings_gpu_memory_applies_and_the_option_wins(tmp_path: Path) -> None:
    from models.onnxkit import make_weighty

    model = tmp_path / "repo" / "big"
    make_weighty(model)  # 4 MiB of weights per instance
    (model / "config.pbtxt").write_text('backend: "onnxruntime"\nmax_batch_size: 8\n')
    (tmp_path / "tritoncfg.toml").write_text('gpu-memory = "6MiB"\n')
    assert errors(model) == []
    done = run("gen", "instance-group", str(model), "--count", "2")
    assert done.returncode == 1 and "TC914" in done.stderr  # as `tritoncfg lint` would find
    roomy = run("gen", "instance-group", str(model), "--count", "2", "--gpu-memory", "80GiB")
    assert roomy.returncode == 0, roomy.stderr
