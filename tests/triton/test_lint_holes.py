"""Issue-12 cases against a real Triton 2.51 (python backend, the one nvidia-pytriton ships): a
rate-limiter resource given both global and per-device, and a negative version directory.

A python model whose stub finds no model file does not fail quickly: its load stays in LOADING
(the stub times out), and the server answers no other repository request meanwhile. So the
negative version is loaded last, with a short timeout, and counts as refused when it does not
become ready."""

from __future__ import annotations

from pathlib import Path

from conftest import TritonEnv
from triton_cases import ECHO_MODEL

from tritoncfg.api import lint
from tritoncfg.checks import LintOptions
from tritoncfg.triton.process import ServerOptions
from tritoncfg.triton.rest import TritonHTTPError

IO = (
    'input [ { name: "X" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
    'output [ { name: "Y" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
)
BOTH = (
    'instance_group [ { kind: KIND_CPU rate_limiter { resources [ { name: "R" global: true '
    'count: 1 }, { name: "R" count: 1 } ] } } ]\n'
)
MODELS = {  # name -> (version directory holding model.py, extra config); loaded in this order
    "both_kinds": ("1", BOTH),
    "fine": ("1", ""),
    "negative": ("-3", ""),  # std::stoll: -3; the backend reads it as 18446744073709551613
}
HANGS = {"negative"}


def _repository(root: Path) -> Path:
    repository = root / "repository"
    for name, (version, extra) in MODELS.items():
        model = repository / name
        (model / version).mkdir(parents=True)
        (model / version / "model.py").write_text(ECHO_MODEL, encoding="utf-8")
        text = f'name: "{name}"\nbackend: "python"\n{IO}{extra}'
        (model / "config.pbtxt").write_text(text, encoding="utf-8")
    return repository


def test_issue_12_cases_agree_with_triton(triton_env: TritonEnv, tmp_path: Path) -> None:
    repository = _repository(tmp_path)
    args = ("--rate-limit=execution_count",)
    server = triton_env.start_or_skip(repository, tmp_path, ServerOptions(extra_args=args))
    triton: dict[str, str | None] = {}
    with server:
        for name in MODELS:
            try:
                server.http.load(name, timeout=20 if name in HANGS else None)
                triton[name] = None
            except TritonHTTPError as exc:
                triton[name] = exc.message
            if name not in HANGS:
                server.http.unload(name)
    found = lint(repository, LintOptions(rate_limit=True, gpus=())).diagnostics
    errors = [d for d in found if d.severity.value == "error"]
    refused = {name for name, error in triton.items() if error}
    assert refused == {d.model for d in errors} == {"negative", "both_kinds"}
    for d in errors:
        if d.model in HANGS:
            continue  # no message: the load never ends
        assert d.triton is not None and d.triton.message in (triton[d.model or ""] or ""), (
            d.model,
            d.triton,
            triton[d.model or ""],
        )
