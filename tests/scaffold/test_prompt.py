"""`new` in a terminal with no options asks (Typer prompts), through a real pseudo-terminal."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from scaffold.scaffoldkit import REPOSITORY

if sys.platform == "win32":  # pragma: no cover
    pytest.skip("pseudo-terminals are POSIX only", allow_module_level=True)


def _converse(root: Path, answers: list[tuple[str, str]]) -> tuple[int, str]:
    """Run `new root` on a pty; answer each prompt (matched by its text) in turn."""
    leader, follower = pty.openpty()
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200"}
    process = subprocess.Popen(
        [sys.executable, "-m", "tritoncfg", "new", str(root)],
        stdin=follower, stdout=follower, stderr=follower, env=env, close_fds=True,
    )  # fmt: skip
    os.close(follower)
    seen = ""
    pending = list(answers)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(leader, 4096).decode(errors="replace")
            except OSError:
                break  # the child closed the terminal
            seen += chunk
        if pending and pending[0][0] in seen:
            seen = seen.replace(pending[0][0], f"<{pending[0][0]}>", 1)
            os.write(leader, (pending.pop(0)[1] + "\n").encode())
        if process.poll() is not None and not ready:
            break
    os.close(leader)
    return process.wait(timeout=30), seen


def test_prompts_for_a_model_and_template(tmp_path: Path) -> None:
    code, seen = _converse(
        tmp_path / "d",
        [("Model file to add", ""), ("Model name", "clf"), ("Template", "python")],
    )
    assert code == 0, seen
    assert "created" in seen
    assert (tmp_path / "d" / REPOSITORY / "clf" / "1" / "model.py").is_file()


def test_prompt_takes_a_model_file(tmp_path: Path) -> None:
    from models.onnxkit import make_runnable

    source = make_runnable(tmp_path / "net.onnx", input_shape=["b", 2], output_shape=["b", 2])
    code, seen = _converse(tmp_path / "d", [("Model file to add", str(source))])
    assert code == 0, seen
    assert (tmp_path / "d" / REPOSITORY / "net" / "1" / "model.onnx").is_file()
