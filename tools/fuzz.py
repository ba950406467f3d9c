"""`make fuzz`: a long, coverage-guided fuzz run over the lexer, the parser, the JSON reader and
the lint cache's readers.

With atheris (libFuzzer for Python; `pip install atheris`), each input is decoded as UTF-8 and
fed to `tritoncfg.text.parse`, `format_source`, `parse_json` and `format_json`, and read as a
cache file by the cache's codec and replay check; anything but a clean result, a `SyntaxProblem`
or, from the cache, what it catches (`codec.DAMAGE`: the cache then treats the content as absent)
is a crash, which libFuzzer saves as `crash-*` in the working directory. The seed corpus is the
example repository's configs and a sound cache row and table. Without atheris (it builds only for
some Python versions and platforms), this falls back to the property-based tests (tests/properties:
the text and JSON paths, and the codec) under the long `fuzz` hypothesis profile (random, 20,000
examples each), and says so.

    python tools/fuzz.py [--runs N] [--seconds S] [libFuzzer flags...]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import tempfile
from contextlib import suppress
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _one_input(data: bytes) -> None:
    from tritoncfg.text import parse
    from tritoncfg.text.json_config import parse_json
    from tritoncfg.text.parser import SyntaxProblem
    from tritoncfg.text.printer import format_source

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return  # tritoncfg reports undecodable files before parsing (TC007)
    parse(text)
    parse_json(text)
    _json_reader(text)
    _read_as_cache(data)
    try:
        formatted = format_source(text)
    except SyntaxProblem:
        return
    if parse(formatted).message != parse(text).message and parse(text).ok:
        raise AssertionError("fmt changed the meaning of a config")


def _read_as_cache(data: bytes) -> None:
    from tritoncfg.lintcache.codec import DAMAGE, decode, load, unpack
    from tritoncfg.lintcache.replay import validate

    content = load(data)
    validate(content, "run")  # catches what it can read wrong itself
    for read in (decode, unpack):
        with suppress(DAMAGE):
            read(content)


def _json_reader(text: str) -> None:
    from tritoncfg.text.json_reader import format_json
    from tritoncfg.text.parser import SyntaxProblem

    with contextlib.suppress(SyntaxProblem):
        format_json(text)


def _codec_seeds() -> list[str]:
    import json

    from tritoncfg.diagnostics import Diagnostic, Severity
    from tritoncfg.lintcache.codec import encode, pack
    from tritoncfg.text.span import Span

    row = encode(Diagnostic("TC203", "r", Severity.ERROR, "m", "c.pbtxt", Span(1, 1, 1, 2), "m"))
    return [json.dumps(row), json.dumps(pack([row, row]))]


def _seeds(directory: Path) -> Path:
    for index, path in enumerate(sorted((ROOT / "examples").rglob("config.pbtxt"))):
        (directory / f"seed{index}").write_bytes(path.read_bytes())
    for index, text in enumerate(_codec_seeds()):
        (directory / f"codec{index}").write_text(text, encoding="utf-8")
    return directory


def with_atheris(runs: int, seconds: int, extra: list[str]) -> int:
    import atheris

    with atheris.instrument_imports(include=["tritoncfg"]):
        import tritoncfg.lintcache.codec
        import tritoncfg.lintcache.replay
        import tritoncfg.text.json_config
        import tritoncfg.text.json_reader
        import tritoncfg.text.printer  # noqa: F401

    with tempfile.TemporaryDirectory(prefix="tritoncfg-fuzz-") as work:
        corpus = _seeds(Path(work))
        argv = [sys.argv[0], f"-runs={runs}", f"-max_total_time={seconds}", *extra, str(corpus)]
        print(
            f"fuzz: atheris over the lexer, parser, printer, JSON reader and cache codec ({runs} runs max)"
        )
        atheris.Setup(argv, _one_input)
        atheris.Fuzz()
    return 0


def with_hypothesis() -> int:
    print("fuzz: atheris is not installed here; running the property-based tests with the long")
    print("      `fuzz` hypothesis profile instead (random, 20,000 examples each)")
    env = dict(os.environ, HYPOTHESIS_PROFILE="fuzz")
    command = [sys.executable, "-m", "pytest", "-q", str(ROOT / "tests" / "properties")]
    return subprocess.run(command, env=env, cwd=ROOT, check=False).returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200_000, help="libFuzzer -runs")
    parser.add_argument("--seconds", type=int, default=600, help="libFuzzer -max_total_time")
    args, extra = parser.parse_known_args()
    try:
        import atheris  # noqa: F401
    except ImportError:
        return with_hypothesis()
    return with_atheris(args.runs, args.seconds, extra)


if __name__ == "__main__":
    sys.exit(main())
