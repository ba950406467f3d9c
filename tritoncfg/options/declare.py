"""`LintOption`: one record per lint option, everything about it in one place."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tritoncfg.record import record


@record(frozen=True)
class LintOption:
    """A setting of `[tool.tritoncfg]`, and where it has one, its `tritoncfg lint` option and its
    field of `LintOverrides` (the Python API). A value stated by the caller (the option, the
    field) wins over the settings file's, which wins over `default`; `read` turns the winner
    into what lint uses (raising OptionError for a bad one), and `target` names the LintOptions
    field it fills, if any."""

    key: str  # the settings key, kebab-case
    summary: str  # the JSON schema's description (editors show it)
    schema: dict[str, Any]  # the JSON schema of the value, without the description
    default: Any = None
    read: Callable[[Any], Any] | None = None  # the value as lint uses it; None: as written
    relative: bool = False  # a path: the settings' (and the default) relative to the file
    target: str | None = None  # the LintOptions field it fills
    # the command line: None for a setting only the file has
    flag: str | None = None  # Click's declaration: "--gpus", "--cache/--no-cache"
    cli_type: Any = None  # the type Typer parses: str, Path, bool, list[str], an enum
    repeatable: bool = False  # a list: given several times (or comma-separated); empty = unset
    from_cli: Callable[[Any], Any] | None = None  # the parsed option -> the override's value
    help: str = ""  # `tritoncfg lint --help`
    metavar: str = ""  # the value in docs/cli.md (`--gpus IDS`); an enum's shows its choices
    doc: str = ""  # docs/cli.md's meaning (markdown); the settings table shows the summary
    example: str = ""  # the TOML value in docs/linting.md's example
    note: str = ""  # its comment there
    override: str = ""  # the LintOverrides field, where not the key's name

    @property
    def field(self) -> str | None:
        """The `LintOverrides` field of an option the command line has: the key's name, or
        `override` (`rate-limit-resource` -> `rate_limit_resources`)."""
        if self.flag is None:
            return None
        return self.override or self.key.replace("-", "_")

    @property
    def flag_name(self) -> str:
        """The long flag without dashes (`--cache/--no-cache` -> `cache`): Typer's parameter
        name, with `_` for `-`."""
        return (self.flag or "").split("/", 1)[0].removeprefix("--")
