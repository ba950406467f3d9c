"""`gen ensemble`: the tutorial pipeline of the corpus rebuilt, new directories, wiring refusals."""

from __future__ import annotations

from pathlib import Path

from clikit import run
from corpus import REAL_WORLD, copy_tree, require_corpus
from gen.genkit import comment_lines, errors, step_model
from models.onnxkit import FLOAT, make_onnx

from tritoncfg.api import lint
from tritoncfg.text import parse

PIPELINE = "tutorials/Conceptual_Guide/Part_5-Model_Ensembles/model_repository"
STEPS = [
    "detection_preprocessing",
    "text_detection",
    "detection_postprocessing",
    "text_recognition",
    "recognition_postprocessing",
]
ONNX_IO = {
    "text_detection": (
        [("input_images:0", FLOAT, ["b", "h", "w", 3])],
        [
            ("feature_fusion/Conv_7/Sigmoid:0", FLOAT, ["b", "h", "w", 1]),
            ("feature_fusion/concat_3:0", FLOAT, ["b", "h", "w", 5]),
        ],
    ),
    "text_recognition": (
        [("input.1", FLOAT, ["b", 1, 32, 100])],
        [("308", FLOAT, ["b", 26, 37])],
    ),
}


def _pipeline(repo: Path) -> Path:
    copy_tree(require_corpus(REAL_WORLD) / PIPELINE, repo)
    for step in STEPS:
        version = repo / step / "1"
        version.mkdir()
        if step in ONNX_IO:
            make_onnx(version / "model.onnx", *ONNX_IO[step])
        else:
            (version / "model.py").write_text("# never imported\n")
    assert run("fmt", str(repo)).returncode == 0
    return repo


def test_round_trip_rebuilds_the_tutorial_ensemble(tmp_path: Path) -> None:
    repo = _pipeline(tmp_path / "repo")
    config = repo / "ensemble_model" / "config.pbtxt"
    before = config.read_text()
    assert errors(repo) == []
    args = ["gen", "ensemble", "ensemble_model", "--repository", str(repo)]
    args += [f"--step={step}" for step in STEPS]
    shown = run(*args)
    assert shown.returncode == 0, shown.stderr
    assert config.read_text() == before and shown.stdout.startswith("--- ")
    written = run(*args, "--write")
    assert written.returncode == 0, written.stderr
    after = config.read_text()
    assert comment_lines(after) == comment_lines(before)  # the license header, byte for byte
    assert after.split("\nname:")[0] == before.split("\nname:")[0]
    result = lint(repo)
    assert result.files == 6 and not result.has_errors
    assert [d for d in result.diagnostics if d.code.startswith("TC5")] == []
    assert run("fmt", "--check", str(config)).returncode == 0
    message = parse(after).message
    assert message.max_batch_size == 256
    assert [t.name for t in message.input] == ["detection_preprocessing_input"]
    assert [t.name for t in message.output] == ["recognition_postprocessing_output"]
    steps = {s.model_name: s for s in message.ensemble_scheduling.step}
    assert dict(steps["text_detection"].input_map) == {
        "input_images:0": "detection_preprocessing_output"
    }
    assert dict(steps["detection_postprocessing"].input_map) == {
        "detection_postprocessing_input_1": "feature_fusion/Conv_7/Sigmoid:0",
        "detection_postprocessing_input_2": "feature_fusion/concat_3:0",
        "detection_postprocessing_input_3": "detection_preprocessing_output",
    }
    assert all(s.model_version == -1 for s in steps.values())


def test_new_ensemble_directory_with_the_smallest_max_batch_size(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    step_model(repo, "pre", [("RAW", ["b", 16])], [("FEATS", ["b", 8])], mbs=8)
    step_model(repo, "clf", [("x", ["b", 8])], [("logits", ["b", 3])], mbs=4)
    done = run(
        "gen",
        "ensemble",
        "pipe",
        "--step",
        "pre",
        "--step",
        "clf",
        "--repository",
        str(repo),
        "--write",
    )
    assert done.returncode == 0, done.stderr
    # git keeps no empty folder: the version folder holds a .gitkeep, so a clone has it
    assert [p.name for p in (repo / "pipe" / "1").iterdir()] == [".gitkeep"]
    message = parse((repo / "pipe" / "config.pbtxt").read_text()).message
    assert message.platform == "ensemble" and message.max_batch_size == 4
    assert dict(message.ensemble_scheduling.step[1].input_map) == {"x": "FEATS"}
    assert errors(repo) == []


def test_ambiguous_wiring_is_refused_and_map_resolves_it(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    step_model(repo, "split", [("RAW", ["b", 16])], [("A", ["b", 8]), ("B", ["b", 8])])
    step_model(repo, "head", [("x", ["b", 8])], [("y", ["b", 2])])
    args = [
        "gen",
        "ensemble",
        "pipe",
        "--step",
        "split",
        "--step",
        "head",
        "--repository",
        str(repo),
    ]
    done = run(*args, "--write")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "input 'x' of step 'head' matches 'A', 'B'" in done.stderr
    assert not (repo / "pipe").exists()
    mapped = run(*args, "--map", "head.x=B", "--write")
    assert mapped.returncode == 0, mapped.stderr
    message = parse((repo / "pipe" / "config.pbtxt").read_text()).message
    assert dict(message.ensemble_scheduling.step[1].input_map) == {"x": "B"}
    assert sorted(t.name for t in message.output) == ["A", "y"]
    assert errors(repo) == []


def test_a_cycle_is_refused_naming_the_tensors(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    step_model(repo, "a", [("Y", ["b", 4])], [("X", ["b", 4])])
    step_model(repo, "b", [("X", ["b", 4])], [("Y", ["b", 4])])
    done = run("gen", "ensemble", "loop", "--step", "a", "--step", "b", "--repository", str(repo))
    assert done.returncode == 1
    assert "cycle through the tensors 'X', 'Y'" in done.stderr


def test_usage_errors(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    step_model(repo, "a", [("X", ["b", 4])], [("Y", ["b", 4])])
    missing = run("gen", "ensemble", "e", "--step", "nope", "--repository", str(repo))
    assert missing.returncode == 2 and "no such file" in missing.stderr
    bad = run("gen", "ensemble", "../e", "--step", "a", "--repository", str(repo))
    assert bad.returncode == 2 and "ensemble name '../e' contains a path separator" in bad.stderr
    wrong = run("gen", "ensemble", "e", "--step", "a", "--map", "a.Z=T", "--repository", str(repo))
    assert wrong.returncode == 2 and "--map names no step input: a.Z" in wrong.stderr


def test_ensemble_names_follow_the_rule_new_applies(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    step_model(repo, "a", [("X", ["b", 4])], [("Y", ["b", 4])])
    for name, why in (("has space", "contains ' '"), (".e", "starts with '.'"), ("", "empty")):
        done = run("gen", "ensemble", name, "--step", "a", "--repository", str(repo))
        assert done.returncode == 2, (name, done.stdout)
        assert f"ensemble name {why}" in done.stderr or why in done.stderr, done.stderr
        assert "Traceback" not in done.stderr
        refused = run("new", str(tmp_path / "p"), "-m", name)
        assert refused.returncode == 2 and why in refused.stderr  # the same rule, the same words
    assert sorted(p.name for p in repo.iterdir()) == ["a"]


def test_an_empty_version_folder_gets_its_gitkeep_and_then_nothing_changes(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    step_model(repo, "pre", [("RAW", ["b", 16])], [("FEATS", ["b", 8])])
    step_model(repo, "clf", [("x", ["b", 8])], [("logits", ["b", 3])])
    args = ["gen", "ensemble", "pipe", "--step", "pre", "--step", "clf", "--repository", str(repo)]
    assert run(*args, "--write").returncode == 0
    (repo / "pipe" / "1" / ".gitkeep").unlink()  # as gen wrote it before: an empty folder
    shown = run(*args)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.endswith("pipe/1/.gitkeep (0 bytes)\n"), shown.stdout
    assert run(*args, "--write").returncode == 0
    assert (repo / "pipe" / "1" / ".gitkeep").read_bytes() == b""
    again = run(*args, "--write")
    assert again.returncode == 0 and "already as generated; nothing to change" in again.stderr


def test_the_name_of_an_existing_model_is_refused(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    step_model(repo, "pre", [("RAW", ["b", 4])], [("X", ["b", 4])])
    step_model(repo, "classifier", [("X", ["b", 4])], [("Y", ["b", 4])])
    before = (repo / "classifier" / "config.pbtxt").read_text()
    done = run("gen", "ensemble", "classifier", "--step", "pre", "--repository", str(repo))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "model 'classifier' exists and is not an ensemble (backend 'onnxruntime')" in (
        done.stderr
    )
    assert "internal error" not in done.stderr
    (repo / "bare" / "1").mkdir(parents=True)  # a model left to auto-complete: no config file
    make_onnx(
        repo / "bare" / "1" / "model.onnx", [("X", FLOAT, ["b", 4])], [("Z", FLOAT, ["b", 4])]
    )
    bare = run("gen", "ensemble", "bare", "--step", "pre", "--repository", str(repo), "--write")
    assert bare.returncode == 2 and "a model directory of the repository already" in bare.stderr
    assert (repo / "classifier" / "config.pbtxt").read_text() == before
    assert not (repo / "bare" / "config.pbtxt").exists()


def test_a_model_may_be_two_steps(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    step_model(repo, "norm", [("RAW", ["b", 4])], [("X", ["b", 4])])
    step_model(repo, "proj", [("X", ["b", 4])], [("Y", ["b", 4])])
    steps = ("--step", "norm", "--step", "proj", "--step", "norm", "--map", "norm.RAW=RAW")
    done = run("gen", "ensemble", "pipe", *steps, "--repository", str(repo), "--write")
    assert done.returncode == 0, done.stderr
    message = parse((repo / "pipe" / "config.pbtxt").read_text()).message
    used = [(s.model_name, dict(s.output_map)) for s in message.ensemble_scheduling.step]
    assert used == [("norm", {"X": "X"}), ("norm", {"X": "norm_X"}), ("proj", {"Y": "Y"})]
    assert sorted(t.name for t in message.output) == ["Y", "norm_X"]
    assert errors(repo) == []
