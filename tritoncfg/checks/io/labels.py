"""TC330-TC332: output label files, which `Model::Init` loads after validating the inputs and
outputs (label_provider.cc, called from `Model::Init` in model.cc), in strict and default mode
alike. The path is relative to the model directory, not the version directory; existence comes from
the discovered entries."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Literal

from tritoncfg.checks.core import gates
from tritoncfg.checks.core.context import CheckContext, Finding, at
from tritoncfg.checks.core.phase import Phase
from tritoncfg.checks.core.registry import model_rule
from tritoncfg.diagnostics import Severity
from tritoncfg.repository import Entry, ModelDir
from tritoncfg.repository.model import find_entry
from tritoncfg.workspace import LoadedModel

PHASE = Phase.MODEL_INIT
LabelState = Literal["file", "dir", "missing", "unknown"]


def _labels(model: LoadedModel, ctx: CheckContext) -> Iterator[tuple[int, str, str]]:
    """(output index, output name, label_filename) of every output with a label file."""
    for i, io in enumerate(ctx.io_config(model).output):
        if io.label_filename:
            yield i, io.name, io.label_filename


def join_path(model_dir: Path, relpath: str) -> str:
    """Triton's `JoinPath({model_dir, relpath})`: no normalization; a leading '/' is kept once."""
    base = str(model_dir)
    if relpath.startswith("/"):
        return base + relpath[1:] if base.endswith("/") else base + relpath
    return base + relpath if base.endswith("/") else f"{base}/{relpath}"


def _children(model_dir: ModelDir, name: str) -> tuple[Entry, ...] | None:
    """The listed entries of a top-level subdirectory, where discovery listed it."""
    for version in model_dir.versions:
        if version.dirname == name:
            return version.entries
    if model_dir.detection_dir is not None and model_dir.detection_dir.name == name:
        return model_dir.detection_entries
    return None


def label_state(model_dir: ModelDir, target: Path) -> LabelState:
    """What `target` (inside the model directory) is, from the entries discovery listed."""
    parts = target.relative_to(model_dir.path).parts
    if not parts:
        return "dir"
    entries: tuple[Entry, ...] | None = model_dir.entries
    for depth, part in enumerate(parts):
        if entries is None:
            return "unknown"  # deeper than discovery looked
        entry = find_entry(entries, part)
        if entry is None:
            return "missing"
        if depth == len(parts) - 1:
            return "dir" if entry.is_dir else "file" if entry.is_file else "missing"
        if not entry.is_dir:
            return "missing"
        entries = _children(model_dir, part) if depth == 0 else None
    return "unknown"


@model_rule(
    "TC330",
    severity=Severity.ERROR,
    summary="An output's label_filename leads outside the model directory.",
    phase=PHASE,
    gate=gates.labels,
)
def label_file_outside_model_dir(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a `label_filename` that leaves the model directory, by `..` or through a symlink
    . A leading `/` does not make it absolute: Triton joins it to the model directory.

    ## Why it matters
    Triton refuses the model: `label file path '<path>' for output '<o>' in model '<model>' is
    outside model directory`.

    ## Example
    ```pbtxt
    backend: "python"
    output [ { name: "y" data_type: TYPE_FP32 dims: [ 10 ] label_filename: "../labels.txt" } ]
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    output [ { name: "y" data_type: TYPE_FP32 dims: [ 10 ] } ]
    ```
    """
    for i, name, relpath in _labels(model, ctx):
        if model.dir.resolve(relpath) is None:
            path = join_path(model.dir.path, relpath)
            yield Finding(
                f"label file '{relpath}' of output '{name}' is outside the model directory; "
                "copy it into the model directory and name it relative to that",
                at(model, "output", i, "label_filename", value=True),
                triton_message=f"label file path '{path}' for output '{name}' in model "
                f"'{ctx.completion(model).name}' is outside model directory",
            )


@model_rule(
    "TC331",
    severity=Severity.ERROR,
    summary="An output's label_filename does not exist in the model directory.",
    phase=PHASE,
    gate=gates.labels,
)
def label_file_missing(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a `label_filename` that is not a file of the model directory. The path is
    relative to the model directory (`m/labels.txt`), not to the version directory.

    ## Why it matters
    Triton refuses the model: `failed to open text file for read <path>: No such file or
    directory`.

    ## Example
    ```pbtxt
    backend: "python"
    output [ { name: "y" data_type: TYPE_FP32 dims: [ 10 ] label_filename: "labels.txt" } ]
    ```

    ## Fix
    ```text
    Add m/labels.txt (one label per line), or remove label_filename.
    ```
    """
    for i, name, relpath in _labels(model, ctx):
        target = model.dir.resolve(relpath)
        if target is None:
            continue  # TC330
        state = label_state(model.dir, target)
        if state in ("file", "unknown"):
            continue
        path = join_path(model.dir.path, relpath)
        where = at(model, "output", i, "label_filename", value=True)
        if state == "dir":
            yield Finding(
                f"label file '{relpath}' of output '{name}' is a directory; name a text file "
                "with one label per line",
                where,
            )
        else:
            yield Finding(
                f"label file '{relpath}' of output '{name}' does not exist in the model "
                f"directory (it is looked up in '{model.dir.path}', not in the version "
                "directory); add it or fix the path",
                where,
                triton_message=f"failed to open text file for read {path}: No such file or directory",
            )


@model_rule(
    "TC332",
    severity=Severity.ERROR,
    summary="Two outputs of the same name both have a label file.",
    phase=PHASE,
    gate=gates.labels,
)
def multiple_label_files(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a second output of the same name that also has a `label_filename`.

    ## Why it matters
    Triton refuses the model: `multiple label files for '<o>'`.

    ## Example
    ```pbtxt
    backend: "python"
    output [
      { name: "y" data_type: TYPE_FP32 dims: [ 10 ] label_filename: "a.txt" },
      { name: "y" data_type: TYPE_FP32 dims: [ 10 ] label_filename: "b.txt" }
    ]
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    output [
      { name: "y" data_type: TYPE_FP32 dims: [ 10 ] label_filename: "a.txt" },
      { name: "z" data_type: TYPE_FP32 dims: [ 10 ] label_filename: "b.txt" }
    ]
    ```
    """
    labelled: set[str] = set()
    for i, name, relpath in _labels(model, ctx):
        if name in labelled:
            yield Finding(
                f"output '{name}' has a second label file '{relpath}'; an output has one label "
                "file: rename the duplicate output or drop this label_filename",
                at(model, "output", i, "label_filename", value=True),
                triton_message=f"multiple label files for '{name}'",
            )
        labelled.add(name)
