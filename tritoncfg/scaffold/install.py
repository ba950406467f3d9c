"""`new --tritoncfg-spec`: the tritoncfg the scaffold's CI workflow and pre-commit hooks install.

One pip requirement, written into both files, so that CI and the hooks run the same tritoncfg:
a version (`0.1.0`, or a specifier such as `~=0.1`) is `tritoncfg==0.1.0` from the package index;
a URL (`git+https://...@v0.1.0`, an archive) is `tritoncfg @ URL`; anything else must be an
existing path (a checkout, a wheel or an sdist), written absolute: pre-commit installs hook
dependencies from its own cache folder, where a relative path means nothing.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

from tritoncfg import __version__
from tritoncfg.scaffold.spec import ScaffoldError

PACKAGE = "tritoncfg"
# PEP 440 public versions, as release tags name them (0.1.0, 1.0rc1, 0.2.0.post1, 0.3.dev2)
_VERSION = re.compile(r"\d+(\.\d+)*((a|b|rc)\d+)?(\.post\d+)?(\.dev\d+)?")
_SPECIFIER = re.compile(r"(==|~=|>=|<=|!=|>|<)\s*[0-9][0-9A-Za-z.*+!]*(\s*,\s*\S+)*")
_URL = re.compile(r"(git|hg|svn|bzr)\+[a-z]+://\S+|https?://\S+|file://\S+")


def requirement(spec: str | None, cwd: Path | None = None) -> str:
    """The pip requirement for `spec` (None: this installed tritoncfg's version)."""
    if spec is None:
        return f"{PACKAGE}=={__version__}"
    spec = spec.strip()
    if _VERSION.fullmatch(spec):
        return f"{PACKAGE}=={spec}"
    if _SPECIFIER.fullmatch(spec):
        return f"{PACKAGE}{spec.replace(' ', '')}"
    if _URL.fullmatch(spec):
        return f"{PACKAGE} @ {spec}"
    path = (cwd or Path.cwd()) / spec if spec else None
    if path is None or "://" in spec or not path.exists():
        raise ScaffoldError(
            f"--tritoncfg-spec {spec!r} is not a version (0.1.0), a URL (git+https://...) or "
            "an existing path (a tritoncfg checkout, wheel or sdist)"
        )
    return str(path.resolve())


def install_values(spec: str | None, cwd: Path | None = None) -> dict[str, str]:
    """The templates' placeholders: the requirement as a YAML scalar (pre-commit's
    additional_dependencies) and the workflow's install command (a YAML scalar too). JSON
    strings are YAML double-quoted scalars, whatever a path or URL holds."""
    wanted = requirement(spec, cwd)
    return {
        "tritoncfg_requirement": json.dumps(wanted),
        "tritoncfg_install": json.dumps(f"pip install {shlex.quote(wanted)}"),
    }


__all__ = ["PACKAGE", "install_values", "requirement"]
