"""`tritoncfg lint`'s input options, as ruff spells them (issue 23): the `[*]` fixable marker and
`--show-fixes`, `--cache-dir`, `--add-noqa`, `lint -` with `--stdin-filename`, inline `--config`
settings and `--isolated`. A real subprocess on real files, as test_cli_lint.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clikit import run
from lintkit import make_model

from tritoncfg.cli.add_noqa import noqa_edits
from tritoncfg.text.edits import apply_edits

# TC005 (a safe fix: KIND_CPU) and TC002 (an unsafe one: max_batch_size)
TYPOS = 'name: "m"\nbackend: "python"\nmax_batch_sise: 8\ninstance_group [ { kind: KIND_CPUX } ]\n'
# TC903 (no dynamic_batching), no fix
WARNED = 'name: "w"\nbackend: "python"\nmax_batch_size: 8  # the largest we serve\n'
# TC901 and TC902 on line 5 (unsorted: a safe fix), the first already suppressed there
UNSORTED = (
    'name: "u"\nbackend: "python"\nmax_batch_size: 16\ndynamic_batching {\n'
    "  preferred_batch_size: [ 8, 4 ]  # tritoncfg: noqa TC901\n}\n"
)


def _model(root: Path, name: str, config: str) -> Path:
    return make_model(root, name, config, files={"1/model.py": ""}) / "config.pbtxt"


def _codes(stdout: str) -> list[str]:
    return [d["code"] for d in json.loads(stdout)["diagnostics"]]


def test_fixable_findings_are_marked_and_counted_as_ruff_does(tmp_path: Path) -> None:
    config = _model(tmp_path / "repo", "m", TYPOS)
    result = run("lint", str(config), "--no-cache")
    assert result.returncode == 1, result.stderr
    marked = [line for line in result.stdout.splitlines() if "[*] " in line[1:]]
    assert len(marked) == 1 and "TC005 error (unknown-enum-value) [*] Unknown enum" in marked[0]
    assert "(unknown-field) Message type" in result.stdout  # the unsafe fix is not marked
    assert result.stdout.endswith(
        "[*] 1 fixable with `--fix` (1 unsafe fix available with `--fix --unsafe-fixes`).\n"
    )
    unsafe = run("lint", str(config), "--no-cache", "--unsafe-fixes")
    assert unsafe.stdout.count("[*]") == 3  # both findings and the summary
    assert unsafe.stdout.endswith("[*] 2 fixable with `--fix`.\n")
    assert "fixable with" not in run("lint", str(config), "--no-cache", "-q").stdout


def test_show_fixes_lists_the_fixes_available_then_those_applied(tmp_path: Path) -> None:
    config = _model(tmp_path / "repo", "m", TYPOS)
    available = run("lint", str(config), "--no-cache", "--show-fixes")
    assert f"Fixable with `--fix` (1):\n- {config}:\n    1 \u00d7 TC005 (unknown-enum-value)\n" in (
        available.stdout
    )
    assert "KIND_CPUX" in config.read_text()  # nothing written
    fixed = run("lint", str(config), "--no-cache", "--fix", "--show-fixes")
    assert (
        f"Fixed 1 finding:\n- {config}:\n    1 \u00d7 TC005 (unknown-enum-value)\n" in fixed.stdout
    )
    assert "kind: KIND_CPU }" in config.read_text()
    assert fixed.stdout.endswith("1 unsafe fix available with `--fix --unsafe-fixes`.\n")


def test_fix_report_follows_the_report_to_its_file_and_is_silenced(tmp_path: Path) -> None:
    config = _model(tmp_path / "repo", "m", TYPOS)
    target = tmp_path / "report.txt"
    args = ("lint", str(config), "--no-cache", "--show-fixes")
    to_file = run(*args, "-o", str(target))
    assert (to_file.returncode, to_file.stdout) == (1, ""), to_file.stderr
    assert target.read_text() == run(*args).stdout  # the list and the [*] line go there too
    assert "Fixable with `--fix` (1):" in target.read_text()
    silent = run(*args, "-s")
    assert (silent.returncode, silent.stdout, silent.stderr) == (1, "", "")
    quiet = run(*args, "-q").stdout
    assert "TC005" in quiet and "Fixable with" not in quiet and "fixable with" not in quiet
    table = run(*args, "--statistics").stdout  # the table marks fixable rules itself
    assert "Fixable with" not in table and "fixable with `--fix`" not in table
    assert "KIND_CPUX" in config.read_text()


def _cache_files(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir()} if folder.is_dir() else set()


def test_cache_dir_from_the_option_the_environment_or_the_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _model(tmp_path / "repo", "w", WARNED)
    (tmp_path / "tritoncfg.toml").write_text('cache-dir = "from-settings"\n')
    repo = str(tmp_path / "repo")
    assert run("lint", repo).returncode == 0
    assert "CACHEDIR.TAG" in _cache_files(tmp_path / "from-settings")  # beside the settings file
    monkeypatch.setenv("TRITONCFG_CACHE_DIR", str(tmp_path / "from-env"))
    assert run("lint", repo).returncode == 0  # the fast path (no option) reads it too
    assert "CACHEDIR.TAG" in _cache_files(tmp_path / "from-env")
    assert run("lint", repo, "--cache-dir", "made/here", cwd=tmp_path).returncode == 0
    written = _cache_files(tmp_path / "made" / "here")  # the working directory's, parents made
    assert "CACHEDIR.TAG" in written and any(n.startswith("lint-") for n in written)
    assert not (tmp_path / ".tritoncfg_cache").exists()
    assert not (tmp_path / "repo" / ".tritoncfg_cache").exists()


def test_add_noqa_suppresses_every_finding_once_and_keeps_the_text(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    warned, unsorted = _model(root, "w", WARNED), _model(root, "u", UNSORTED)
    broken = _model(root, "b", TYPOS)
    before = run("lint", str(root), "--no-cache", "-f", "json")
    assert {"TC903", "TC902", "TC005"} <= set(_codes(before.stdout))
    added = run("lint", str(root), "--no-cache", "--add-noqa")
    assert added.returncode == 0, added.stderr
    assert added.stderr.startswith("Added 2 noqa directives.\n")
    assert "3 findings cannot be suppressed by a comment" in added.stderr  # TC005/2/9
    assert warned.read_text() == WARNED.replace(
        "# the largest we serve", "# the largest we serve  # tritoncfg: noqa TC903"
    )
    assert "[ 8, 4 ]  # tritoncfg: noqa TC901, TC902\n}\n" in unsorted.read_text()
    assert broken.read_text() == TYPOS  # a file that does not parse is left alone
    after = run("lint", str(root), "--no-cache", "-f", "json")
    assert sorted(_codes(after.stdout)) == ["TC002", "TC005", "TC009"]  # no TC010 either
    again = run("lint", str(root), "--no-cache", "--add-noqa")
    assert again.stderr.startswith("Added 0 noqa directives.\n")
    assert warned.read_text().count("noqa") == 1


def test_add_noqa_says_less_with_quiet_and_nothing_with_silent(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    warned, broken = _model(root, "w", WARNED), _model(root, "b", TYPOS)
    quiet = run("lint", str(root), "--no-cache", "--add-noqa", "-q")
    assert quiet.returncode == 0 and "Added" not in quiet.stderr, quiet.stderr
    assert "findings cannot be suppressed by a comment" in quiet.stderr  # a warning stays
    assert "# tritoncfg: noqa TC903" in warned.read_text()  # written all the same
    warned.write_text(WARNED)
    silent = run("lint", str(root), "--no-cache", "--add-noqa", "-s")
    assert (silent.returncode, silent.stdout, silent.stderr) == (0, "", "")
    assert "# tritoncfg: noqa TC903" in warned.read_text() and broken.read_text() == TYPOS


def test_noqa_next_to_a_file_level_one_goes_on_the_line_above() -> None:
    source = "a: 1\n  b: 2  # tritoncfg: noqa-file TC402\nc: 3\r\n"
    edits = noqa_edits(source, {2: {"TC903"}, 3: {"TC906", "TC901"}})
    assert apply_edits(source, edits) == (
        "a: 1\n  # tritoncfg: noqa TC903\n  b: 2  # tritoncfg: noqa-file TC402\n"
        "c: 3  # tritoncfg: noqa TC901, TC906\r\n"
    )


def test_stdin_is_linted_as_the_named_file_and_nothing_is_written(tmp_path: Path) -> None:
    config = _model(tmp_path / "repo", "w", WARNED)
    result = run(
        "lint", "-", "--stdin-filename", str(config), "-f", "json", stdin=TYPOS, cwd=tmp_path
    )
    assert result.returncode == 1, result.stderr
    document = json.loads(result.stdout)
    assert {d["path"] for d in document["diagnostics"]} == {"repo/w/config.pbtxt"}
    assert {"TC002", "TC005"} <= set(_codes(result.stdout))  # stdin's text, not the file's
    assert config.read_text() == WARNED
    assert (
        not (tmp_path / ".tritoncfg_cache").exists()
        and not (config.parent / ".tritoncfg_cache").exists()
    )


def test_stdin_report_goes_to_the_output_file(tmp_path: Path) -> None:
    config = _model(tmp_path / "repo", "w", WARNED)
    target = tmp_path / "report.txt"
    args = ("lint", "-", "--stdin-filename", str(config), "-f", "concise", "-o", str(target))
    result = run(*args, stdin=TYPOS, cwd=tmp_path)
    assert (result.returncode, result.stdout) == (1, ""), result.stderr
    report = target.read_text()
    assert "repo/w/config.pbtxt:4:" in report and "TC005 [*] " in report  # stdin's text
    assert report.endswith(
        "fixable with `--fix` (1 unsafe fix available with `--fix --unsafe-fixes`).\n"
    )
    assert config.read_text() == WARNED


def test_stdin_named_as_a_new_file_takes_its_folder_as_the_model(tmp_path: Path) -> None:
    name = tmp_path / "repo" / "fresh" / "config.pbtxt"
    result = run("lint", "-", "--stdin-filename", str(name), "-f", "json", stdin=WARNED)
    document = json.loads(result.stdout)
    warned = [d for d in document["diagnostics"] if d["code"] == "TC903"]
    assert warned and warned[0]["path"] == str(name) and warned[0]["model"] == "fresh"
    assert all(str(tmp_path) in d["path"] for d in document["diagnostics"])  # no scratch path
    assert not name.parent.exists()
    # the folder does not exist: no TC105 (it would fire on every new buffer); an existing
    # model folder without versions still gets it
    assert "TC105" not in _codes(result.stdout) and "TC107" in _codes(result.stdout)
    name.parent.mkdir(parents=True)
    name.write_text(WARNED, encoding="utf-8")
    on_disk = run("lint", "-", "--stdin-filename", str(name), "-f", "json", stdin=WARNED)
    assert "TC105" in _codes(on_disk.stdout)


def test_stdin_new_file_names_no_scratch_folder_in_tritons_message(tmp_path: Path) -> None:
    name = tmp_path / "repo" / "fresh" / "config.pbtxt"
    result = run("lint", "-", "--stdin-filename", str(name), "-f", "json", stdin='name: "x\n')
    assert result.returncode == 1, result.stderr
    syntax = [d for d in json.loads(result.stdout)["diagnostics"] if d["code"] == "TC001"]
    assert syntax and syntax[0]["triton"]["message"] == f"failed to read text proto from {name}"


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("lint", "-"), "lint - needs --stdin-filename NAME"),
        (("lint", "-", "x", "--stdin-filename", "c.pbtxt"), "give `-` as the only path"),
        (("lint", "-", "--stdin-filename", "c.pbtxt", "--fix"), "--fix cannot be used"),
        (("lint", "x", "--add-noqa", "--diff"), "--add-noqa cannot be used with --diff"),
        (
            ("lint", "x", "--add-noqa", "-o", "r.txt"),
            "--output-file cannot be used with --add-noqa",
        ),
        (("lint", "x", "--watch", "-o", "r.txt"), "--output-file cannot be used with --watch"),
    ],
)
def test_stdin_and_add_noqa_usage_errors(args: tuple[str, ...], needle: str) -> None:
    result = run(*args, stdin="")
    assert result.returncode == 2 and needle in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def test_inline_config_settings_win_over_the_file(tmp_path: Path) -> None:
    _model(tmp_path / "repo", "w", WARNED)
    settings = tmp_path / "other.toml"
    settings.write_text('select = ["TC9"]\nseverity-overrides = { TC901 = "info" }\n')
    repo = str(tmp_path / "repo")
    plain = run("lint", repo, "--no-cache", "--config", str(settings))
    assert plain.returncode == 0 and "TC903 warning" in plain.stdout
    raised = run(
        "lint", repo, "--no-cache", "--config", str(settings),
        "--config", 'severity-overrides = { TC903 = "error" }',
    )  # fmt: skip
    assert raised.returncode == 1 and "TC903 error" in raised.stdout
    ignored = run("lint", repo, "--no-cache", "--config", "ignore = ['TC903']", "-f", "json")
    assert "TC903" not in _codes(ignored.stdout)


@pytest.mark.parametrize(
    ("value", "needle"),
    [
        ("selct = ['TC9']", '--config: unknown key "selct"; did you mean "select"?'),
        ("triton-mode = 'strictt'", "--config: triton-mode: 'strictt' is not one of"),
        ("no-such-file.toml", "--config 'no-such-file.toml': no such settings file"),
        ("select = [TC9]", "not a settings file, nor a TOML `KEY = VALUE` pair"),
    ],
)
def test_inline_config_errors_name_the_key(tmp_path: Path, value: str, needle: str) -> None:
    _model(tmp_path / "repo", "w", WARNED)
    result = run("lint", str(tmp_path / "repo"), "--config", value, cwd=tmp_path)
    assert result.returncode == 2 and needle in result.stderr, result.stderr


def test_isolated_ignores_the_repository_setting_and_refuses_a_settings_file(
    tmp_path: Path,
) -> None:
    _model(tmp_path / "model_repository", "w", WARNED)
    (tmp_path / "tritoncfg.toml").write_text('repository = "model_repository"\n')
    honoured = run("lint", str(tmp_path), "--no-cache", "-f", "json")
    assert json.loads(honoured.stdout)["summary"]["models"] == 1
    assert "TC903" in _codes(honoured.stdout)
    isolated = run("lint", str(tmp_path), "--no-cache", "-f", "json", "--isolated")
    # the project folder is the repository now: model_repository is taken for a model
    models = {d["model"] for d in json.loads(isolated.stdout)["diagnostics"]}
    assert "model_repository" in models and "w" not in models
    inline = run("lint", str(tmp_path / "model_repository"), "--isolated", "--no-cache",
                 "--config", "ignore = ['TC903']", "-f", "json")  # fmt: skip
    assert inline.returncode == 0 and "TC903" not in _codes(inline.stdout)
    refused = run("lint", str(tmp_path), "--isolated", "--config", str(tmp_path / "tritoncfg.toml"))
    assert refused.returncode == 2 and "cannot be used with --isolated" in refused.stderr
