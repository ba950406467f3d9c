"""`parse()`: config.pbtxt text → syntax tree + `inference.ModelConfig` + source map + errors."""

from __future__ import annotations

from tritoncfg.gcpause import collector_paused
from tritoncfg.record import field, record
from tritoncfg.schema import ModelConfig
from tritoncfg.text.bind import Binder, ErrorLog, FieldPath, Location, SourceMap, TextError
from tritoncfg.text.parser import SyntaxProblem, parse_tree
from tritoncfg.text.span import FILE_START, Span
from tritoncfg.text.tree import Document


@record
class ParsedConfig:
    """One config file as tritoncfg sees it.

    `message` is what Triton would load when `ok`; after errors it holds what could be bound
    (best effort, for reporting), and `document` is None only after a syntax error. `errors`
    holds the first `MAX_TEXT_ERRORS` (bind.py); `omitted` counts the others, the first of them
    is `first_omitted`.
    """

    source: str
    path: str | None
    document: Document | None
    message: ModelConfig
    errors: list[TextError] = field(default_factory=list)
    locations: SourceMap = field(default_factory=dict)
    omitted: int = 0
    first_omitted: TextError | None = None

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def error_count(self) -> int:
        """Every error of the file, those not kept included."""
        return len(self.errors) + self.omitted

    def location(self, path: FieldPath) -> Location | None:
        return self.locations.get(path)

    def span_of(self, path: FieldPath, *, value: bool = False) -> Span:
        """The span of a field path, or of its nearest written ancestor (file start if none)."""
        probe = path
        while probe:
            found = self.locations.get(probe)
            if found is not None:
                return found.value_span if value else found.name_span
            probe = probe[:-1]
        return FILE_START


def parse(source: str, path: str | None = None) -> ParsedConfig:
    """Parse config.pbtxt text. Never raises for bad input: problems are in `.errors`."""
    message = ModelConfig()
    with collector_paused():  # one pause for the tree and the binding (parse_tree nests its own)
        try:
            document = parse_tree(source)
        except SyntaxProblem as exc:
            return ParsedConfig(
                source, path, None, message, [TextError("syntax", exc.message, exc.span)]
            )
        binder = Binder()
        binder.bind_fields(document.fields, message, ())
    return bound_config(source, path, document, message, binder, binder.locations)


def bound_config(
    source: str,
    path: str | None,
    document: Document | None,
    message: ModelConfig,
    log: ErrorLog,
    locations: SourceMap,
) -> ParsedConfig:
    """The config a binding gave, with its errors as `log` kept and counted them."""
    return ParsedConfig(
        source, path, document, message, log.errors, locations, log.omitted, log.first_omitted
    )
