"""Imports point down: every import between tritoncfg's packages follows the layer table in
docs/architecture.md (a package imports only from rows below its own)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import tritoncfg

PACKAGE = Path(tritoncfg.__file__).parent
ARCHITECTURE = PACKAGE.parent / "docs" / "architecture.md"
ROW = re.compile(r"^\|\s*(\d+)\s*\|(.*)\|\s*$")


def layer_table(text: str) -> dict[str, int]:
    """Unit name -> layer, from the `## Layers` table: `| 3 | `a`, `b` |`."""
    section = text.split("## Layers", 1)[1].split("\n## ", 1)[0]
    table: dict[str, int] = {}
    for line in section.splitlines():
        row = ROW.match(line)
        if row:
            for name in re.findall(r"`([\w.]+)`", row.group(2)):
                assert name not in table, f"{name} is in two rows"
                table[name] = int(row.group(1))
    return table


def _unit(module: str, root: str) -> str:
    """The package or top-level module of `root` that `module` belongs to (`root` for the
    package's own __init__)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else root


def _type_checking_only(tree: ast.Module) -> set[int]:
    """ids of the import nodes under `if TYPE_CHECKING:` (they never run)."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped |= {id(inner) for stmt in node.body for inner in ast.walk(stmt)}
    return skipped


def _imported(node: ast.AST, package: str, root: str, submodules: set[str]) -> Iterator[str]:
    """The modules of `root` an import node names (absolute or relative)."""
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
    elif isinstance(node, ast.ImportFrom):
        module = node.module or ""
        if node.level:
            base = package.split(".")[: len(package.split(".")) - node.level + 1]
            module = ".".join([*base, module] if module else base)
        if module == root:  # `from tritoncfg import api` imports the module api
            for alias in node.names:
                yield f"{root}.{alias.name}" if alias.name in submodules else root
        else:
            yield module


def import_arrows(package_dir: Path) -> Iterator[tuple[str, str, str]]:
    """(importing unit, imported unit, importing module) for every import between two units of
    the package at `package_dir`, in functions too."""
    root = package_dir.name
    submodules = {p.stem for p in package_dir.iterdir() if p.suffix == ".py" or p.is_dir()}
    for path in sorted(package_dir.rglob("*.py")):
        parts = path.relative_to(package_dir.parent).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skipped = _type_checking_only(tree)
        for node in ast.walk(tree):
            if id(node) in skipped:
                continue
            for target in _imported(node, package, root, submodules):
                if target == root or target.startswith(root + "."):
                    source, imported = _unit(module, root), _unit(target, root)
                    if source != imported:
                        yield source, imported, module


def violations(package_dir: Path, table: dict[str, int]) -> list[str]:
    found = []
    for source, imported, module in import_arrows(package_dir):
        if source not in table or imported not in table:
            found.append(f"{module}: {source} or {imported} is not in the layer table")
        elif table[imported] >= table[source]:
            found.append(
                f"{module} imports {imported} (layer {table[imported]}) "
                f"from {source} (layer {table[source]})"
            )
    return sorted(set(found))


def test_every_import_between_packages_points_down() -> None:
    table = layer_table(ARCHITECTURE.read_text(encoding="utf-8"))
    arrows = list(import_arrows(PACKAGE))
    assert ("cli", "api", "tritoncfg.cli.lint_core") in arrows  # the walk sees real imports
    assert any(a[:2] == ("triton", "checks") for a in arrows)
    assert violations(PACKAGE, table) == []


def test_every_package_is_in_the_table() -> None:
    table = layer_table(ARCHITECTURE.read_text(encoding="utf-8"))
    units = {p.stem for p in PACKAGE.iterdir() if p.suffix == ".py" or (p / "__init__.py").exists()}
    units = {"tritoncfg" if unit == "__init__" else unit for unit in units}
    assert units - set(table) == set()
    assert set(table) - units == set()  # no stale row


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root / "pkg"


def test_an_upward_import_inside_a_function_and_a_cycle_are_reported(tmp_path: Path) -> None:
    package = _write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/low/__init__.py": "def f():\n    from pkg.high import thing\n",
            "pkg/high/__init__.py": "from ..low import f\n",
            "pkg/high/typed.py": "from typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n    import pkg.top\n",
            "pkg/top.py": "from pkg import low, high\n",
        },
    )
    table = {"top": 3, "high": 2, "low": 1}
    assert violations(package, table) == ["pkg.low imports high (layer 2) from low (layer 1)"]
    assert violations(package, {"top": 3, "high": 1, "low": 1}) == [
        "pkg.high imports low (layer 1) from high (layer 1)",
        "pkg.low imports high (layer 1) from low (layer 1)",
    ]


def test_the_table_is_read_from_the_layers_section() -> None:
    text = "# A\n\n## Layers\n\n| layer | units |\n|--:|--|\n| 2 | `b`, `c` |\n| 1 | `a` |\n\n## Next\n| 9 | `z` |\n"
    assert layer_table(text) == {"b": 2, "c": 2, "a": 1}
