"""The root group imports a command's module only when the command runs or its help is shown,
and `tritoncfg --help` still lists every command with its help text."""

from __future__ import annotations

import subprocess
import sys

from typer.testing import CliRunner

from tritoncfg.cli.app import Commands, app


def test_root_help_lists_every_visible_command_with_its_summary() -> None:
    result = CliRunner().invoke(app, ["--help"], env={"NO_COLOR": "1"}, terminal_width=200)
    assert result.exit_code == 0, result.output
    section = result.output.split("Commands:\n", 1)[1]
    listed = {
        line.split()[0] for line in section.splitlines() if line.startswith("  ") and line[2] != " "
    }
    visible = {name for name, lazy in Commands.LAZY.items() if not lazy.hidden}
    assert visible <= listed, visible - listed
    assert "config-schema" not in listed
    assert "Format configs in one canonical style" in result.output  # fmt's own docstring


def test_every_lazy_target_resolves_to_a_command_of_that_name() -> None:
    import typer.main

    commands = typer.main.get_command(app).commands  # type: ignore[attr-defined]
    assert list(commands) == list(Commands.LAZY)
    for name, command in commands.items():
        assert command.name == name and command.hidden == Commands.LAZY[name].hidden


def test_a_command_and_its_help_import_only_that_commands_module() -> None:
    code = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from tritoncfg.cli.app import app\n"
        "result = CliRunner().invoke(app, ['fmt', '--help'])\n"
        "assert result.exit_code == 0 and 'fmt' in result.output, result.output\n"
        "cli = sorted(m for m in sys.modules if m.startswith('tritoncfg.cli.'))\n"
        "print(cli)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    loaded = eval(done.stdout)  # a list literal printed above
    others = {"tritoncfg.cli." + n for n in ("lint", "diff", "probe", "gen", "rules", "verify")}
    assert "tritoncfg.cli.fmt" in loaded and not others & set(loaded), loaded
