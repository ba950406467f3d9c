"""Cloud repositories that are hostile or broken: a frozen endpoint, names a disk cannot hold,
configs of every size, credentials in the URL. Each ends in findings or one clear line (exit 2),
never a hang, a traceback or a leaked secret."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from typing import Any

import pytest
from s3kit import BUCKET

from tritoncfg.cloud.client import CONNECT_TIMEOUT_ENV, READ_TIMEOUT_ENV

CONFIG = b'backend: "python"\nmax_batch_size: 4\n'
SECRET = "wJalrXUtnFEMI/K7MDENG+bPxRfiCY"  # an AWS-style secret key: it holds '/' and '+'


def _tritoncfg(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """The real command, bounded in time (a hang fails the test instead of stalling it)."""
    env = {**os.environ, "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "tritoncfg", *args],
        capture_output=True, text=True, env=env, timeout=timeout, check=False,
    )  # fmt: skip


def _put(s3: Any, prefix: str, objects: dict[str, bytes]) -> None:
    for key, body in objects.items():
        s3.put_object(Bucket=BUCKET, Key=f"{prefix}/{key}", Body=body)


def _url(s3_server: str, prefix: str) -> str:
    return f"s3://{s3_server.removeprefix('http://')}/{BUCKET}/{prefix}"


def test_a_frozen_endpoint_ends_lint_with_the_url(
    frozen_endpoint: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv(CONNECT_TIMEOUT_ENV, "1")
    monkeypatch.setenv(READ_TIMEOUT_ENV, "1")
    url = f"s3://{frozen_endpoint}/models/repo"
    started = time.monotonic()
    result = _tritoncfg("lint", url, timeout=60)
    took = time.monotonic() - started
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith(f"tritoncfg: error: {url}: cannot list the repository: ")
    assert "no answer within the timeouts (1 s to connect, 1 s to read;" in result.stderr
    assert "Traceback" not in result.stderr
    assert took < 30  # two attempts of 1 s and a start-up, not 5 x 5 attempts of 15 s


@pytest.mark.parametrize("endpoint", ["frozen", "refused"])
def test_a_gcs_endpoint_that_does_not_answer_ends_lint_in_two_attempts(
    frozen_endpoint: str, endpoint: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """gcsfs tries a request six times, with back-offs of 1 to 16 s: a refused connection took
    35 s to report and a frozen endpoint 41 s with 1-s timeouts (three minutes with the default
    ones). tritoncfg tries twice."""
    pytest.importorskip("gcsfs", reason="gcsfs (cloud extra) is needed to read gs:// URLs")
    host = frozen_endpoint
    if endpoint == "refused":
        import socket

        with socket.socket() as spare:  # a port nothing listens on once it is closed
            spare.bind(("127.0.0.1", 0))
            host = f"127.0.0.1:{spare.getsockname()[1]}"
    monkeypatch.setenv("STORAGE_EMULATOR_HOST", f"http://{host}")
    monkeypatch.setenv(CONNECT_TIMEOUT_ENV, "1")
    monkeypatch.setenv(READ_TIMEOUT_ENV, "1")
    started = time.monotonic()
    result = _tritoncfg("lint", "gs://models/repo", timeout=120)
    took = time.monotonic() - started
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith("tritoncfg: error: gs://models/repo: cannot list the repository: ")
    if endpoint == "frozen":
        assert "no answer within the timeouts (1 s to connect, 1 s to read;" in line
    else:
        assert "Cannot connect to host" in line
    assert took < 20, line  # 4 s here: two tries and a back-off of 1 s, not six and 31 s


@pytest.mark.parametrize("value", ["0", "-3", "soon", "inf", "nan"])
def test_a_timeout_that_is_no_time_is_a_usage_error(
    value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(READ_TIMEOUT_ENV, value)
    result = _tritoncfg("lint", "s3://127.0.0.1:9/models/repo", timeout=60)
    assert result.returncode == 2
    assert result.stderr == (
        f"tritoncfg: error: {READ_TIMEOUT_ENV}={value!r}: expected a number of seconds above 0, "
        "such as 30\n"
    )


@pytest.mark.parametrize(
    ("objects", "why"),
    [
        (
            {"a/config.pbtxt": CONFIG, "a/config.pbtxt/x": b"y", "a/1/model.py": b""},
            "a/config.pbtxt: an object and also a folder of objects",
        ),
        (
            {"a/config.pbtxt": CONFIG, "a/config.pbtxt/": b"", "a/1/model.py": b""},
            "a/config.pbtxt: an object and also a folder of objects",
        ),
        (
            {"a/config.pbtxt": CONFIG, "a/1/" + "w" * 300: b""},
            "a/1/" + "w" * 40 + "...: a name of 300 bytes in the object's key",
        ),
    ],
    ids=["file-and-folder", "file-and-marker", "long-name"],
)
def test_names_a_disk_cannot_hold_are_one_clear_error(
    s3: Any, s3_server: str, objects: dict[str, bytes], why: str, request: pytest.FixtureRequest
) -> None:
    prefix = request.node.callspec.id
    _put(s3, prefix, objects)
    url = _url(s3_server, prefix)
    result = _tritoncfg("lint", url)
    assert result.returncode == 2, result.stdout
    assert result.stderr.startswith(f"tritoncfg: error: {url}/{why}")
    assert "Traceback" not in result.stderr


def test_a_config_over_16_mib_is_read_as_on_disk(s3: Any, s3_server: str) -> None:
    """It was staged as NULs: a false TC001 at 1:1. Now it is fetched and parsed for real."""
    config = CONFIG + b"# " + b"x" * (17 * 1024 * 1024) + b"\n" + b'name: "a"\n'
    _put(s3, "big", {"a/config.pbtxt": config, "a/1/model.py": b""})
    result = _tritoncfg("lint", "--select", "TC0", _url(s3_server, "big"))
    assert result.returncode == 0, result.stdout
    assert "TC001" not in result.stdout and "(1 model, 1 config file)" in result.stdout


def test_a_config_over_the_limit_is_refused(s3: Any, s3_server: str) -> None:
    _put(s3, "huge", {"a/config.pbtxt": CONFIG + b"#" * (64 * 1024 * 1024), "a/1/m": b""})
    url = _url(s3_server, "huge")
    result = _tritoncfg("lint", url)
    assert result.returncode == 2
    assert result.stderr == (
        f"tritoncfg: error: {url}/a/config.pbtxt: 64.0 MiB, over the 64.0 MiB limit on a "
        "config file; it is not read\n"
    )


@pytest.mark.parametrize(
    "args",
    [
        ("lint",),
        ("lint", "--format", "json"),
        ("lint", "--format", "sarif"),
        ("lint", "--fix"),
        ("fmt",),
        ("complete", "--write"),
        ("complete",),
    ],
)
def test_credentials_in_a_url_are_never_shown(
    s3: Any, s3_server: str, args: tuple[str, ...]
) -> None:
    _put(s3, "secret", {"a/config.pbtxt": CONFIG})
    host = s3_server.removeprefix("http://")
    url = f"s3://AKIAEXAMPLE:{SECRET}@{host}/{BUCKET}/secret"
    result = _tritoncfg(*args, url)
    assert result.returncode == 2
    assert result.stdout == ""
    assert f"s3://***@{host}/{BUCKET}/secret" in result.stderr.replace("s3:/***", "s3://***")
    for part in ("AKIAEXAMPLE", SECRET, SECRET.split("/")[1]):
        assert part not in result.stderr
