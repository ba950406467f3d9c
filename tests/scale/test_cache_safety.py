"""The lint cache never follows a symlinked directory, never removes a file it did not write, and
takes anything it cannot read (damaged, edited, of the wrong types) as absent."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from scalekit import model_name, write_repository

from tritoncfg.api import lint
from tritoncfg.lintcache.folder import TAG
from tritoncfg.repository.reuse import SETTLE_NS

MODELS = 20
USER_FILES = 70  # more than the cache keeps (64): pruning would reach them


def _user_files(directory: Path) -> dict[str, bytes]:
    """Files of someone else's, named as the cache names its own."""
    directory.mkdir(parents=True, exist_ok=True)
    made = {}
    for index in range(USER_FILES):
        name = f"lint-{index:016x}.json"
        made[name] = f'{{"mine": {index}}}'.encode()
        (directory / name).write_bytes(made[name])
    (directory / "notes.txt").write_bytes(b"keep me")
    made["notes.txt"] = b"keep me"
    return made


def _contents(directory: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in directory.iterdir()}


def test_a_symlinked_cache_directory_is_never_followed(tmp_path: Path) -> None:
    root = write_repository(tmp_path / "repo", MODELS)
    elsewhere = tmp_path / "elsewhere"
    before = _user_files(elsewhere)
    link = tmp_path / "project" / ".tritoncfg_cache"
    link.parent.mkdir()
    link.symlink_to(elsewhere, target_is_directory=True)

    result = lint(root, cache_dir=link)
    again = lint(root, cache_dir=link)

    assert _contents(elsewhere) == before  # nothing written, nothing pruned
    assert len(again.relinted) == MODELS and again.diagnostics == lint(root).diagnostics
    assert result.notes == [f"{link} is a symbolic link (not followed): linting without the cache"]


def test_the_cli_warns_in_one_line_and_lints_without_the_cache(tmp_path: Path) -> None:
    from clikit import run

    root = write_repository(tmp_path / "repo", 3)
    elsewhere = tmp_path / "elsewhere"
    before = _user_files(elsewhere)
    (tmp_path / ".tritoncfg_cache").symlink_to(elsewhere, target_is_directory=True)

    linted = run("lint", str(root), "--format", "json", cwd=tmp_path)
    plain = run("lint", str(root), "--format", "json", "--no-cache", cwd=tmp_path)

    assert linted.returncode == plain.returncode == 1 and linted.stdout == plain.stdout
    assert linted.stderr == (
        "tritoncfg: warning: .tritoncfg_cache is a symbolic link (not followed): "
        "linting without the cache\n"
    ).replace(".tritoncfg_cache", str(tmp_path / ".tritoncfg_cache"), 1)
    assert _contents(elsewhere) == before


def test_a_directory_tritoncfg_did_not_make_is_left_alone(tmp_path: Path) -> None:
    root = write_repository(tmp_path / "repo", MODELS)
    cache = tmp_path / ".tritoncfg_cache"
    before = _user_files(cache)

    result = lint(root, cache_dir=cache)

    assert _contents(cache) == before
    assert result.notes and "has no CACHEDIR.TAG" in result.notes[0]
    assert result.diagnostics == lint(root).diagnostics


def test_pruning_removes_only_the_cache_files_of_its_own_directory(tmp_path: Path) -> None:
    root = write_repository(tmp_path / "repo", 3)
    cache = tmp_path / ".tritoncfg_cache"
    lint(root, cache_dir=cache)  # made and tagged by tritoncfg
    assert (cache / TAG).read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")
    outside = tmp_path / "outside.json"
    outside.write_text("{}")
    (cache / "lint-ffffffffffffffff.json").symlink_to(outside)  # not a file of the cache
    (cache / "lint-old.json").write_text("{}")  # not a name the cache gives
    for index in range(USER_FILES):  # older cache files, beyond the 64 kept
        old = cache / f"lint-{index:016x}.json"
        old.write_text("{}")
        os.utime(old, ns=(index, index))

    assert not lint(root, cache_dir=cache).notes

    kept = {p.name for p in cache.glob("lint-*.json")}
    assert len([n for n in kept if n.startswith("lint-0000")]) == 64 - 1  # with this run's
    assert {"lint-ffffffffffffffff.json", "lint-old.json"} <= kept and outside.read_text() == "{}"


def test_an_older_tritoncfg_cache_is_adopted(tmp_path: Path) -> None:
    root = write_repository(tmp_path / "repo", 3)
    cache = tmp_path / ".tritoncfg_cache"
    cache.mkdir()
    (cache / ".gitignore").write_text("# written by tritoncfg\n*\n")
    (cache / "lint-0123456789abcdef.json").write_text("{}")

    assert not lint(root, cache_dir=cache).notes
    assert (cache / TAG).is_file() and lint(root, cache_dir=cache).relinted == []


def test_a_fifo_in_the_cache_is_not_read(tmp_path: Path) -> None:
    root = write_repository(tmp_path / "repo", 3)
    cache = tmp_path / ".tritoncfg_cache"
    lint(root, cache_dir=cache)
    for path in cache.glob("*-*.json"):
        path.unlink()
        os.mkfifo(path)  # opened blocking, it would hang lint

    again = lint(root, cache_dir=cache)

    assert len(again.relinted) == 3 and not again.notes
    assert lint(root, cache_dir=cache).relinted == []  # written over


def _settled_files(cache: Path) -> dict[str, Path]:
    """The cache files, their runs moved back so that every stamp is trusted (replayable)."""
    found = {}
    for path in cache.glob("*-*.json"):
        content = json.loads(path.read_text())
        content["started"] += 2 * SETTLE_NS
        path.write_text(json.dumps(content))
        found[path.name.split("-")[0]] = path
    return found


def test_a_cache_nested_too_deep_for_json_counts_as_absent(tmp_path: Path) -> None:
    root = write_repository(tmp_path / "repo", MODELS)
    cache = tmp_path / ".tritoncfg_cache"
    expected = lint(root, cache_dir=cache).diagnostics
    for path in _settled_files(cache).values():
        path.write_text("[" * 200_000)  # a RecursionError in the JSON decoder

    again = lint(root, cache_dir=cache)

    assert len(again.relinted) == MODELS and again.diagnostics == expected
    assert lint(root, cache_dir=cache).relinted == []  # written over


def _entry(content: dict[str, Any]) -> dict[str, Any]:
    return next(v for k, v in content["models"].items() if f"{model_name(5)}\0" in k)


LINT_DAMAGE: dict[str, Callable[[dict[str, Any]], object]] = {
    "a message that is a number": lambda c: _entry(c)["diagnostics"][0].__setitem__(3, 7),
    "a span of strings": lambda c: _entry(c)["diagnostics"][0].__setitem__(5, ["a"] * 4),
    "a span too short": lambda c: _entry(c)["diagnostics"][0].__setitem__(5, [1]),
    "a verdict of numbers": lambda c: _entry(c)["diagnostics"][0].__setitem__(7, [1, 2]),
    "dependencies as a list": lambda c: _entry(c).__setitem__("deps", ["m0001"]),
    "sources as a number": lambda c: _entry(c).__setitem__("sources", 3),
    "direct as a dict": lambda c: _entry(c).__setitem__("direct", {"a": 1}),
    "linted as a string": lambda c: _entry(c).__setitem__("linted", "yes"),
    "a config key as a number": lambda c: c.__setitem__("configs", dict.fromkeys(c["configs"], 5)),
    "the start as a string": lambda c: c.__setitem__("started", "then"),
    "the models as a list": lambda c: c.__setitem__("models", [1]),
    "a scan's name as a number": lambda c: _scan(c)["model"].__setitem__(0, 5),
    "a scan's entries as a dict": lambda c: _scan(c)["model"].__setitem__(8, {"a": 1}),
    "a scan's entry of strings": lambda c: _scan(c)["model"][8].__setitem__(0, ["x"] * 7),
    "a scan's version number as a string": lambda c: _scan(c)["model"][12][0].__setitem__(0, "1"),
    "a scan's issues as numbers": lambda c: _scan(c).__setitem__("issues", [[1, 2, 3, 4]]),
    "a scan's signature of numbers": lambda c: _scan(c).__setitem__("signature", [[1] * 5]),
}


def _scan(content: dict[str, Any]) -> dict[str, Any]:
    return next(v for k, v in content["scans"].items() if f"{model_name(5)}\0" in k)


RELINTED = [*list(LINT_DAMAGE)[:8], "the models as a list"]


@pytest.mark.parametrize("damage", list(LINT_DAMAGE), ids=list(LINT_DAMAGE))
def test_cache_entries_of_the_wrong_types_are_linted_again(tmp_path: Path, damage: str) -> None:
    root = write_repository(tmp_path / "repo", MODELS)
    cache = tmp_path / ".tritoncfg_cache"
    expected = lint(root, cache_dir=cache).diagnostics
    files = _settled_files(cache)
    files["replay"].unlink()  # the model-by-model cache answers
    content = json.loads(files["lint"].read_text())
    assert _entry(content)["diagnostics"]  # the entry damaged has findings to damage
    LINT_DAMAGE[damage](content)
    files["lint"].write_text(json.dumps(content))

    again = lint(root, cache_dir=cache)

    assert again.diagnostics == expected and not again.replayed
    # a damaged model entry is linted again; a damaged scan, config key or start costs a reading
    assert bool(again.relinted) is (damage in RELINTED)


REPLAY_DAMAGE: dict[str, Callable[[dict[str, Any]], object]] = {
    "the file count as a string": lambda c: c["result"].__setitem__("files", "20"),
    "sources as numbers": lambda c: c["result"].__setitem__("sources", [1, 2]),
    "an extra field": lambda c: c["result"].__setitem__("surprise", 1),  # ignored
    "a missing field": lambda c: c["result"].pop("relinted"),
    "a string table of numbers": lambda c: c["result"]["diagnostics"].__setitem__("strings", [1]),
    "a stamp of a file descriptor": lambda c: c["stamps"][0].__setitem__(0, 0),
    "configs as a list": lambda c: c.__setitem__("configs", []),  # not needed: all settled
    "the start as infinity": lambda c: c.__setitem__("started", float("inf")),
    "a result that is a list": lambda c: c.__setitem__("result", [1]),
}


@pytest.mark.parametrize("damage", list(REPLAY_DAMAGE), ids=list(REPLAY_DAMAGE))
def test_a_replay_of_the_wrong_types_is_not_replayed(tmp_path: Path, damage: str) -> None:
    root = write_repository(tmp_path / "repo", MODELS)
    cache = tmp_path / ".tritoncfg_cache"
    expected = lint(root, cache_dir=cache).diagnostics
    replay_file = _settled_files(cache)["replay"]
    assert lint(root, cache_dir=cache).replayed  # proof that the replay is read, undamaged
    replay_file = _settled_files(cache)["replay"]
    content = json.loads(replay_file.read_text())
    REPLAY_DAMAGE[damage](content)
    replay_file.write_text(json.dumps(content))

    again = lint(root, cache_dir=cache)

    assert again.diagnostics == expected
    assert again.replayed is (damage in {"an extra field", "configs as a list"})


def test_a_directory_another_run_is_creating_is_the_cache(tmp_path: Path) -> None:
    # pre-commit lints batches of files in parallel: a run can find the directory made by
    # another, holding only that run's temporary files (its tag not renamed into place yet)
    root = write_repository(tmp_path / "repo", 3)
    cache = tmp_path / ".tritoncfg_cache"
    cache.mkdir()
    (cache / f".{TAG}.4242.0123abcd.tmp").write_text("half written")

    assert not lint(root, cache_dir=cache).notes
    assert (cache / TAG).is_file() and lint(root, cache_dir=cache).relinted == []
