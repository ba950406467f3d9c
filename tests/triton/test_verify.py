"""`tritoncfg verify` against the real Triton 2.51 of nvidia-pytriton, as a user runs it: in the
environment where nvidia-pytriton is installed (so the server is found without --tritonserver)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import ROOT, TritonEnv
from lintkit import make_model
from load_verdict_cases import ECHO, IO

from tritoncfg.triton.load import ServerDied, load_model
from tritoncfg.triton.locate import locate_server
from tritoncfg.triton.process import ServerStartError, TritonServer

EXAMPLES = ROOT / "examples" / "model_repository"


@pytest.fixture(scope="module")
def examples(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of examples/model_repository with its ONNX file generated (make_models.py)."""
    pytest.importorskip("onnx", reason="examples/make_models.py needs onnx (extra tritoncfg[onnx])")
    target = tmp_path_factory.mktemp("examples") / "model_repository"
    shutil.copytree(EXAMPLES, target, ignore=shutil.ignore_patterns("model.onnx", "__pycache__"))
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "make_models.py"), "--repository", str(target)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return target


def test_verify_examples(triton_env: TritonEnv, examples: Path) -> None:
    if shutil.which("tritonserver") or Path("/opt/tritonserver/bin/tritonserver").exists():
        pytest.skip("another tritonserver comes first here; this test is about nvidia-pytriton")
    # no --tritonserver: found as the installed nvidia-pytriton (extra tritoncfg[triton])
    done = triton_env.run_cli("verify", str(examples), "--format", "json")
    assert done.returncode == 0, done.stdout + done.stderr
    document = json.loads(done.stdout)
    assert {"tool", "diagnostics", "summary", "verify"} <= set(document)
    server = document["verify"]["server"]
    assert server["version"] == "2.51.0" and "nvidia-pytriton" in server["origin"]
    states = {m["model"]: m for m in document["verify"]["models"]}
    assert states["preprocess"]["triton_state"] == states["postprocess"]["triton_state"] == "READY"
    classifier = states["classifier"]
    assert classifier["triton_state"] == "BACKEND_UNAVAILABLE"
    assert "backend not available on this server" in classifier["note"]
    assert (classifier["verified"], classifier["agree"]) == (False, True)
    pipeline = states["classification_pipeline"]
    assert (pipeline["triton_state"], pipeline["verified"]) == ("DEPENDENCY_FAILED", False)
    assert all(m["agree"] for m in states.values())
    assert not any(d["code"] == "TC000" for d in document["diagnostics"])
    assert not list(examples.rglob("__pycache__"))  # the server ran on a mirror


def test_verify_text_reports_each_verdict(triton_env: TritonEnv, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    make_model(
        repo, "good", 'backend: "python"\nmax_batch_size: 8\n' + IO, files={"1/model.py": ECHO}
    )
    make_model(
        repo,
        "bad_batch",
        'backend: "python"\nmax_batch_size: 8\n'
        + IO
        + "dynamic_batching { preferred_batch_size: [ 16 ] }\n",
        files={"1/model.py": ECHO},
    )
    make_model(
        repo,
        "bad_field",
        'backend: "python"\ninput [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] bogus: 1 } ]\n',
        files={"1/model.py": ECHO},
    )
    done = triton_env.run_cli("verify", "repo", *triton_env.server_args, cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    out = done.stdout
    # Triton's errors are TC000 diagnostics at the line the message names
    assert "repo/bad_batch/config.pbtxt:5:" in out and "TC000 error (triton-rejected)" in out
    assert "repo/bad_field/config.pbtxt:2:" in out and 'no field named "bogus"' in out
    assert "Triton 2.51.0" in out
    assert "1 loaded, 2 rejected" in out and "tritoncfg agrees on 3 of 3" in out
    assert "Traceback" not in done.stderr


def test_verify_model_config_name_reaches_server_and_lint(
    triton_env: TritonEnv, tmp_path: Path
) -> None:
    """configs/prod.pbtxt has an error that config.pbtxt lacks: without the option both load the
    model (and lint warns, TC915); with --model-config-name prod both refuse it."""
    good = 'backend: "python"\nmax_batch_size: 8\n' + IO
    prod = good + "dynamic_batching { preferred_batch_size: [ 16 ] }\n"
    make_model(tmp_path / "repo", "m", good, files={"1/model.py": ECHO, "configs/prod.pbtxt": prod})

    def run(*args: str) -> tuple[int, dict[str, object], set[str]]:
        done = triton_env.run_cli(
            "verify", "repo", "--format", "json", *args, *triton_env.server_args, cwd=tmp_path
        )
        report = json.loads(done.stdout)
        (model,) = report["verify"]["models"]
        return done.returncode, model, {d["code"] for d in report["diagnostics"]}

    code, model, codes = run()
    assert (code, model["triton_state"], model["agree"]) == (0, "READY", True)
    assert "TC915" in codes and "TC203" not in codes
    code, model, codes = run("--model-config-name", "prod")
    assert (code, model["agree"]) == (1, True)
    assert "preferred size must be <= max batch size" in str(model["triton_errors"])
    assert "TC203" in codes


def test_verify_flags_a_disagreement(triton_env: TritonEnv, tmp_path: Path) -> None:
    # initialize() raises: Triton refuses the model, and no config check can know that
    failing = "class TritonPythonModel:\n    def initialize(self, args):\n        raise RuntimeError('boom')\n"
    make_model(tmp_path / "repo", "m", 'backend: "python"\n' + IO, files={"1/model.py": failing})
    done = triton_env.run_cli(
        "verify", "repo", "--format", "json", *triton_env.server_args, cwd=tmp_path
    )
    assert done.returncode == 1, done.stderr
    (model,) = json.loads(done.stdout)["verify"]["models"]
    assert (model["triton_state"], model["agree"]) == ("REJECTED", False)
    assert "boom" in model["triton_errors"][0]["message"]


def test_server_that_does_not_start_exits_3(triton_env: TritonEnv, tmp_path: Path) -> None:
    fake = tmp_path / "tritonserver"
    fake.write_text("#!/bin/sh\necho 'error: this is not a server' >&2\nexit 7\n")
    fake.chmod(0o755)
    make_model(tmp_path / "repo", "m", 'backend: "python"\n', files={"1/model.py": ECHO})
    done = triton_env.run_cli("verify", "repo", "--tritonserver", str(fake), cwd=tmp_path)
    assert done.returncode == 3, done.stdout + done.stderr
    assert "failed to start" in done.stderr and "this is not a server" in done.stderr
    assert "Traceback" not in done.stderr


def test_usage_errors(triton_env: TritonEnv, tmp_path: Path) -> None:
    missing_path = triton_env.run_cli("verify", "absent", cwd=tmp_path)
    assert missing_path.returncode == 2 and "absent: no such file" in missing_path.stderr
    make_model(tmp_path / "repo", "m", 'backend: "python"\n', files={"1/model.py": ECHO})
    missing_server = triton_env.run_cli(
        "verify", "repo", "--tritonserver", "/no/such/bin", cwd=tmp_path
    )
    assert missing_server.returncode == 3 and "not an executable" in missing_server.stderr
    for done in (missing_path, missing_server):
        assert "Traceback" not in done.stderr


def _children(pid: int) -> list[int]:
    """Processes whose parent is `pid` (whichever of its threads started them)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _default_signals() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_interrupt_stops_the_server(
    triton_env: TritonEnv, tmp_path: Path, sig: signal.Signals
) -> None:
    slow = "import time\nclass TritonPythonModel:\n    def initialize(self, args):\n        time.sleep(30)\n"
    make_model(tmp_path / "repo", "slow", 'backend: "python"\n' + IO, files={"1/model.py": slow})
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(ROOT)
    process = subprocess.Popen(
        [str(triton_env.python), "-m", "tritoncfg", "verify", "repo", *triton_env.server_args],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # a shell that runs the tests in the background ignores SIGINT, and the child would
        # inherit that (Python then installs no KeyboardInterrupt handler): as from a terminal
        preexec_fn=_default_signals,
    )
    try:
        deadline = time.monotonic() + 60
        server = []
        while time.monotonic() < deadline and not server:
            server = [p for p in _children(process.pid) if _children(p)]  # tritonserver + its stub
            time.sleep(0.1)
        assert server, "the server did not start loading the model"
        (stub,) = _children(server[0])
        args = Path(f"/proc/{stub}/cmdline").read_bytes().split(b"\0")
        (region,) = [a.decode() for a in args if a.startswith(b"triton_python_backend_shm_region_")]
        process.send_signal(sig)
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130, err
    assert "interrupted; tritonserver stopped" in err
    assert not _alive(server[0]) and not _alive(stub)
    assert not (Path("/dev/shm") / region).exists()  # the killed stub's shared memory is gone


def test_server_runs_on_loopback_and_stops(triton_env: TritonEnv, tmp_path: Path) -> None:
    (tmp_path / "repo").mkdir()
    server = TritonServer.start(triton_env.distribution, tmp_path / "repo", tmp_path)
    with server:
        assert server.url.startswith("http://127.0.0.1:")
        assert server.http.metadata()["version"] == "2.51.0"
        pid = server.process.pid
    assert not _alive(pid) and server.process.returncode is not None


def test_start_failure_shows_the_log(triton_env: TritonEnv, tmp_path: Path) -> None:
    distribution = locate_server(triton_env.distribution.binary)
    started = time.monotonic()
    with pytest.raises(ServerStartError, match=r"failed to stat file .*no-such-repository"):
        TritonServer.start(distribution, tmp_path / "no-such-repository", tmp_path)
    assert time.monotonic() - started < 30  # told by its log, not by the start timeout


def test_a_server_that_dies_during_a_load_is_noticed_at_once(
    triton_env: TritonEnv, tmp_path: Path
) -> None:
    # The load request would otherwise wait out its whole timeout (10 minutes) when tritonserver
    # dies under it and the python stub it started keeps the connection (seen in CI).
    slow = "import time\nclass TritonPythonModel:\n    def initialize(self, args):\n        time.sleep(30)\n"
    make_model(tmp_path / "repo", "slow", 'backend: "python"\n' + IO, files={"1/model.py": slow})
    server = triton_env.start_or_skip(tmp_path / "repo", tmp_path / "work")
    try:
        killer = threading.Timer(3.0, os.kill, (server.process.pid, signal.SIGKILL))
        killer.start()
        started = time.monotonic()
        with pytest.raises(ServerDied, match="tritonserver exited while loading 'slow'"):
            load_model(server, "slow")
        assert time.monotonic() - started < 15  # not the 30 s the model takes, nor the timeout
    finally:
        killer.cancel()
        server.stop()
