"""`tritoncfg complete PATH...`: the config Triton ends up with, offline; `--write` keeps it."""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from tritoncfg.cli.common import (
    EXIT_FINDINGS,
    EXIT_OK,
    EXIT_USAGE,
    fail,
    refuse_cloud,
    usable_path,
)
from tritoncfg.options.choices import TritonMode
from tritoncfg.report.formats import shown_path

if TYPE_CHECKING:
    from tritoncfg.checks import LintOptions
    from tritoncfg.complete.full import FullCompletion
    from tritoncfg.diagnostics import Diagnostic
    from tritoncfg.models.io import ModelIO, Unknowable
    from tritoncfg.schema import ModelConfig
    from tritoncfg.workspace import LoadedModel, Workspace


class CompleteFormat(StrEnum):
    pbtxt = "pbtxt"
    json = "json"


def complete_command(
    paths: Annotated[
        list[Path],
        typer.Argument(
            help="Model directories or their config files (a repository: all its models).",
            show_default=False,
        ),
    ],
    write: Annotated[
        bool,
        typer.Option(
            "--write",
            help="Add what the backend derived from the model file to the config file "
            "(comments kept; the file is created when missing).",
        ),
    ] = False,
    gpus: Annotated[
        str | None,
        typer.Option(
            help="GPU ids on the target host, e.g. '0,1', or 'none' (default: unknown, "
            "completed as a host without GPUs)."
        ),
    ] = None,
    default_max_batch_size: Annotated[
        int,
        typer.Option(help="Triton's --backend-config=default-max-batch-size.", min=0),
    ] = 4,
    output_format: Annotated[
        CompleteFormat, typer.Option("--format", "-f", help="How to print the configs.")
    ] = CompleteFormat.pbtxt,
    triton_mode: Annotated[
        TritonMode | None,
        typer.Option(
            help="default: Triton's auto-complete is on; strict: --disable-auto-complete-config."
        ),
    ] = None,
) -> None:
    """Print each model's config as Triton completes it (what GET /v2/models/<m>/config
    returns): autofill, the backend's auto-complete from the model file, normalization.

    Exit status: 0 completed; 1 Triton would fail to load a model (its error is printed);
    2 usage error, unreadable path, or a config that does not parse.
    """
    from tritoncfg.api import OptionError, SettingsError, project
    from tritoncfg.cli.file_selection import selected_models
    from tritoncfg.lintoptions import LintOverrides
    from tritoncfg.workspace import load

    if write:
        refuse_cloud(paths, "complete --write")
    targets = [_target(path, write) for path in paths]
    try:  # the project's settings, as lint reads them, with the options over them
        setup = project(targets, LintOverrides(triton_mode=triton_mode, gpus=gpus)).setup
    except (SettingsError, OptionError) as exc:
        fail(str(exc))
    options = setup.options
    strict = options.triton_mode == "strict"
    workspace = load(targets)
    workspace.models = selected_models(workspace, setup.filters, targets)  # exclude, .gitignore
    if not workspace.models:
        fail(f"{paths[0]}: no model directory found")
    status = EXIT_OK
    completed: list[tuple[LoadedModel, ModelConfig]] = []
    refusals = _refusals(workspace, options)
    for loaded in workspace.models:
        outcome = _complete_one(loaded, options.gpus, default_max_batch_size, strict, write)
        if isinstance(outcome, int):
            status = max(status, outcome)
        elif refusals.get(loaded.name):
            for diagnostic in refusals[loaded.name]:
                assert diagnostic.triton is not None
                _say(
                    f"{shown_path(diagnostic.path)}:{diagnostic.span.line}:"
                    f"{diagnostic.span.column}: error: "
                    f"{diagnostic.triton.message} ({diagnostic.code}: {diagnostic.message})"
                )
            status = max(status, EXIT_FINDINGS)
        else:
            completed.append((loaded, outcome))
    if completed:
        sys.stdout.write(_render(completed, output_format))
    raise typer.Exit(status)


# Lint findings of these phases do not stop a load: Triton serves the model.
_SERVED_PHASES = frozenset({"BEST_PRACTICE", "RUNTIME"})


def _refusals(workspace: Workspace, options: LintOptions) -> dict[str, list[Diagnostic]]:
    """Per model name, the lint errors with which Triton refuses the model (exit 1 means
    Triton would fail to load it): the completion alone does not run every load check."""
    from tritoncfg.checks import run_checks
    from tritoncfg.diagnostics import Severity

    found: dict[str, list[Diagnostic]] = {}
    for diagnostic in run_checks(workspace, options):
        verdict = diagnostic.triton
        if (
            diagnostic.severity is Severity.ERROR
            and verdict is not None
            and verdict.phase not in _SERVED_PHASES
            and diagnostic.model is not None
        ):
            found.setdefault(diagnostic.model, []).append(diagnostic)
    return found


def _target(path: Path, write: bool) -> Path:
    """The path to discover: a missing `config.pbtxt` of an existing model dir stands for it."""
    usable_path(path)
    if path.exists() or path.is_symlink():
        from tritoncfg.settings import project_repository

        return project_repository(path)
    if path.name == "config.pbtxt" and path.parent.is_dir():
        return path.parent
    fail(f"{path}: no such file or directory")


def _complete_one(
    loaded: LoadedModel, gpus: tuple[int, ...] | None, default_mbs: int, strict: bool, write: bool
) -> ModelConfig | int:
    """The completed config to print, or an exit status when there is none to print."""
    from tritoncfg.complete.full import complete_model

    path = shown_path(loaded.config_path)
    if loaded.read_error is not None:
        span = loaded.read_error.span  # invalid UTF-8: the first bad byte
        where = "" if span is None else f":{span.line}:{span.column}"
        _say(f"{path}{where}: error: cannot read: {loaded.read_error.reason}")
        return EXIT_USAGE
    if loaded.config is not None and not loaded.config.ok:
        error = loaded.config.errors[0]
        _say(f"{path}:{error.span.line}:{error.span.column}: error: {error.message}")
        return EXIT_USAGE
    model_io = None if strict else _model_io(loaded)
    completion = complete_model(
        loaded,
        model_io=model_io,
        gpus=gpus,
        default_max_batch_size=default_mbs,
        strict=strict,
    )
    for note in completion.notes:
        _say(f"{path}: note: {note}")
    if completion.errors:
        for message in completion.errors:
            line, column = _where(loaded, message)
            _say(f"{path}:{line}:{column}: error: {message}")
        return EXIT_FINDINGS
    if write:
        return _write(loaded, completion)
    return completion.config


def _model_io(loaded: LoadedModel) -> ModelIO | Unknowable | None:
    """What the model file says, through the model readers (absent: not modelled)."""
    from tritoncfg.complete import complete_core
    from tritoncfg.models.io import Unknowable

    core = complete_core(loaded.config.message if loaded.config else None, loaded.dir)
    try:
        from tritoncfg.models.locate import read_model_io

        return read_model_io(loaded.dir, core.config)
    except ImportError as exc:
        return Unknowable(
            None, f"no reader for this model file in this install ({exc.name or exc})"
        )


def _write(loaded: LoadedModel, completion: FullCompletion) -> int:
    from tritoncfg.atomic import write_atomic
    from tritoncfg.complete.merge import MergeError, fields_to_write, merge_config
    from tritoncfg.repository.model import is_json_path

    path = loaded.dir.config_path
    shown = shown_path(path)
    if is_json_path(path):
        _say(
            f"{shown}: error: --write edits text-format configs only; print a JSON config with --format json"
        )
        return EXIT_USAGE
    creating = not loaded.dir.config_exists
    wanted = fields_to_write(completion, creating=creating)
    try:
        merge = merge_config(None if creating else loaded.config, wanted)
    except MergeError as exc:
        _say(f"{shown}: error: cannot merge: {exc}")
        return EXIT_USAGE
    if not merge.changed:
        _say(f"{shown}: nothing to add")
        return EXIT_OK
    from tritoncfg.confined import Snapshot

    read = None if creating or loaded.config is None else loaded.config.source
    try:
        before = None if read is None else Snapshot.of(read.encode("utf-8"))
        write_atomic(path, merge.text, root=loaded.dir.root, expect=before)
    except OSError as exc:
        _say(f"{shown}: error: cannot write: {exc.strerror or exc}")
        return EXIT_USAGE
    verb = "created" if creating else "completed"
    _say(f"{verb} {shown} (added: {', '.join(merge.added)})")
    return EXIT_OK


def _render(completed: list[tuple[LoadedModel, ModelConfig]], output_format: CompleteFormat) -> str:
    """One config as is; several as a JSON array, or pbtxt documents each under a header."""
    from tritoncfg.complete.merge import render_message

    if output_format is CompleteFormat.json:
        from tritoncfg.text.json_config import message_to_json

        documents = [message_to_json(config) for _, config in completed]
        return json.dumps(documents[0] if len(documents) == 1 else documents, indent=2) + "\n"
    if len(completed) == 1:
        return render_message(completed[0][1])
    return "\n".join(
        f"# {shown_path(loaded.config_path)}\n{render_message(config)}"
        for loaded, config in completed
    )


def _where(loaded: LoadedModel, message: str) -> tuple[int, int]:
    """Where an error points: the tensor it names, `max_batch_size` for the batching errors,
    else the file start."""
    parsed = loaded.config
    if parsed is None:
        return 1, 1
    for kind in ("input", "output"):
        for index, tensor in enumerate(getattr(parsed.message, kind)):
            if f"{kind} '{tensor.name}'" in message or f"'{tensor.name}' " in message:
                span = parsed.span_of((kind, index))
                return span.line, span.column
    if "max_batch_size" in message or "max-batch" in message:
        span = parsed.span_of(("max_batch_size",))
        return span.line, span.column
    return 1, 1


def _say(line: str) -> None:
    sys.stderr.write(line + "\n")
