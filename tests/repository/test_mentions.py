"""What a config's bytes show before it is parsed (repository/mentions.py): every string the
parser could set a field to is among `strings_written`, or it answers None."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tritoncfg.repository.mentions import Mentions, file_stamp, strings_written
from tritoncfg.repository.reuse import SETTLE_NS
from tritoncfg.text import parse

STEPS = "ensemble_scheduling {{ step [ {{ model_name: {name} model_version: -1 }} ] }}\n"


def _step_name(text: str) -> str:
    parsed = parse(text)
    assert not parsed.errors, parsed.errors
    return parsed.message.ensemble_scheduling.step[0].model_name


@pytest.mark.parametrize(
    "written",
    [
        '"resnet"',
        "'resnet'",
        '"resnet"  # a comment with "quotes" and an apostrophe: don\'t\n',
        '"res\'net"',  # the other quote inside a literal
    ],
)
def test_a_name_written_as_one_literal_is_among_the_strings(written: str) -> None:
    text = 'platform: "ensemble"\n# model "x" isn\'t here\n' + STEPS.format(name=written)
    strings = strings_written(text.encode())
    assert strings is not None
    assert _step_name(text) in strings


@pytest.mark.parametrize(
    "written",
    [
        '"res" "net"',  # adjacent literals, joined by the parser
        "'res' \"net\"",
        '"res"  # a comment between the pieces\n  "net"',
        '"res\\x6eet"',  # an escape
        '"\\162esnet"',
    ],
)
def test_a_name_the_bytes_cannot_show_gives_none(written: str) -> None:
    text = 'platform: "ensemble"\n' + STEPS.format(name=written)
    assert _step_name(text) == "resnet"  # the parser does spell it so
    assert b"resnet" not in text.encode()
    assert strings_written(text.encode()) is None


def test_json_escapes_give_none() -> None:
    text = b'{"ensembleScheduling": {"step": [{"modelName": "res\\u006eet"}]}}'
    assert strings_written(text) is None


def test_lines_and_slashes_are_not_names() -> None:
    strings = strings_written(b'a: "x"\nb: "y/z"\nc: "w"\n')
    assert strings is not None
    assert "x" in strings and "w" in strings
    assert not any("\n" in s or "/" in s for s in strings)


def _settled_file(tmp_path: Path, text: str) -> tuple[str, int]:
    path = tmp_path / "m" / "config.pbtxt"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return str(path), time.time_ns() + SETTLE_NS + 1  # a run that starts settled after it


def test_a_recorded_row_is_trusted_while_the_stamp_is_the_same_and_settled(
    tmp_path: Path,
) -> None:
    path, later = _settled_file(tmp_path, 'backend: "python"\n')
    found = file_stamp(path)
    first = Mentions({}, 0)
    assert first.known("m/config.pbtxt", found) is None
    first.learn("m/config.pbtxt", found, False)
    first.learn("e/config.pbtxt", [1, 1, 1, 1], frozenset({"step"}))
    assert first.changed
    again = Mentions(first.now, later)
    assert again.known("m/config.pbtxt", file_stamp(path)) is False
    assert again.known("e/config.pbtxt", [1, 1, 1, 1]) == frozenset({"step"})
    assert not again.changed and again.now == first.now
    # a run too soon after the file changed does not trust it (a same-tick edit hides)
    soon = Mentions(first.now, found[1] + 1)  # type: ignore[index]
    assert soon.known("m/config.pbtxt", file_stamp(path)) is None


def test_a_changed_config_is_not_known_and_its_row_goes(tmp_path: Path) -> None:
    path, later = _settled_file(tmp_path, 'backend: "python"\n')
    recorded = Mentions({}, 0)
    recorded.learn("m/config.pbtxt", file_stamp(path), False)
    Path(path).write_text('platform: "ensemble"\n')  # same inode, new size and times
    os.utime(path, ns=(1, 1))  # even with the old mtime back: ctime and size differ
    mentions = Mentions(recorded.now, later)
    assert mentions.known("m/config.pbtxt", file_stamp(path)) is None
    assert mentions.changed and "m/config.pbtxt" not in mentions.now


@pytest.mark.parametrize(
    "row", ["x", [1, 2, 3], [1, 2, 3, 4, [5]], [1, 2, 3, 4, "s"], ["1", 2, 3, 4, None]]
)
def test_rows_of_the_wrong_types_are_not_trusted(row: object) -> None:
    mentions = Mentions({"m/config.pbtxt": row}, 10**20)
    assert mentions.known("m/config.pbtxt", [1, 2, 3, 4]) is None
    assert "m/config.pbtxt" not in mentions.now
