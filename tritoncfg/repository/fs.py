"""Listing directories without ever leaving the repository root.

Only names and `stat` results are read here. A symlink whose target leaves the root is
reported and not followed; listing errors become issues, never exceptions.
"""

from __future__ import annotations

import os
from pathlib import Path

from tritoncfg.record import record
from tritoncfg.repository.model import Entry, LayoutIssue, byte_order


def within(path: Path, root_real: Path) -> bool:
    return path.is_relative_to(root_real)


@record(frozen=True)
class Listing:
    entries: tuple[Entry, ...]
    issues: tuple[LayoutIssue, ...]
    readable: bool

    def entry(self, name: str) -> Entry | None:
        return next((e for e in self.entries if e.name == name), None)


def _symlink_problem(path: Path, root_real: Path, model: str | None) -> LayoutIssue | None:
    try:
        target = path.resolve()
    except (OSError, RuntimeError) as error:  # RuntimeError: a loop, before Python 3.13
        return LayoutIssue("broken_symlink", path, f"symlink cannot be resolved: {error}", model)
    if not within(target, root_real):
        detail = f"symlink points outside the repository root, to '{target}'; not followed"
        return LayoutIssue("symlink_outside_root", path, detail, model)
    if not target.exists():
        return LayoutIssue(
            "broken_symlink", path, f"symlink target '{target}' does not exist", model
        )
    return None


def _entry(
    item: os.DirEntry[str], parent: Path, root_real: Path, model: str | None
) -> tuple[Entry, LayoutIssue | None]:
    path = parent / item.name  # cheaper than parsing item.path whole
    is_symlink = item.is_symlink()
    if is_symlink:
        problem = _symlink_problem(path, root_real, model)
        if problem is not None:
            outside = problem.kind == "symlink_outside_root"
            return Entry(item.name, path, False, False, True, None, outside_root=outside), problem
    try:
        is_dir = item.is_dir()
        is_file = item.is_file()
    except OSError:
        is_dir = is_file = False
    size: int | None = None
    if is_file:
        try:
            size = item.stat().st_size
        except OSError:
            size = None
    return Entry(item.name, path, is_dir, is_file, is_symlink, size), None


def list_dir(path: Path, root_real: Path, *, model: str | None = None) -> Listing:
    """The top-level entries of `path`, sorted by bytes (as `std::set<std::string>` is)."""
    try:
        with os.scandir(path) as items:
            raw = list(items)
    except OSError as error:
        detail = f"cannot list directory: {error.strerror or error}"
        return Listing((), (LayoutIssue("unreadable_dir", path, detail, model),), False)
    entries: list[Entry] = []
    issues: list[LayoutIssue] = []
    for item in sorted(raw, key=lambda i: byte_order(i.name)):
        entry, issue = _entry(item, path, root_real, model)
        entries.append(entry)
        if issue is not None:
            issues.append(issue)
    return Listing(tuple(entries), tuple(issues), True)


def probe_file(
    path: Path, root_real: Path, *, model: str | None = None
) -> tuple[bool, LayoutIssue | None]:
    """Whether `path` is a regular file inside the root (a link out of it is not followed)."""
    if path.is_symlink():
        problem = _symlink_problem(path, root_real, model)
        if problem is not None:
            return False, problem
    try:
        return path.is_file(), None
    except OSError:
        return False, None
