"""Discovery over real files: kinds, the detection-directory order of `AutoCompleteBackendFields`,
`GetModelConfigFullPath` config selection, `VersionsToLoad` versions."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tritoncfg.repository import Repository, discover, discover_many

Tree = Callable[..., Path]


def issue_kinds(repo: Repository) -> list[tuple[str, str]]:
    return [(i.kind, i.path.name) for i in repo.issues]


def test_spec_version_example_on_disk(tree: Tree) -> None:
    dirs = ["1abc/", "-3/", "01/", "0/", ".hidden/", "7/", "configs/", "warmup/"]
    model = tree("config.pbtxt", *dirs, base="repo/m")
    repo = discover(model)
    (m,) = repo.models
    assert m.version_numbers == (-3, 0, 1, 7)
    assert [(i.name, i.reason) for i in m.ignored_version_dirs] == [
        (".hidden", "ignore version directory '.hidden' which fails to convert to integral number"),
        ("01", "ignore version directory '01' which contains leading zeros in its directory name"),
    ]
    one = m.version(1)
    assert one is not None
    assert one.dirname == "1abc"
    assert not one.dirname_is_canonical
    assert one.loads_from == model / "1"  # Triton joins std::to_string(version)


def test_tn02_detection_dir_is_bytewise_first(tree: Tree) -> None:
    a = tree("10/", "2/model.onnx", base="repo/a")
    b = tree("1/model.onnx", ".ipynb_checkpoints/", base="repo/b")
    c = tree("configs/", "Zed/", "1/", "a/", base="repo/c")
    repo = discover(a.parent)
    by_name = {m.name: m for m in repo.models}
    assert by_name["a"].subdirs_sorted == ("10", "2")
    assert by_name["a"].detection_dir == a / "10"
    assert by_name["a"].detection_entries == ()
    assert by_name["b"].subdirs_sorted == (".ipynb_checkpoints", "1")
    assert by_name["b"].detection_dir == b / ".ipynb_checkpoints"
    assert by_name["c"].subdirs_sorted == ("1", "Zed", "a", "configs")
    assert by_name["c"].detection_dir == c / "1"


def test_version_entries(tree: Tree) -> None:
    model = tree("config.pbtxt", "1/model.savedmodel/", "1/model.plan", base="repo/m")
    (model / "1" / "model.plan").write_bytes(b"12345")
    (m,) = discover(model).models
    version = m.versions[0]
    assert version.has_dir("model.savedmodel") and not version.has_file("model.savedmodel")
    assert version.has_file("model.plan") and not version.has_dir("model.plan")
    plan = version.entry("model.plan")
    assert plan is not None and plan.size == 5 and not plan.is_symlink
    assert m.detection_entries == version.entries


def test_config_selection_with_config_name(tree: Tree) -> None:
    repo_dir = tree(
        "a/config.pbtxt", "a/configs/gpu.pbtxt", "a/configs/cpu.pbtxt", "a/configs/notes.txt",
        "b/config.pbtxt", "b/1/",
    )  # fmt: skip
    repo = discover(repo_dir, config_name="gpu")
    a, b = repo.models
    assert a.config_path == repo_dir / "a/configs/gpu.pbtxt"
    assert (a.config_name, a.config_exists) == ("gpu", True)
    assert a.alternative_configs == (
        repo_dir / "a/configs/cpu.pbtxt",
        repo_dir / "a/configs/gpu.pbtxt",
    )
    assert b.config_path == repo_dir / "b/config.pbtxt"
    assert (b.config_name, b.config_exists) == (None, True)
    assert ("config_name_not_found", "gpu.pbtxt") in issue_kinds(repo)
    default = discover(repo_dir).models[0]
    assert default.config_path == repo_dir / "a/config.pbtxt"


def test_repository_kind(tree: Tree) -> None:
    repo_dir = tree("a/config.pbtxt", "b/1/", "README.md")
    repo = discover(repo_dir)
    assert repo.kind == "repository"
    assert repo.root == repo_dir
    assert [m.name for m in repo.models] == ["a", "b"]
    assert repo.context_models == ()
    assert ("root_file", "README.md") in issue_kinds(repo)
    assert ("missing_config", "config.pbtxt") in issue_kinds(repo)


def test_model_dir_kind_keeps_siblings_as_context(tree: Tree) -> None:
    repo_dir = tree("ens/config.pbtxt", "ens/1/", "step/config.pbtxt", ".git/", "notes.txt")
    repo = discover(repo_dir / "ens")
    assert repo.kind == "model"
    assert repo.root == repo_dir
    assert [m.name for m in repo.models] == ["ens"]
    assert [m.name for m in repo.context_models] == [".git", "step"]
    assert repo.issues == ()  # the siblings' and the root's issues are not ours to report
    step = repo.model("step")
    assert step is not None and step.config_exists


def test_model_dir_detection_heuristics(tree: Tree) -> None:
    only_versions = tree("1/", base="r1/m")
    only_configs = tree("configs/x.pbtxt", base="r2/m")
    assert discover(only_versions).kind == "model"
    assert discover(only_configs).kind == "model"
    assert discover(only_versions.parent).kind == "repository"
    repo = discover(only_versions)
    assert issue_kinds(repo) == [("missing_config", "config.pbtxt")]


def test_single_config_file(tree: Tree) -> None:
    repo_dir = tree("m/config.pbtxt", "m/1/", "other/config.pbtxt")
    repo = discover(repo_dir / "m" / "config.pbtxt")
    assert repo.kind == "file"
    assert repo.root == repo_dir
    (m,) = repo.models
    assert (m.name, m.config_path, m.config_exists) == ("m", repo_dir / "m/config.pbtxt", True)
    assert [c.name for c in repo.context_models] == ["other"]


def test_single_alternative_config_file(tree: Tree) -> None:
    repo_dir = tree("m/config.pbtxt", "m/configs/x.pbtxt")
    (m,) = discover(repo_dir / "m/configs/x.pbtxt").models
    assert (m.name, m.config_name, m.config_exists) == ("m", "x", True)
    assert m.config_path == repo_dir / "m/configs/x.pbtxt"


def test_unconventional_config_file(tree: Tree) -> None:
    repo_dir = tree("bls/sync_config.pbtxt")
    repo = discover(repo_dir / "bls/sync_config.pbtxt")
    (m,) = repo.models
    assert (m.name, m.config_path.name, m.config_exists) == ("bls", "sync_config.pbtxt", True)
    assert issue_kinds(repo) == [("unconventional_config_file", "sync_config.pbtxt")]


def test_relative_paths(tree: Tree, monkeypatch: pytest.MonkeyPatch) -> None:
    repo_dir = tree("m/config.pbtxt")
    monkeypatch.chdir(repo_dir / "m")
    repo = discover("config.pbtxt")
    assert repo.root == repo_dir
    assert repo.models[0].name == "m"


def test_discover_many_merges_by_root(tree: Tree) -> None:
    repo_dir = tree("a/config.pbtxt", "b/config.pbtxt", "b/configs/x.pbtxt", "c/config.pbtxt")
    other = tree("z/config.pbtxt", base="other")
    repos = discover_many(
        [
            repo_dir / "a/config.pbtxt",
            repo_dir / "b/configs/x.pbtxt",
            repo_dir / "a/config.pbtxt",
            other / "z",
        ]
    )
    assert [r.root for r in repos] == sorted([repo_dir, other], key=str)
    merged = next(r for r in repos if r.root == repo_dir)
    assert merged.kind == "file"
    assert [(m.name, m.config_path.name) for m in merged.models] == [
        ("a", "config.pbtxt"),
        ("b", "x.pbtxt"),
    ]
    assert [m.name for m in merged.context_models] == ["c"]
    assert len(merged.inputs) == 2


def test_discover_many_repository_wins_and_keeps_explicit_configs(tree: Tree) -> None:
    repo_dir = tree("a/config.pbtxt", "a/configs/x.pbtxt", "b/config.pbtxt")
    (repo,) = discover_many([repo_dir / "a/configs/x.pbtxt", repo_dir])
    assert repo.kind == "repository"
    assert [(m.name, m.config_path.name) for m in repo.models] == [
        ("a", "config.pbtxt"),
        ("a", "x.pbtxt"),
        ("b", "config.pbtxt"),
    ]
    assert [m.name for m in repo.all_models] == ["a", "b"]


def test_not_a_directory(tmp_path: Path) -> None:
    repo = discover(tmp_path / "missing")
    assert repo.kind == "repository"
    assert repo.models == ()
    (issue,) = repo.issues
    assert (issue.kind, issue.detail) == (
        "not_a_directory",
        "repository path is not a valid directory",
    )


def test_hidden_dirs_are_models_and_recorded(tree: Tree) -> None:
    repo_dir = tree("m/config.pbtxt", ".git/HEAD", ".ipynb_checkpoints/")
    repo = discover(repo_dir)
    assert [m.name for m in repo.models] == [".git", ".ipynb_checkpoints", "m"]
    assert repo.models[0].is_hidden
    hidden = [i for i in repo.issues if i.kind == "hidden_model_dir"]
    assert [i.model for i in hidden] == [".git", ".ipynb_checkpoints"]
    assert "polled as a model" in hidden[0].detail


def test_warmup_and_initial_state_files(tree: Tree) -> None:
    model = tree(
        "config.pbtxt", "1/", "warmup/b.bin", "warmup/a.bin", "warmup/sub/",
        "initial_state/state0", base="repo/m",
    )  # fmt: skip
    (m,) = discover(model).models
    assert m.warmup_files == ("a.bin", "b.bin")
    assert m.initial_state_files == ("state0",)
    assert m.files_in_model_dir == ("config.pbtxt",)
    assert m.version_numbers == (1,)


def test_discovery_is_deterministic(tree: Tree) -> None:
    repo_dir = tree("b/config.pbtxt", "a/2/", "a/10/", "a/config.pbtxt", "c/")
    assert discover(repo_dir) == discover(repo_dir)
