"""The lint cache: an unchanged re-lint lints nothing again; a change re-lints its dependents."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from scalekit import config, dependents, model_name, write_repository

from tritoncfg.api import lint
from tritoncfg.checks import LintOptions
from tritoncfg.checks.core.selection import PathFilters, RuleSelection
from tritoncfg.lintcache import _CODE_STAMPS, PACKAGE, code_stamp, run_key
from tritoncfg.lintrun import LintJob

MODELS = 120


def _cache(tmp_path: Path) -> Path:
    return tmp_path / ".tritoncfg_cache"


def test_an_unchanged_relint_comes_from_the_cache(tmp_path: Path) -> None:
    root = write_repository(tmp_path / "repo", MODELS)
    first = lint(root, cache_dir=_cache(tmp_path))
    second = lint(root, cache_dir=_cache(tmp_path))

    assert len(first.relinted) == MODELS
    assert second.relinted == []
    assert second.diagnostics == first.diagnostics == lint(root).diagnostics
    assert any(d.fix is not None for d in second.diagnostics)  # fixes survive the round trip
    assert second.sources == first.sources and second.file_paths == first.file_paths
    assert (second.files, second.models) == (first.files, first.models)
    assert (_cache(tmp_path) / ".gitignore").is_file()


def test_a_changed_model_relints_it_and_its_dependents_only(tmp_path: Path) -> None:
    root = write_repository(tmp_path / "repo", MODELS)
    lint(root, cache_dir=_cache(tmp_path))
    changed = 1
    assert dependents(changed, MODELS) == {model_name(0)}  # the ensemble m0000 steps into it
    config_file = root / model_name(changed) / "config.pbtxt"
    config_file.write_text(config(changed, MODELS).replace("dims: [ 4 ]", "dims: [ 5 ]", 1))

    again = lint(root, cache_dir=_cache(tmp_path))

    assert sorted(again.relinted) == [model_name(0), model_name(changed)]
    assert again.diagnostics == lint(root).diagnostics
    assert any(d.model == model_name(0) and d.code.startswith("TC5") for d in again.diagnostics)


def test_a_new_step_model_relints_the_ensembles_that_named_it(tmp_path: Path) -> None:
    root = write_repository(tmp_path / "repo", MODELS)
    lint(root, cache_dir=_cache(tmp_path))
    (root / "missing_step" / "1").mkdir(parents=True)
    (root / "missing_step" / "config.pbtxt").write_text(config(1, MODELS))

    again = lint(root, cache_dir=_cache(tmp_path))

    namers = {model_name(i) for i in range(0, MODELS, 30)}
    assert set(again.relinted) == namers | {"missing_step"}
    assert again.diagnostics == lint(root).diagnostics


def test_other_options_do_not_reuse_the_cache(tmp_path: Path) -> None:
    root = write_repository(tmp_path / "repo", 20)
    lint(root, cache_dir=_cache(tmp_path))
    strict = lint(root, LintOptions(triton_mode="strict"), cache_dir=_cache(tmp_path))
    assert len(strict.relinted) == 20


def test_a_corrupt_cache_is_ignored(tmp_path: Path) -> None:
    root = write_repository(tmp_path / "repo", 20)
    expected = lint(root, cache_dir=_cache(tmp_path)).diagnostics
    (replay_file,) = _cache(tmp_path).glob("replay-*.json")
    replay_file.write_bytes(b"[1, 2")  # a damaged replay: the model-by-model cache answers
    (cache_file,) = _cache(tmp_path).glob("lint-*.json")
    content = json.loads(cache_file.read_text())
    entry = next(k for k in content["models"] if f"{model_name(5)}\0" in k)
    content["models"][entry]["diagnostics"] = [["TC203", "oops"]]  # a damaged entry
    cache_file.write_text(json.dumps(content))

    damaged_entry = lint(root, cache_dir=_cache(tmp_path))
    assert damaged_entry.relinted == [model_name(5)]
    assert damaged_entry.diagnostics == expected

    cache_file.write_bytes(b"\x00{not json")
    unreadable = lint(root, cache_dir=_cache(tmp_path))
    assert len(unreadable.relinted) == 20
    assert unreadable.diagnostics == expected


def test_cli_caches_unless_told_not_to(tmp_path: Path) -> None:
    from clikit import run

    root = write_repository(tmp_path / "repo", 14)
    plain = run("lint", str(root), "--no-cache", "--format", "json", cwd=tmp_path)
    assert plain.returncode == 1, plain.stderr
    assert not _cache(tmp_path).exists()

    first = run("lint", str(root), "--format", "json", "-j", "2", cwd=tmp_path)
    second = run("lint", str(root), "--format", "json", cwd=tmp_path)
    assert list(_cache(tmp_path).glob("lint-*.json"))
    assert first.stdout == second.stdout == plain.stdout

    other = tmp_path / "other"
    write_repository(other, 3)
    (other / "pyproject.toml").write_text("[tool.tritoncfg]\ncache = false\n")
    run("lint", str(other), cwd=other)
    assert not (other / ".tritoncfg_cache").exists()


def test_a_file_added_or_removed_in_a_version_dir_is_seen(tmp_path: Path) -> None:
    root = write_repository(tmp_path / "repo", 20)
    lint(root, cache_dir=_cache(tmp_path))
    (root / model_name(3) / "1" / "model.py").unlink()  # the python model loses its model file
    (root / model_name(4) / "2").mkdir()  # a new version directory, empty
    (root / model_name(5) / "1" / "extra.bin").write_bytes(b"1234")

    again = lint(root, cache_dir=_cache(tmp_path))

    assert sorted(again.relinted) == [model_name(3), model_name(4), model_name(5)]
    assert again.diagnostics == lint(root).diagnostics
    assert any(d.model == model_name(4) for d in again.diagnostics)


def test_a_reused_scan_is_the_scan(tmp_path: Path) -> None:
    from tritoncfg.repository import discover
    from tritoncfg.repository.reuse import decode, encode

    model = tmp_path / "repo" / "m"
    for rel in ("1/model.py", "2abc/x", "01/y", "warmup/w.bin", "configs/h100.pbtxt", "labels.txt"):
        (model / rel).parent.mkdir(parents=True, exist_ok=True)
        (model / rel).write_text("x")
    (model / "config.pbtxt").write_text('backend: "python"\n')
    repository = discover(tmp_path / "repo", config_name="h100")
    (scanned,) = repository.models
    issues = tuple(i for i in repository.issues if i.model == "m")
    assert scanned.ignored_version_dirs and scanned.warmup_entries and scanned.alternative_configs
    assert decode(encode(scanned, issues)) == (scanned, issues)


@pytest.mark.parametrize("config_name", [None, "h100"])
def test_an_unchanged_scan_is_reused(tmp_path: Path, config_name: str | None) -> None:
    """The scan of a settled, unchanged model directory is read back rather than listed again,
    with config.pbtxt (no --model-config-name) as with a named config; a changed one is scanned."""
    from tritoncfg.repository import discover_many
    from tritoncfg.repository.reuse import SETTLE_NS, ScanReuse

    root = write_repository(tmp_path / "repo", 6)
    for index in range(6):
        named = root / model_name(index) / "configs" / "h100.pbtxt"
        named.parent.mkdir()
        named.write_text((named.parent.parent / "config.pbtxt").read_text())
    first = ScanReuse({})
    scanned = discover_many([root], config_name=config_name, scan_one=first)
    assert first.reused == 0 and len(first.now) == 6
    (root / model_name(2) / "1" / "extra.bin").write_bytes(b"1234")  # its version dir changes

    later = time.time_ns() + 2 * SETTLE_NS  # as if the first run had recorded long after
    again = ScanReuse(json.loads(json.dumps(first.now)), later)
    rescanned = discover_many([root], config_name=config_name, scan_one=again)

    assert again.reused == 5
    assert [m for m in rescanned[0].models if m.name != model_name(2)] == [
        m for m in scanned[0].models if m.name != model_name(2)
    ]
    assert rescanned == discover_many([root], config_name=config_name)


def test_a_config_rewritten_with_the_same_size_and_time_is_linted_again(tmp_path: Path) -> None:
    """A coarse file-system clock can give a rewrite the same mtime: the bytes still count."""
    import os

    root = write_repository(tmp_path / "repo", MODELS)
    changed = 1
    config_file = root / model_name(changed) / "config.pbtxt"
    first = lint(root, cache_dir=_cache(tmp_path))
    before = config_file.stat()
    text = config(changed, MODELS)
    edited = text.replace("dims: [ 4 ]", "dims: [ 5 ]", 1)
    assert len(edited) == len(text) and edited != text
    config_file.write_text(edited)
    os.utime(config_file, ns=(before.st_atime_ns, before.st_mtime_ns))

    again = lint(root, cache_dir=_cache(tmp_path))

    assert sorted(again.relinted) == [model_name(0), model_name(changed)]
    assert again.diagnostics == lint(root).diagnostics != first.diagnostics


def _settle(cache: Path) -> None:
    """Make the cache look recorded long after the repository's files were last changed (as it
    is, outside tests): stamps that recent are not trusted, as a change within a timestamp tick
    would not move them."""
    from tritoncfg.repository.reuse import SETTLE_NS

    for path in cache.glob("*-*.json"):
        content = json.loads(path.read_text())
        content["started"] += 2 * SETTLE_NS
        path.write_text(json.dumps(content))


def test_an_unchanged_run_is_replayed_whole(tmp_path: Path) -> None:
    root = write_repository(tmp_path / "repo", MODELS)
    first = lint(root, cache_dir=_cache(tmp_path))
    assert not first.replayed
    recent = lint(root, cache_dir=_cache(tmp_path))
    assert not recent.replayed and recent.relinted == []  # the directories changed too recently
    _settle(_cache(tmp_path))

    again = lint(root, cache_dir=_cache(tmp_path))

    assert again.replayed and again.relinted == []
    assert again.diagnostics == first.diagnostics == lint(root).diagnostics
    assert any(d.fix is not None and d.triton is not None for d in again.diagnostics)
    assert dict(again.sources) == dict(first.sources) and len(again.sources) == MODELS
    assert (again.files, again.models, again.file_paths) == (
        first.files, first.models, first.file_paths
    )  # fmt: skip


def test_a_replay_notices_each_kind_of_change(tmp_path: Path) -> None:
    root = write_repository(tmp_path / "repo", MODELS)
    lint(root, cache_dir=_cache(tmp_path))
    changes = [
        lambda: (root / model_name(3) / "config.pbtxt").write_text(config(3, MODELS) + "\n"),
        lambda: (root / model_name(4) / "1" / "extra.bin").write_bytes(b"x"),
        lambda: (root / model_name(5) / "1" / "model.py").write_text("# two\n# lines\n"),
        lambda: (root / "new_model").mkdir(),
        lambda: (root / model_name(6) / "config.pbtxt").chmod(0o600),
    ]
    for change in changes:
        _settle(_cache(tmp_path))
        replayed = lint(root, cache_dir=_cache(tmp_path))  # recorded by the last, partly cached run
        assert replayed.replayed and replayed.diagnostics == lint(root).diagnostics
        change()
        again = lint(root, cache_dir=_cache(tmp_path))
        assert not again.replayed and again.relinted
        assert again.diagnostics == lint(root).diagnostics


def test_a_recent_unchanged_config_is_read_and_the_replay_kept(tmp_path: Path) -> None:
    import time

    from tritoncfg.repository.reuse import SETTLE_NS

    root = write_repository(tmp_path / "repo", 20)
    time.sleep(0.05)  # the config below changes a timestamp tick after the directories
    config_file = root / model_name(2) / "config.pbtxt"
    config_file.write_text(config(2, 20))  # in place, the same bytes: the directory is unchanged
    first = lint(root, cache_dir=_cache(tmp_path))
    (replay_file,) = _cache(tmp_path).glob("replay-*.json")
    content = json.loads(replay_file.read_text())
    changed = config_file.stat()
    content["started"] = max(changed.st_mtime_ns, changed.st_ctime_ns) + SETTLE_NS  # only it recent
    replay_file.write_text(json.dumps(content))

    before = time.time_ns()
    again = lint(root, cache_dir=_cache(tmp_path))

    assert again.replayed and again.diagnostics == first.diagnostics
    # verified by its bytes, so recorded again as of this run: the next one trusts the stamp
    assert before <= json.loads(replay_file.read_text())["started"] <= time.time_ns()


def test_a_root_with_a_symlink_is_never_replayed(tmp_path: Path) -> None:
    root = write_repository(tmp_path / "repo", 20)
    (root / "alias").symlink_to(root / model_name(1))
    first = lint(root, cache_dir=_cache(tmp_path))
    assert not list(_cache(tmp_path).glob("replay-*.json"))
    _settle(_cache(tmp_path))
    again = lint(root, cache_dir=_cache(tmp_path))
    assert not again.replayed and again.relinted == []
    assert again.diagnostics == first.diagnostics


def test_cli_text_output_of_a_replay_shows_the_same_snippets(tmp_path: Path) -> None:
    from clikit import run

    root = write_repository(tmp_path / "repo", 14)
    first = run("lint", "repo", "--format", "text", cwd=tmp_path)
    _settle(_cache(tmp_path))
    recorded = {path: path.read_bytes() for path in _cache(tmp_path).glob("*-*.json")}
    again = run("lint", "repo", "--format", "text", cwd=tmp_path)
    # replayed: nothing linted, so nothing written (a model-by-model run rewrites its file)
    assert {path: path.read_bytes() for path in _cache(tmp_path).glob("*-*.json")} == recorded

    assert first.returncode == again.returncode == 1, first.stderr
    assert again.stdout == first.stdout == run("lint", "repo", "--no-cache", cwd=tmp_path).stdout
    assert "repo/m0001/config.pbtxt:2:1: TC903" in again.stdout
    assert "2 | max_batch_size: 8" in again.stdout  # the snippet, from the config read lazily
    assert root.is_dir() and len(list(_cache(tmp_path).glob("replay-*.json"))) == 1


def test_no_cache_is_written_inside_the_linted_repository(tmp_path: Path) -> None:
    """Triton polls every directory of the root as a model: a cache there would be one (TC101),
    and one inside a model directory would change it."""
    root = write_repository(tmp_path / "repo", 14)
    for inside in (root / ".tritoncfg_cache", root / model_name(1) / ".tritoncfg_cache"):
        first = lint(root, cache_dir=inside)
        again = lint(root, cache_dir=inside)
        assert not inside.exists()
        assert len(again.relinted) == 14 and again.diagnostics == first.diagnostics
    assert not any(d.code == "TC101" for d in again.diagnostics)
    assert lint(root, cache_dir=_cache(tmp_path)).relinted and _cache(tmp_path).is_dir()


def test_a_fact_shared_between_models_is_a_dependency_of_each(tmp_path: Path) -> None:
    # TC731's repository-wide index of rate-limiter resources is built once, while the first
    # model that needs it is linted; the second uses it too and must be linted again when a
    # model the index read changes (it kept reporting a conflict that was gone).
    root = tmp_path / "repo"
    resource = 'instance_group [ {{ kind: KIND_CPU rate_limiter {{ resources [ {{ name: "R" {}count: 1 }} ] }} }} ]'
    for name, kind in (("a", "global: true "), ("b", "")):
        (root / name / "1").mkdir(parents=True)
        (root / name / "1" / "model.py").write_text("# never executed\n")
        (root / name / "config.pbtxt").write_text(f'backend: "python"\n{resource.format(kind)}\n')
    first = lint(root, cache_dir=_cache(tmp_path))
    assert sorted(d.model for d in first.diagnostics if d.code == "TC731") == ["a", "b"]
    (root / "a" / "config.pbtxt").write_text(f'backend: "python"\n{resource.format("")}\n')

    again = lint(root, cache_dir=_cache(tmp_path))

    assert sorted(again.relinted) == ["a", "b"]
    assert again.diagnostics == lint(root).diagnostics
    assert not [d for d in again.diagnostics if d.code == "TC731"]


def test_changed_code_does_not_replay_what_older_code_found(tmp_path: Path) -> None:
    # an editable install or a `git pull` changes tritoncfg without a new version number
    package = tmp_path / "pkg"
    (package / "checks").mkdir(parents=True)
    module = package / "checks" / "rule.py"
    module.write_text("RULE = 1\n")
    (package / "checks" / "__pycache__").mkdir()
    before = code_stamp(package)
    _CODE_STAMPS.clear()
    (package / "checks" / "__pycache__" / "rule.pyc").write_bytes(b"bytecode")
    assert code_stamp(package) == before  # bytecode is not code
    _CODE_STAMPS.clear()
    module.write_text("RULE = 22\n")
    assert code_stamp(package) != before
    job = LintJob(LintOptions(), ("TC001",), RuleSelection(), PathFilters())
    assert code_stamp(PACKAGE) in run_key(job)


def test_a_library_removed_from_the_backend_dir_is_not_replayed_as_found(tmp_path: Path) -> None:
    """Only the folder of a backend stays: a cached run would say its library is installed."""
    backends = tmp_path / "backends"
    library = backends / "onnxruntime" / "libtriton_onnxruntime.so"
    library.parent.mkdir(parents=True)
    library.write_bytes(b"\x7fELF")
    agents = tmp_path / "repoagents"
    agents.mkdir()
    root = tmp_path / "repo"
    for name in ("a", "b"):
        (root / name / "1").mkdir(parents=True)
        (root / name / "config.pbtxt").write_text('backend: "onnxruntime"\n', encoding="utf-8")
    options = LintOptions(backend_dir=backends)
    first = lint(root, options, cache_dir=_cache(tmp_path))
    assert first.files == 2 and not [d for d in first.diagnostics if d.code == "TC120"]
    assert lint(root, options, cache_dir=_cache(tmp_path)).relinted == []  # replayed
    library.unlink()
    after = lint(root, options, cache_dir=_cache(tmp_path))
    assert len(after.relinted) == 2
    assert [d.code for d in after.diagnostics if d.code == "TC120"] == ["TC120"] * 2
    (agents / "libtritonrepoagent_checksum.so").write_bytes(b"")  # beside it: TC124's folder
    assert len(lint(root, options, cache_dir=_cache(tmp_path)).relinted) == 2
