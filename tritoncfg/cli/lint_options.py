"""`tritoncfg lint`'s options made from their declarations: those that are settings too from
tritoncfg/options/table.py (the Typer parameters, and the values Click parsed as the
`LintOverrides` that `lint_setup` merges over the settings), and `-f` from the output formats'
registry (report/formats.py's FORMATS)."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from enum import StrEnum
from typing import Annotated, Any

import typer

from tritoncfg.cli.lint_output import ENV_OUTPUT_FORMAT
from tritoncfg.lintoptions import LintOverrides
from tritoncfg.options.declare import LintOption
from tritoncfg.options.table import LINT_OPTIONS
from tritoncfg.report import formats

COMMAND_LINE = tuple(option for option in LINT_OPTIONS if option.flag)

# --format's choices: the names of the registry, in its order (a new format is one entry there)
FormatOption = StrEnum("FormatOption", [(name, name) for name in formats.NAMES])  # type: ignore[misc]
DEFAULT_FORMAT = FormatOption("text")
FormatParameter = Annotated[
    FormatOption,
    typer.Option(
        "--format",
        "-f",
        metavar="<format>",  # the choices in the help: a long metavar breaks mid-word
        envvar=ENV_OUTPUT_FORMAT,
        help=f"Output format: {formats.choices_help()}.",
    ),
]


def parameter_name(option: LintOption) -> str:
    """Typer's parameter (and Click's `params` key): `--rate-limit-resource` ->
    `rate_limit_resource`."""
    return option.flag_name.replace("-", "_")


def typer_option(option: LintOption) -> Any:
    """The option as Typer declares it; its default is None: not stated, the settings decide."""
    return typer.Option(option.flag, help=option.help, show_default=False)


def with_lint_options(own: Callable[..., Any], *, after: str) -> inspect.Signature:
    """The signature of `own` (a command's own parameters) with every lint option of the table
    inserted after its parameter `after`, in the table's order: what Typer reads the command's
    options from."""
    parameters = list(inspect.signature(own, eval_str=True).parameters.values())
    at = [p.name for p in parameters].index(after) + 1
    options = [
        inspect.Parameter(
            parameter_name(option),
            inspect.Parameter.KEYWORD_ONLY,
            annotation=Annotated[option.cli_type | None, typer_option(option)],
            default=None,
        )
        for option in COMMAND_LINE
    ]
    own_parameters = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in parameters]
    return inspect.Signature([*own_parameters[:at], *options, *own_parameters[at:]])


def overrides(params: Mapping[str, Any]) -> LintOverrides:
    """The parsed options, by parameter name, as the overrides they state (None, or for a
    repeated option nothing: not stated). Raises OptionError (`--severity-override TC901`)."""
    stated = {}
    for option in COMMAND_LINE:
        given = params[parameter_name(option)]
        if option.from_cli is not None:
            given = option.from_cli(given)
        stated[option.field or ""] = given
    return LintOverrides(**stated)
