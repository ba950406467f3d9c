"""Where the linted files come from in version control, for SARIF's `versionControlProvenance`.

Read with the local `git` only (no network): the work tree's top, `origin`'s URL, the commit and
the branch. Without git, outside a work tree, or on any failure there is no provenance: a SARIF
report never fails for it.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from tritoncfg.record import record

_TIMEOUT_S = 5
# scp-like remotes (`git@github.com:owner/repo.git`) are not URIs: SARIF wants one
_SCP_LIKE = re.compile(r"^(?P<user>[^@/]+@)?(?P<host>[^:/]{2,}):(?P<path>(?!//).+)$")


@record
class VersionControl:
    repository_uri: str
    top: Path
    revision: str | None = None
    branch: str | None = None

    def to_sarif(self, root: Path | None) -> dict[str, Any]:
        """A versionControlDetails object (SARIF 2.1.0); `mappedTo` says %SRCROOT% is the
        repository's top when the report's root is that directory."""
        details: dict[str, Any] = {"repositoryUri": self.repository_uri}
        if self.revision:
            details["revisionId"] = self.revision
        if self.branch:
            details["branch"] = self.branch
        if root is not None and root.resolve() == self.top.resolve():
            details["mappedTo"] = {"uriBaseId": "%SRCROOT%"}
        return details


def _git(directory: Path, *args: str) -> str | None:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0"}
    try:
        done = subprocess.run(
            ["git", "-C", str(directory), *args],
            capture_output=True,
            text=True,
            timeout=_TIMEOUT_S,
            env=env,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    out = done.stdout.strip()
    return out if done.returncode == 0 and out else None


def repository_uri(remote: str) -> str:
    """`origin`'s URL as a URI without credentials (a token in an https remote stays private)."""
    scp = _SCP_LIKE.match(remote)
    if scp is not None and "://" not in remote:
        remote = f"ssh://{scp['host']}/{scp['path'].lstrip('/')}"
    parts = urlsplit(remote)
    if parts.scheme and parts.hostname:
        host = parts.hostname + (f":{parts.port}" if parts.port else "")
        return urlunsplit((parts.scheme, host, parts.path, "", ""))
    return remote if parts.scheme else Path(remote).resolve().as_uri()


def find_version_control(directory: Path) -> VersionControl | None:
    """The git work tree `directory` is in, or None (no git, not a work tree, any error)."""
    top = _git(directory, "rev-parse", "--show-toplevel")
    if top is None:
        return None
    remote = _git(directory, "remote", "get-url", "origin")
    uri = repository_uri(remote) if remote else Path(top).as_uri() + "/"
    return VersionControl(
        repository_uri=uri,
        top=Path(top),
        revision=_git(directory, "rev-parse", "--verify", "-q", "HEAD"),
        branch=_git(directory, "symbolic-ref", "--short", "-q", "HEAD"),
    )
