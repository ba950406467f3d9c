"""`LintResult`: what a lint found, built once by the driver and never changed after."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from tritoncfg.diagnostics import Diagnostic, Severity
from tritoncfg.record import field, record, replace
from tritoncfg.sourcetexts import SourceTexts


@record(frozen=True)
class LintResult:
    """What a lint found; frozen once built (a report that shows paths otherwise, relative or
    as URLs, builds its own view: `renamed`, report/formats.py's `Report`)."""

    diagnostics: list[Diagnostic]
    files: int
    models: int
    sources: Mapping[str, str] = field(default_factory=dict)  # config path -> text, for snippets
    file_paths: list[str] = field(default_factory=list)  # the config files that were linted
    relinted: list[str] = field(default_factory=list)  # the models linted, not taken from the cache
    warnings_as_errors: bool = False  # the run's setting: warnings fail it too
    replayed: bool = False  # the whole result came from the cache: nothing was listed or read
    notes: list[str] = field(default_factory=list)  # what the run could not do, a line each
    lost: list[str] = field(default_factory=list)  # the models not linted (a killed worker), why

    def count(self, severity: Severity) -> int:
        return sum(d.severity is severity for d in self.diagnostics)

    @property
    def has_errors(self) -> bool:
        return self.count(Severity.ERROR) > 0

    @property
    def failed(self) -> bool:
        """Whether `tritoncfg lint` exits 1: an error, or a warning with warnings-as-errors."""
        return self.has_errors or (self.warnings_as_errors and self.count(Severity.WARNING) > 0)

    def renamed(self, name: Callable[[str], str]) -> LintResult:
        """The same result with every path, and every path a message mentions, written as
        `name` writes it (a staged cloud repository's as its URL, a scratch folder's as the
        file it stands for); the config texts not read yet stay unread."""

        def rename(d: Diagnostic) -> Diagnostic:
            triton = d.triton
            if triton is not None and triton.message is not None:
                triton = replace(triton, message=name(triton.message))
            return replace(d, path=name(d.path), message=name(d.message), triton=triton)

        sources = self.sources
        return replace(
            self,
            diagnostics=[rename(d) for d in self.diagnostics],
            sources=sources.renamed(name)
            if isinstance(sources, SourceTexts)
            else {name(path): text for path, text in sources.items()},
            file_paths=[name(path) for path in self.file_paths],
        )
