"""The shipped templates (`templates/` in a checkout, `tritoncfg.templates` when installed)."""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable
from string import Template

from tritoncfg.scaffold.spec import ScaffoldError

PACKAGE = "tritoncfg.templates"
DOT_PREFIX = "dot-"  # a template file named `dot-x` is written as `.x`


def template_root() -> Traversable:
    try:
        return resources.files(PACKAGE)
    except ModuleNotFoundError:
        # an editable install made before templates/ was packaged: its finder lacks the mapping
        raise ScaffoldError(
            f"the templates ({PACKAGE}) are not installed with tritoncfg; reinstall it "
            "(pip install -e . in a checkout)"
        ) from None


def read_template(relpath: str) -> str:
    node = template_root()
    for part in relpath.split("/"):
        node = node / part
    return node.read_text(encoding="utf-8")


def render(relpath: str, **values: object) -> str:
    """A template with its `$placeholders` filled; a missing value is a KeyError (a bug)."""
    return Template(read_template(relpath)).substitute({k: str(v) for k, v in values.items()})


def tree_files(folder: str) -> list[tuple[str, str]]:
    """(template path, output path) of every file under `folder`, `dot-` names as dotfiles."""
    found: list[tuple[str, str]] = []

    def walk(node: Traversable, source: str, target: str) -> None:
        for child in sorted(node.iterdir(), key=lambda n: n.name):
            name = child.name
            if name == "__pycache__":
                continue
            out = "." + name[len(DOT_PREFIX) :] if name.startswith(DOT_PREFIX) else name
            if child.is_dir():
                walk(child, f"{source}/{name}", f"{target}{out}/")
            else:
                found.append((f"{source}/{name}", f"{target}{out}"))

    walk(template_root() / folder, folder, "")
    return found


__all__ = ["PACKAGE", "read_template", "render", "template_root", "tree_files"]
