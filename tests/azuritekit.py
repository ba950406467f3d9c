"""Test support: Azurite, Microsoft's Azure Storage emulator (the npm package `azurite`), run on
127.0.0.1 for the `as://` tests.

It is installed with npm on first use into a cache folder (`~/.cache/tritoncfg-azurite`, or
`TRITONCFG_AZURITE_CACHE`), under a lock and a time limit, so `make test` needs nothing but Node.js
and npm; without them, or when the install fails, the Azure tests skip and say why.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from cloudkit import free_port, wait_listening

PACKAGE = "azurite@3"
INSTALL_TIMEOUT = 300.0  # seconds for `npm install`
LOCK_TIMEOUT = INSTALL_TIMEOUT + 60  # another test run may be installing it
START_TIMEOUT = 30.0  # seconds until the blob port answers
ACCOUNT = "devstoreaccount1"  # Azurite's fixed account and its published development key
KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="


def cache_dir() -> Path:
    default = Path.home() / ".cache" / "tritoncfg-azurite"
    return Path(os.environ.get("TRITONCFG_AZURITE_CACHE") or default)


def connection_string(endpoint: str) -> str:
    """Azurite's connection string, as its docs give it, for the blob endpoint `endpoint`."""
    return (
        f"DefaultEndpointsProtocol=http;AccountName={ACCOUNT};AccountKey={KEY};"
        f"BlobEndpoint={endpoint};"
    )


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as handle:
        deadline = time.monotonic() + LOCK_TIMEOUT
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    pytest.skip(f"Azurite: {path} stayed locked {LOCK_TIMEOUT:g} s")
                time.sleep(0.5)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _install(cache: Path, npm: str) -> None:
    """`npm install` into a fresh folder, renamed into place once complete (a killed install
    leaves no half-installed Azurite behind)."""
    staging = Path(tempfile.mkdtemp(prefix="install-", dir=cache))
    try:
        done = subprocess.run(
            [npm, "install", "--prefix", str(staging), "--no-audit", "--no-fund",
             "--no-save", "--loglevel=error", PACKAGE],
            capture_output=True, text=True, timeout=INSTALL_TIMEOUT, check=False,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        shutil.rmtree(staging, ignore_errors=True)
        pytest.skip(f"Azurite: `npm install {PACKAGE}` took over {INSTALL_TIMEOUT:g} s")
    if done.returncode != 0:
        shutil.rmtree(staging, ignore_errors=True)
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        pytest.skip(f"Azurite: `npm install {PACKAGE}` failed: {' / '.join(tail)}")
    staging.rename(cache / "azurite")


def azurite_script() -> tuple[str, Path]:
    """(node, Azurite's blob server script), installing Azurite first if it is not cached.
    Skips the test with the reason when Node.js or npm is missing or the install fails."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("Azurite (the Azure Storage emulator) needs Node.js and npm on PATH")
    cache = cache_dir()
    script = cache / "azurite" / "node_modules" / "azurite" / "dist" / "src" / "blob" / "main.js"
    if not script.is_file():
        with _locked(cache / ".lock"):
            if not script.is_file():
                _install(cache, npm)
    if not script.is_file():
        pytest.skip(f"Azurite: installed, but {script} is missing")
    return node, script


@contextmanager
def azurite_blob(workdir: Path) -> Iterator[str]:
    """Azurite's blob service on 127.0.0.1: yields its endpoint, `http://127.0.0.1:<port>/
    devstoreaccount1`; stopped (and reaped) on every path."""
    node, script = azurite_script()
    port = free_port()
    log = (workdir / "azurite.log").open("wb")
    process = subprocess.Popen(
        [node, str(script), "--blobHost", "127.0.0.1", "--blobPort", str(port),
         "--location", str(workdir), "--silent", "--skipApiVersionCheck", "--loose"],
        stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    try:

        def exited() -> str | None:
            if process.poll() is None:
                return None
            return f"Azurite exited ({process.returncode}): {_tail(workdir)}"

        wait_listening(port, START_TIMEOUT, "Azurite", exited)
        yield f"http://127.0.0.1:{port}/{ACCOUNT}"
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)
        log.close()


def _tail(workdir: Path) -> str:
    text = (workdir / "azurite.log").read_text(errors="replace").strip()
    return " / ".join(text.splitlines()[-5:])
