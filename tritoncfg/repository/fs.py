"""Listing directories without ever leaving the repository root.

Only names and `stat` results are read here. A symlink whose target leaves the root is
reported and not followed; listing errors become issues, never exceptions.
"""

from __future__ import annotations

import os
from pathlib import Path

from tritoncfg.record import record
from tritoncfg.repository.model import UNREAD, Entry, LayoutIssue, byte_order, find_entry


def within(path: Path, root_real: Path) -> bool:
    return path.is_relative_to(root_real)


@record(frozen=True)
class Listing:
    entries: tuple[Entry, ...]
    issues: tuple[LayoutIssue, ...]
    readable: bool

    def entry(self, name: str) -> Entry | None:
        return find_entry(self.entries, name)


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


def _link_entry(
    item: os.DirEntry[str], parent: Path, root_real: Path, model: str | None
) -> tuple[Entry, LayoutIssue | None]:
    """A symlink's entry: what it points to when that is inside the root, else nothing."""
    problem = _symlink_problem(parent / item.name, root_real, model)
    if problem is not None:
        outside = problem.kind == "symlink_outside_root"
        return Entry(item.name, parent, False, False, True, None, outside_root=outside), problem
    return _plain_entry(item, parent, True), None


def _plain_entry(item: os.DirEntry[str], parent: Path, is_symlink: bool) -> Entry:
    try:
        is_dir = item.is_dir()
        is_file = not is_dir and item.is_file()
    except OSError:
        is_dir = is_file = False
    return Entry(item.name, parent, is_dir, is_file, is_symlink, UNREAD if is_file else None)


def _name(item: os.DirEntry[str]) -> str:
    return item.name


def _byte_key(item: os.DirEntry[str]) -> bytes:
    return byte_order(item.name)


def byte_sort(items: list[os.DirEntry[str]]) -> None:
    """Sort by the names' bytes, as `std::set<std::string>` does; names all ASCII (the usual
    listing) sort the same as strings, without encoding each."""
    if len(items) > 1:
        items.sort(key=_name if all(item.name.isascii() for item in items) else _byte_key)


def list_dir(path: Path, root_real: Path, *, model: str | None = None) -> Listing:
    """The top-level entries of `path`, sorted by bytes (as `std::set<std::string>` is)."""
    try:
        with os.scandir(path) as items:
            raw = list(items)
    except OSError as error:
        detail = f"cannot list directory: {error.strerror or error}"
        return Listing((), (LayoutIssue("unreadable_dir", path, detail, model),), False)
    byte_sort(raw)
    entries: list[Entry] = []
    issues: list[LayoutIssue] = []
    for item in raw:
        if item.is_symlink():
            entry, issue = _link_entry(item, path, root_real, model)
            if issue is not None:
                issues.append(issue)
            entries.append(entry)
        else:
            entries.append(_plain_entry(item, path, False))
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
