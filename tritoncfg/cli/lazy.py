"""Commands whose module is imported only when the command runs or its help is shown.

`tritoncfg lint config.pbtxt` is a pre-commit hook: it should not pay for importing `probe`,
`gen`, `convert` and the other commands. The root group knows each command by name and by the
`module:attribute` that defines it, and builds the click command from that module on first use.
`tritoncfg --help` lists every command, so it imports them all, as it must to show their help.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, MutableMapping
from typing import Any, ClassVar, NamedTuple

import typer
import typer.main

from tritoncfg.cli.help import PlainHelpCommand, PlainHelpGroup


class LazyCommand(NamedTuple):
    """A command (a function) or a group (a Typer app) that `target` names, `module:attribute`."""

    target: str
    group: bool = False
    hidden: bool = False


def _build(name: str, lazy: LazyCommand, markup: Any) -> Any:
    module_name, attribute = lazy.target.split(":")
    target = getattr(importlib.import_module(module_name), attribute)
    holder = typer.Typer(rich_markup_mode=markup)
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
            markup = getattr(self, "rich_markup_mode", "rich")
            command = self._eager[name] = _build(name, self.LAZY[name], markup)
        return command

    def list_commands(self, ctx: Any) -> list[str]:
        return [*self._eager, *(name for name in self.LAZY if name not in self._eager)]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        return self._resolve(cmd_name)
