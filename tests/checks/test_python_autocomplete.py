"""TC127: model.py's auto_complete_config against the config, as python_backend's
pb_utils.ModelConfig checks them at load. model.py is parsed, never imported or run."""

from __future__ import annotations

from pathlib import Path

from lintkit import found, lint_config, only

from tritoncfg.models.python_autocomplete import read_autocomplete_calls

BATCHING = """backend: "python"
max_batch_size: {mbs}
input [ {{ name: "INPUT0" data_type: TYPE_FP32 dims: [ 16 ] }} ]
output [ {{ name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 16 ] }} ]
dynamic_batching {{ }}
"""

# the python template tritoncfg new wrote before it read the tensors from the config
STATED_TWICE = """import triton_python_backend_utils as pb_utils

INPUTS = [
    {"name": "INPUT0", "data_type": "TYPE_FP32", "dims": [16]},
]
OUTPUTS = [
    {"name": "OUTPUT0", "data_type": "TYPE_FP32", "dims": [16]},
]
MAX_BATCH_SIZE = 8


class TritonPythonModel:
    @staticmethod
    def auto_complete_config(auto_complete_model_config):
        for tensor in INPUTS:
            auto_complete_model_config.add_input(tensor)
        for tensor in OUTPUTS:
            auto_complete_model_config.add_output(tensor)
        if MAX_BATCH_SIZE > 0:
            auto_complete_model_config.set_max_batch_size(MAX_BATCH_SIZE)
            auto_complete_model_config.set_dynamic_batching()
        return auto_complete_model_config

    def execute(self, requests):
        return []
"""


def _model(body: str, prelude: str = "") -> str:
    """A model.py whose auto_complete_config runs `body` (indented 8)."""
    lines = "\n".join(f"        {line}" for line in body.strip("\n").splitlines())
    return (
        f"{prelude}\nclass TritonPythonModel:\n    @staticmethod\n"
        f"    def auto_complete_config(config):\n{lines}\n        return config\n"
    )


def test_a_max_batch_size_raised_in_the_config_only(tmp_path: Path) -> None:
    files = {"1/model.py": STATED_TWICE}
    diagnostics = lint_config(tmp_path, BATCHING.format(mbs=16), files=files)
    finding = only(diagnostics, "TC127")
    assert finding.path == str(tmp_path / "repo" / "m" / "1" / "model.py")
    assert (str(finding.span), finding.severity.value) == ("20:13", "error")
    assert finding.triton is not None and finding.triton.message == (
        "configuration specified max_batch_size 16, but in auto-complete-config function for "
        "model 'm' specified max_batch_size 8"
    )
    assert "set_max_batch_size(8)" in finding.message and "max_batch_size: 16" in finding.message


def test_what_agrees_with_the_config_is_not_reported(tmp_path: Path) -> None:
    path = tmp_path / "repo" / "m" / "1" / "model.py"
    for mbs in (8, 4, 0):  # pb_utils raises only when the config's max_batch_size is larger
        diagnostics = lint_config(
            tmp_path, BATCHING.format(mbs=mbs), files={"1/model.py": STATED_TWICE}
        )
        # the file was read: every call, the loops unrolled, the `if MAX_BATCH_SIZE > 0` taken
        calls = [(c.method, c.value) for c in read_autocomplete_calls(path)]
        assert calls == [
            ("add_input", {"name": "INPUT0", "data_type": "TYPE_FP32", "dims": [16]}),
            ("add_output", {"name": "OUTPUT0", "data_type": "TYPE_FP32", "dims": [16]}),
            ("set_max_batch_size", 8),
        ]
        assert not found(diagnostics, "TC127"), mbs


def test_tensor_conflicts_as_pb_utils_reports_them(tmp_path: Path) -> None:
    body = """
config.add_input({"name": "INPUT0", "data_type": "TYPE_FP32", "dims": [8]})
config.add_output({"name": "OUTPUT0", "data_type": "TYPE_INT64", "dims": [16]})
config.add_input({"name": "INPUT0", "data_type": "TYPE_FP32", "dims": [16], "optional": True})
config.add_output({"name": "OUTPUT0", "data_type": "TYPE_FP32", "dims": [16], "optional": True})
config.add_input({"name": "EXTRA", "data_type": "TYPE_FP32"})
config.add_input({"name": "NEW", "data_type": "TYPE_FP32", "dims": [3]})
"""
    files = {"1/model.py": _model(body)}
    diagnostics = lint_config(tmp_path, BATCHING.format(mbs=8), files=files)
    assert [(span, message) for span, _, message in found(diagnostics, "TC127")] == [
        (
            "5:9",
            "model 'm', tensor 'INPUT0': the model expects dims [8] but the model "
            "configuration specifies dims [16]",
        ),
        (
            "6:9",
            "unable to load model 'm', configuration expects datatype TYPE_FP32 for output "
            "'OUTPUT0', model provides TYPE_INT64",
        ),
        (
            "7:9",
            "model 'm', tensor 'INPUT0': the model expects optional True but the model "
            "configuration specifies optional False",
        ),
        (
            "8:9",
            "output 'OUTPUT0' in auto-complete-config function for model 'm' contains property "
            "other than 'name', 'data_type' and 'dims'.",
        ),
        (
            "9:9",
            "input 'EXTRA' in auto-complete-config function for model 'm' is missing 'dims' "
            "property.",
        ),
    ]  # NEW is not in the config: pb_utils adds it


def test_calls_that_may_not_run_are_not_read(tmp_path: Path) -> None:
    """python_backend's own example guards add_input by the config's names: nothing to report
    there; a literal call after it still is."""
    body = """
names = [t["name"] for t in config.as_dict()["input"]]
if "INPUT0" not in names:
    config.add_input({"name": "INPUT0", "data_type": "TYPE_FP32", "dims": [8]})
try:
    config.set_max_batch_size(2)
except ValueError:
    pass
config.set_max_batch_size(MBS)
"""
    files = {"1/model.py": _model(body, prelude="MBS = 4\n")}
    diagnostics = lint_config(tmp_path, BATCHING.format(mbs=8), files=files)
    assert [span for span, _, _ in found(diagnostics, "TC127")] == ["13:9"]


def test_not_in_strict_mode(tmp_path: Path) -> None:
    files = {"1/model.py": STATED_TWICE}
    default = lint_config(tmp_path, BATCHING.format(mbs=16), files=files)
    assert found(default, "TC127")  # the same model is reported in default mode
    strict = lint_config(tmp_path / "s", BATCHING.format(mbs=16), files=files, triton_mode="strict")
    assert not found(strict, "TC127")


def test_model_py_is_never_run(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    source = STATED_TWICE.replace(
        "import triton_python_backend_utils as pb_utils",
        f"open({str(marker)!r}, 'w').close()\nimport triton_python_backend_utils as pb_utils",
    )
    diagnostics = lint_config(tmp_path, BATCHING.format(mbs=16), files={"1/model.py": source})
    assert found(diagnostics, "TC127")  # read
    assert not marker.exists()  # not run


def test_files_it_cannot_read_are_left_to_the_backend(tmp_path: Path) -> None:
    for text in ("def broken(:\n", "x = 1\n", _model("pass")):
        files = {"1/model.py": text}
        diagnostics = lint_config(tmp_path, BATCHING.format(mbs=16), files=files)
        assert not found(diagnostics, "TC127")
    assert read_autocomplete_calls(tmp_path / "missing.py") == ()
