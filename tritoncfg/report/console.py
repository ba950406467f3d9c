"""The Rich console every Rich-rendered output goes through (help, usage errors, tables, rule
docs), given the colour decision made once by `cli.common.use_color`.

Rich decides colour by itself otherwise: it keeps bold and dim under `NO_COLOR`, ignores
`CLICOLOR_FORCE`, and drops colour for `TERM=dumb` even when forced. Here colour off means no
escape code at all (`color_system=None`), and colour on means colour into a pipe as well.
Rich is imported only when such output is written.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from rich.console import Console


def rich_console(file: TextIO | None, *, color: bool, **options: Any) -> Console:
    """A console writing to `file` (None: standard output) with colour exactly when `color`."""
    from rich.console import Console

    return Console(
        file=file,
        color_system="standard" if color else None,
        force_terminal=True if color else None,
        no_color=False,  # the decision is made: Rich must not read NO_COLOR again
        emoji=False,
        **options,
    )
