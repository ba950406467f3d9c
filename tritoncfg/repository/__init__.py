"""Repository discovery: repository → model directories → versions → entries.

Pure facts from the file system, as Triton's model repository manager would see them;
no config parsing and no rules. Start with `discover(path)` or `discover_many(paths)`.
"""

from __future__ import annotations

from tritoncfg.repository.discover import discover, discover_many
from tritoncfg.repository.model import (
    CONFIG_FILENAME,
    CONFIGS_DIRNAME,
    INITIAL_STATE_DIRNAME,
    WARMUP_DIRNAME,
    Entry,
    IgnoredCause,
    IgnoredDir,
    IssueKind,
    LayoutIssue,
    ModelDir,
    Repository,
    RepositoryError,
    RepositoryKind,
    Version,
)
from tritoncfg.repository.versions import SKIPPED_DIRS, backend_version_dirname, stoll

__all__ = [
    "CONFIGS_DIRNAME",
    "CONFIG_FILENAME",
    "INITIAL_STATE_DIRNAME",
    "SKIPPED_DIRS",
    "WARMUP_DIRNAME",
    "Entry",
    "IgnoredCause",
    "IgnoredDir",
    "IssueKind",
    "LayoutIssue",
    "ModelDir",
    "Repository",
    "RepositoryError",
    "RepositoryKind",
    "Version",
    "backend_version_dirname",
    "discover",
    "discover_many",
    "stoll",
]
