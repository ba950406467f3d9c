"""Commands whose module is imported only when the command runs or its help is shown.

`tritoncfg lint config.pbtxt` is a pre-commit hook: it should not pay for importing `probe`,
`gen`, `convert` and the other commands. The root group knows each command by name and by the
`module:attribute` that defines it, and builds the click command from that module on first use.
`tritoncfg --help` lists every command, so it imports them all, as it must to show their help.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Mapping, MutableMapping, Sequence
from typing import Any, ClassVar, NamedTuple

import typer
import typer.main

from tritoncfg.cli.clickapi import click
from tritoncfg.cli.common import Color, use_color
from tritoncfg.cli.help import PlainHelpCommand, PlainHelpGroup, show_usage_error


class LazyCommand(NamedTuple):
    """A command (a function) or a group (a Typer app) that `target` names, `module:attribute`."""

    target: str
    group: bool = False
    hidden: bool = False


def _build(name: str, lazy: LazyCommand) -> Any:
    module_name, attribute = lazy.target.split(":")
    target = getattr(importlib.import_module(module_name), attribute)
    holder = typer.Typer(rich_markup_mode=None)
    if lazy.group:
        holder.add_typer(target, name=name, cls=PlainHelpGroup, hidden=lazy.hidden)
    else:
        holder.command(name, cls=PlainHelpCommand, hidden=lazy.hidden)(target)
    return typer.main.get_group(holder).commands[name]


class LazyGroup(PlainHelpGroup):
    """The root group: `LAZY` maps each command's name to where it is defined, in the order
    `--help` lists them. `commands` (what callers outside click read) resolves every command;
    click itself goes through `list_commands`/`get_command`, which resolve only the one named."""

    LAZY: ClassVar[Mapping[str, LazyCommand]] = {}

    @property
    def commands(self) -> MutableMapping[str, Any]:
        for name in self.LAZY:
            self._resolve(name)
        return self._eager

    @commands.setter
    def commands(self, value: MutableMapping[str, Any]) -> None:
        self._eager = value

    def _resolve(self, name: str) -> Any:
        command = self._eager.get(name)
        if command is None and name in self.LAZY:
            command = self._eager[name] = _build(name, self.LAZY[name])
        return command

    def list_commands(self, ctx: Any) -> list[str]:
        return [*self._eager, *(name for name in self.LAZY if name not in self._eager)]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        return self._resolve(cmd_name)

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> Any:
        """Typer's main, with the colour decision (`use_color`) in the context and usage errors
        shown by `show_usage_error` rather than in Typer's Rich panel."""
        extra.setdefault("color", use_color(Color.auto, sys.stdout))
        if not standalone_mode:
            return super().main(
                args, prog_name, complete_var, standalone_mode, windows_expand_args, **extra
            )
        try:
            status = super().main(
                args, prog_name, complete_var, False, windows_expand_args, **extra
            )
        except click.exceptions.ClickException as error:
            show_usage_error(error)
            sys.exit(error.exit_code)
        except typer.Abort:
            sys.stderr.write("Aborted!\n")
            sys.exit(1)
        # not standalone, Typer returns an Exit's status, or what the command returned (None)
        sys.exit(status if isinstance(status, int) else 0)
