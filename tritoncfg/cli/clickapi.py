"""The Click that Typer runs on: typer 0.28 carries its own copy (`typer._click`), whose
exceptions and classes are not those of the `click` package; older releases use `click`."""

from __future__ import annotations

from types import ModuleType

import typer.core


def _click() -> ModuleType:
    vendored = getattr(typer.core, "_click", None)
    if isinstance(vendored, ModuleType):
        return vendored
    import click as installed

    return installed


click = _click()
