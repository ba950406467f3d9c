"""`SourceTexts`: the config texts of a lint's findings, by path, for the snippets shown beside
them. Its own module: a lint the cache replays renders findings without importing the lint run
(lintrun.py) and the rules."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping

from tritoncfg.confined import read_regular


class SourceTexts(Mapping[str, str]):
    """Config texts by path, for snippets: those at hand, and those of cached models, read from
    disk when first asked for (only a file whose finding is shown is read)."""

    def __init__(self, texts: Mapping[str, str] | None = None, on_disk: Iterable[str] = ()):
        self._texts = dict(texts or {})
        self._files = {path: path for path in on_disk if path not in self._texts}

    def __getitem__(self, key: str) -> str:
        if key not in self._texts:
            file = self._files[key]  # KeyError: not a linted config
            try:  # a regular file only: it may have become a FIFO since it was linted
                self._texts[key] = read_regular(file).decode("utf-8", errors="replace")
            except OSError:
                self._texts[key] = ""
        return self._texts[key]

    def __iter__(self) -> Iterator[str]:
        yield from self._texts
        yield from (key for key in self._files if key not in self._texts)

    def __len__(self) -> int:
        return len(self._texts) + sum(key not in self._texts for key in self._files)

    def __contains__(self, key: object) -> bool:
        return key in self._texts or key in self._files

    def update(self, other: Mapping[str, str]) -> None:
        """Add another model's texts, keeping those of `other` unread where they are."""
        if isinstance(other, SourceTexts):
            self._texts.update(other._texts)
            self._files.update({k: f for k, f in other._files.items() if k not in self._texts})
        else:
            self._texts.update(other)

    def renamed(self, name: Callable[[str], str]) -> SourceTexts:
        """The same texts under other names (paths shown relative, or as URLs), unread ones
        still unread."""
        renamed = SourceTexts({name(k): text for k, text in self._texts.items()})
        renamed._files = {name(k): f for k, f in self._files.items() if k not in self._texts}
        return renamed
