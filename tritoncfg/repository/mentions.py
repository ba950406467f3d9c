"""What a config's bytes show before it is parsed: whether it may be an ensemble, and which
models it may name.

Linting one config of a large repository (pre-commit) also checks the ensembles that run it;
finding them must not parse the repository. A config is parsed only when its bytes may name a
checked model (`strings_written`). `Mentions` remembers, by stamp, what the bytes of each config showed
(the lint cache keeps it), so an unchanged config is not even read again.
"""

from __future__ import annotations

import os
import re
from typing import Any, Literal

from tritoncfg.repository.reuse import SETTLE_NS

# A string literal, blanks and comments, then another: the parser joins adjacent literals
# (C++'s TextFormat::Parser::ParserImpl::ConsumeString), so a name can be written in pieces.
# Possessive: a quote inside a comment is no literal's start.
_ADJACENT_STRINGS = re.compile(rb"""["'](?:\s++|#[^\n]*+)*+["']""")


def strings_written(data: bytes) -> frozenset[str] | None:
    """Every string a field of this config could be set to, when the bytes tell: a superset
    (every run of text between two quotes of a kind), or None when a string may be written
    otherwise (an escape, text format's or JSON's, or adjacent literals the parser joins)."""
    if b"\\" in data or _ADJACENT_STRINGS.search(data):
        return None
    found: set[bytes] = set()
    for quote in (b'"', b"'"):
        found.update(data.split(quote)[1:-1])
    # no literal spans lines, and no model's name holds a slash; a config that is not UTF-8 is
    # not read at all: the replaced characters name nothing
    return frozenset(
        text.decode("utf-8", "replace") for text in found if b"\n" not in text and b"/" not in text
    )


Stamp = list[int]  # mtime_ns, ctime_ns, size, inode of the file (a symlink's own)
Known = frozenset[str] | Literal[False]  # a config's strings, or False: no `ensemble` in it


def file_stamp(path: str) -> Stamp | None:
    """The stamp of `path` (a symlink's own); None when it cannot be taken."""
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return [info.st_mtime_ns, info.st_ctime_ns, info.st_size, info.st_ino]


class Mentions:
    """What the bytes of a repository's configs showed, by path relative to the root: either
    that a config does not mention `ensemble`, or the strings it may hold (`strings_written`).
    `recorded` by a run that started at `started`: a row is trusted while its config's stamp is
    the same and settled. `now` is what the next run may trust."""

    def __init__(self, recorded: dict[str, Any], started: int) -> None:
        self.recorded = recorded
        self.trusted_before = started - SETTLE_NS
        self._learnt: dict[str, list[Any]] = {}
        self._stale: set[str] = set()  # recorded rows found changed, or untrusted

    def known(self, path: str, found: Stamp | None) -> Known | None:
        """The strings of the config at `path` (False: it does not mention `ensemble`), now
        stamped `found`, as recorded; None when they are not known."""
        row = self.recorded.get(path)
        if row is None or found is None:
            return None
        trusted = max(found[0], found[1]) < self.trusted_before
        if trusted and type(row) is list and len(row) == 5 and row[:4] == found:
            strings = row[4]
            if strings is None:
                return False
            if type(strings) is list and all(type(s) is str for s in strings):
                return frozenset(strings)
        self._stale.add(path)
        return None

    def learn(self, path: str, found: Stamp | None, strings: Known) -> None:
        """The strings of the config at `path`, stamped `found` before it was read."""
        if found is not None:
            self._learnt[path] = [*found, None if strings is False else sorted(strings)]

    @property
    def changed(self) -> bool:
        return bool(self._learnt or self._stale)

    @property
    def now(self) -> dict[str, list[Any]]:
        """The rows to record: those learnt, and the recorded ones neither found stale nor
        replaced (still trusted next time: trusted now, or not looked at)."""
        gone = self._stale | self._learnt.keys()
        kept = {
            path: row
            for path, row in self.recorded.items()
            if path not in gone and self._settled(row)
        }
        return {**kept, **self._learnt}

    def _settled(self, row: Any) -> bool:
        """A well-formed row of a config changed long enough before it was recorded."""
        if type(row) is not list or len(row) != 5 or not all(type(n) is int for n in row[:4]):
            return False
        return bool(max(row[0], row[1]) < self.trusted_before)
