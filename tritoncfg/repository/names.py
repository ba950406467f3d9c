"""What a model folder may be named, for the tools that create one (`new`, `gen ensemble`).

A model's name is a folder of the repository and a path segment of `/v2/models/<name>`: letters,
digits, `_`, `-` and `.`. Triton's repository manager polls every folder of the repository as a
model, hidden ones included (`model_repository_manager.cc`), so a name starting with `.` would
make a folder that tools and git treat as hidden while Triton still loads it.
"""

from __future__ import annotations

import re

NAME_MAX = 255  # bytes in one path component (Linux, macOS and Windows file systems alike)
_ALLOWED = re.compile(r"[A-Za-z0-9_.-]")


def model_name_problem(name: str, what: str = "model name") -> str | None:
    """Why `name` cannot name a new model folder (one sentence that names the reason), or None
    when it can. `what` says which name it is, e.g. "ensemble name", "--target model name"."""
    if not name:
        return f"empty {what}: give a folder name (letters, digits, '_', '-', '.')"
    if "/" in name or "\\" in name:
        return f"{what} {name!r} contains a path separator; give a plain name"
    size = len(name.encode("utf-8"))
    if size > NAME_MAX:
        return (
            f"{what} {name[:24]!r}... is {size} bytes long; it names a folder, and a file name "
            f"is at most {NAME_MAX} bytes"
        )
    if name in {".", ".."}:
        return f"{what} {name!r} is not a folder of its own; give a name"
    bad = sorted({c for c in name if not _ALLOWED.fullmatch(c)})
    if bad:
        shown = ", ".join(repr(c) for c in bad)
        return (
            f"{what} {name!r} contains {shown}: use letters, digits, '_', '-' and '.' (the name "
            "is a folder and a URL path segment)"
        )
    if name.startswith("."):
        return (
            f"{what} {name!r} starts with '.': the folder would be hidden, and Triton would still "
            "poll it as a model"
        )
    return None


__all__ = ["NAME_MAX", "model_name_problem"]
