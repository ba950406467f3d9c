"""Imports point down: every import between tritoncfg's packages follows the layer table in
docs/architecture.md (a package imports only from rows below its own), `if TYPE_CHECKING:`
imports included, and no two modules import each other, directly or around a loop."""

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
        for node in ast.walk(tree):  # imports under `if TYPE_CHECKING:` too
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
    assert violations(package, table) == [
        "pkg.high.typed imports top (layer 3) from high (layer 2)",  # under TYPE_CHECKING too
        "pkg.low imports high (layer 2) from low (layer 1)",
    ]
    assert violations(package, {"top": 3, "high": 1, "low": 1}) == [
        "pkg.high imports low (layer 1) from high (layer 1)",
        "pkg.high.typed imports top (layer 3) from high (layer 1)",
        "pkg.low imports high (layer 1) from low (layer 1)",
    ]


def test_the_table_is_read_from_the_layers_section() -> None:
    text = "# A\n\n## Layers\n\n| layer | units |\n|--:|--|\n| 2 | `b`, `c` |\n| 1 | `a` |\n\n## Next\n| 9 | `z` |\n"
    assert layer_table(text) == {"b": 2, "c": 2, "a": 1}


def module_imports(package_dir: Path) -> dict[str, set[str]]:
    """Module -> the modules of the package it imports (in functions and under TYPE_CHECKING
    too; `from pkg.a import b` names the module pkg.a.b where there is one)."""
    root = package_dir.name
    modules: dict[str, Path] = {}
    for path in sorted(package_dir.rglob("*.py")):
        parts = path.relative_to(package_dir.parent).with_suffix("").parts
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                name = node.module or ""
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    name = ".".join([*base, name] if name else base)
                found.add(name)
                found.update(f"{name}.{alias.name}" for alias in node.names)
        graph[module] = {m for m in found if m in modules and m != module and m != root}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, targets = work[-1]
            target = next(targets, None)
            if target is not None:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def test_no_two_modules_import_each_other() -> None:
    graph = module_imports(PACKAGE)
    assert "tritoncfg.lintrun" in graph["tritoncfg.lintdriver"]  # the walk sees real imports
    assert "tritoncfg.cli.lint_request" in graph["tritoncfg.cli.lint_core"]
    assert cycles(graph) == []


def test_a_cycle_through_type_checking_is_found(tmp_path: Path) -> None:
    package = _write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "from pkg.b import f\n",
            "pkg/b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import a\n",
            "pkg/c.py": "import pkg.a\n",
        },
    )
    assert cycles(module_imports(package)) == [["pkg.a", "pkg.b"]]
