"""The docs tables of the lint options, from their declarations (table.py): docs/cli.md's table
of lint's options that are settings too, and docs/linting.md's settings table and example.
`tools/gen_docs.py` writes them between the `<!-- generated: NAME -->` and `<!-- end: NAME -->`
lines of those files; a test fails when they are stale."""

from __future__ import annotations

import enum

from tritoncfg.options.declare import LintOption
from tritoncfg.options.table import LINT_OPTIONS


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _value(option: LintOption) -> str:
    """What follows the flag: an enum's choices, or the metavar."""
    if isinstance(option.cli_type, type) and issubclass(option.cli_type, enum.Enum):
        return "|".join(choice.value for choice in option.cli_type)
    return option.metavar


def flag_cell(option: LintOption) -> str:
    """`--gpus IDS`, `--triton-mode default\\|strict`, `--cache` / `--no-cache`."""
    value = _value(option)
    forms = (option.flag or "").split("/")
    return " / ".join(_cell(f"`{form}{' ' + value if value else ''}`") for form in forms)


def cli_table() -> str:
    rows = [f"| {flag_cell(o)} | `{o.key}` | {_cell(o.doc)} |" for o in LINT_OPTIONS if o.flag]
    return "\n".join(["| option | setting | meaning |", "|---|---|---|", *rows])


def settings_table() -> str:
    rows = [
        f"| `{o.key}` | {flag_cell(o) if o.flag else ''} | {_cell(o.summary)} |"
        for o in LINT_OPTIONS
    ]
    return "\n".join(["| setting | option | meaning |", "|---|---|---|", *rows])


def settings_example() -> str:
    lines = ["```toml", "[tool.tritoncfg]"]
    for option in LINT_OPTIONS:
        line = f"{option.key} = {option.example}"
        lines.append(f"{line.ljust(31)}  # {option.note}" if option.note else line)
    return "\n".join([*lines, "```"])


def sections() -> dict[str, dict[str, str]]:
    """docs file (relative to the repository) -> section name -> its generated text."""
    return {
        "docs/cli.md": {"lint-options": cli_table()},
        "docs/linting.md": {
            "settings-table": settings_table(),
            "settings-example": settings_example(),
        },
    }


def regenerate(text: str, generated: dict[str, str]) -> str:
    """`text` with each named section's lines replaced by its generated text. Raises
    ValueError for a section the text does not mark."""
    for name, body in generated.items():
        begin, end = f"<!-- generated: {name} -->", f"<!-- end: {name} -->"
        head, found, rest = text.partition(begin + "\n")
        _, closed, tail = rest.partition(end)
        if not (found and closed):
            raise ValueError(f"no {begin} ... {end} lines")
        text = f"{head}{begin}\n{body}\n{end}{tail}"
    return text
