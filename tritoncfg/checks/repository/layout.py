"""TC1xx: REPO, NAME and VERSIONS. What Triton's repository poll and version discovery see
(model_repository_manager.cc: `Poll`, model_lifecycle.cc:
`VersionsToLoad`); facts come from `tritoncfg.repository`, which never reads outside the root."""

from __future__ import annotations

from collections.abc import Iterator

from tritoncfg.checks.core.context import CheckContext, Finding, at
from tritoncfg.checks.core.phase import Phase
from tritoncfg.checks.core.registry import model_rule, repository_rule
from tritoncfg.diagnostics import Fix, Severity
from tritoncfg.repository import IssueKind, Repository
from tritoncfg.text.edits import Edit
from tritoncfg.text.span import NO_LINE
from tritoncfg.workspace import LoadedModel


def _issues(repository: Repository, *kinds: IssueKind) -> Iterator[Finding]:
    for issue in repository.issues:
        if issue.kind in kinds:
            yield Finding(issue.detail, path=str(issue.path))


def _near_miss(wanted: str, files: tuple[str, ...]) -> str | None:
    """A file of the model directory that was probably meant to be the config (`config.pbtx`,
    `Config.pbtxt`, `config.pbtxt.txt`): Triton opens only the exact name."""
    stem = wanted.removesuffix(".pbtxt").casefold()
    candidates = [
        name
        for name in files
        if name.casefold().startswith(stem) and name.casefold().split(".")[0] == stem
    ]
    if not candidates:
        import difflib  # only for a model without its config

        candidates = difflib.get_close_matches(wanted, files, n=1, cutoff=0.8)
    return min(candidates, default=None)


@repository_rule(
    "TC101",
    severity=Severity.ERROR,
    summary="A hidden directory (.git, .ipynb_checkpoints) in the repository is polled as a model.",
    phase=Phase.REPO,
)
def hidden_model_directory(repository: Repository, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports hidden directories directly under the model repository.

    ## Why it matters
    Triton treats every immediate subdirectory as a model and does not skip hidden ones, so a
    `.ipynb_checkpoints` left by Jupyter becomes a model that fails to load, and with the
    default `--exit-on-error=true` the server does not start.

    ## Example
    `model_repository/.ipynb_checkpoints/`

    ## Fix
    Delete the directory, or keep notebooks out of the model repository.
    """
    return _issues(repository, "hidden_model_dir")


@repository_rule(
    "TC102",
    severity=Severity.WARNING,
    summary="A symlink points outside the repository root or nowhere; tritoncfg does not follow it.",
    phase=Phase.REPO,
)
def symlink_outside_repository(repository: Repository, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports symlinks that leave the repository root, dangle, or loop. tritoncfg never reads
    outside the root it was given, so what lies behind them is not checked.

    ## Why it matters
    A link that works on your machine often points nowhere inside the serving container.

    ## Example
    `classifier/1/model.onnx -> /home/me/models/model.onnx`

    ## Fix
    Copy the file into the repository, or mount it at the same path in the container.
    """
    return _issues(repository, "symlink_outside_root", "broken_symlink")


@repository_rule(
    "TC103",
    severity=Severity.ERROR,
    summary="A directory of the repository cannot be listed.",
    phase=Phase.REPO,
)
def unreadable_directory(repository: Repository, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports directories that cannot be listed (permissions).

    ## Why it matters
    Triton cannot poll or load what it cannot list.

    ## Example
    A model directory with mode 000.

    ## Fix
    Make the directory readable by the user Triton runs as.
    """
    return _issues(repository, "unreadable_dir")


@model_rule(
    "TC104",
    severity=Severity.WARNING,
    summary="A model directory has no config.pbtxt.",
    phase=Phase.PARSE,
    needs_valid_config=False,
)
def missing_config(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a model directory without a config file.

    ## Why it matters
    With auto-complete on (Triton's default) the missing file is treated as an empty config, and
    only backends that can auto-complete (ONNX Runtime, TensorRT, TensorFlow, Python with
    `auto_complete_config`) make a working model of it; what you get depends on the model file.
    With `--disable-auto-complete-config` Triton fails: `failed to open text file for read
    <path>: No such file or directory` (error in `--triton-mode strict`).

    A `config.pbtxt` that is a directory is an error: Triton finds the path and fails to read it.
    A `config.json` beside the missing file is not read either (Triton reads JSON only as a
    load-API override); the finding says how to convert it.

    ## Example
    `classifier/1/model.onnx` and no `classifier/config.pbtxt`.

    ## Fix
    Write the config, e.g. with `tritoncfg complete classifier --write`, or rename a near miss
    (`config.pbtx`, `Config.pbtxt`, `config.pbtxt.txt`, which the message names) to `config.pbtxt`.
    """
    if model.dir.config_exists or model.dir.is_hidden:
        return
    entry = model.dir.entry(model.dir.config_path.name)
    if entry is not None and entry.is_dir:
        yield Finding(
            f"'{model.dir.config_path.name}' of model '{model.name}' is a directory, not a file: "
            "Triton finds the path but cannot read a config from it; make it a file",
            path=model.config_path,
            severity=Severity.ERROR,
        )
        return
    strict = ctx.options.triton_mode == "strict"
    json_config = model.dir.entry("config.json")
    hint = (
        "; the config.json beside it is never read (Triton takes JSON only as a load-API "
        "override): `tritoncfg convert config.json --to pbtxt -o config.pbtxt` makes the file"
        if json_config is not None and json_config.is_file
        else ""
    )
    wanted = model.dir.config_path.name
    near = _near_miss(wanted, model.dir.files_in_model_dir)
    yield Finding(
        f"model '{model.name}' has no {wanted}"
        + (f" ('{near}' is not read: Triton reads only '{wanted}')" if near else "")
        + ": "
        + (
            "strict mode (--disable-auto-complete-config) fails to load it"
            if strict
            else "Triton treats it as an empty config and relies on the backend to auto-complete it"
        )
        + hint,
        path=str(model.dir.path),
        span=NO_LINE,
        triton_message=f"failed to open text file for read {model.config_path}: No such file or directory"
        if strict
        else None,
        severity=Severity.ERROR if strict else None,
    )


@model_rule(
    "TC105",
    severity=Severity.ERROR,
    summary="A model has no numeric version directory, so Triton loads no version of it.",
    phase=Phase.VERSIONS,
    needs_valid_config=False,
)
def no_version_directory(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a model directory with no version subdirectory (`1/`, `2/`, ...). Ensembles need one
    too, even an empty one.

    ## Why it matters
    Triton fails the model: `at least one version must be available under the version policy of
    model '<model>'`.

    ## Example
    `classifier/config.pbtxt` and `classifier/model.onnx`, with no `classifier/1/`.

    ## Fix
    Move the model file into `classifier/1/`.
    """
    if model.dir.versions or model.dir.is_hidden or not model.dir.accessible:
        return
    name = (
        model.config.message.name
        if model.config is not None and model.config.message.name
        else model.name
    )
    yield Finding(
        f"model '{model.name}' has no numeric version directory (e.g. '1/'); Triton loads no version",
        path=str(model.dir.path),
        span=NO_LINE,
        triton_message=f"at least one version must be available under the version policy of model '{name}'",
    )


@model_rule(
    "TC106",
    severity=Severity.WARNING,
    summary="A subdirectory that looks like a version but that Triton ignores (leading zero, not a number).",
    phase=Phase.VERSIONS,
    needs_valid_config=False,
)
def ignored_version_directory(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports model subdirectories that Triton skips when it lists versions: names with a leading
    zero (`01`), names that are not integers (`v1`, `latest`), numbers beyond int64.

    ## Why it matters
    The model file in `v1/` is never loaded; Triton only logs a warning such as `ignore version
    directory 'v1' which fails to convert to integral number`.

    ## Example
    `classifier/v1/model.onnx`

    ## Fix
    Rename the directory to a plain integer: `classifier/1/`.
    """
    for ignored in model.dir.ignored_version_dirs:
        if ignored.name.startswith("."):
            continue  # hidden folders in a model dir are harmless to Triton's version listing
        yield Finding(
            f"directory '{ignored.name}' of model '{model.name}' is not loaded as a version: {ignored.reason}",
            path=str(model.dir.path / ignored.name),
            triton_message=ignored.reason,
        )


@model_rule(
    "TC107",
    severity=Severity.ERROR,
    summary="The config's name differs from the model directory's name.",
    phase=Phase.NAME,
    fixable=True,
)
def directory_name_mismatch(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a `name` that is set and is not the model directory's name (an empty name is filled
    from the directory).

    ## Why it matters
    Triton refuses the model: `unexpected directory name 'a' for model 'b', directory name must
    equal model name`.

    ## Example
    In the model directory `m`:
    ```pbtxt
    name: "resnet"
    backend: "python"
    ```

    ## Fix
    Make them equal, or remove `name` and let Triton fill it in:
    ```pbtxt
    name: "m"
    backend: "python"
    ```
    """
    name = model.config.message.name if model.config is not None else ""
    if name and name != model.name:
        yield Finding(
            f"name \"{name}\" does not match the directory '{model.name}'; Triton requires them to be equal",
            at(model, "name", value=True),
            fix=Fix(
                f'rename the model to "{model.name}"',
                (Edit(at(model, "name", value=True), f'"{model.name}"'),),
                safe=False,  # clients address the model by this name
            ),
            triton_message=f"unexpected directory name '{model.name}' for model '{name}', "
            "directory name must equal model name",
        )


@model_rule(
    "TC108",
    severity=Severity.INFO,
    summary="A config file name Triton never reads (it reads config.pbtxt or configs/<name>.pbtxt).",
    phase=Phase.PARSE,
    needs_valid_config=False,
)
def unconventional_config_file(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Notes that a linted file is not where Triton looks for a config; it is checked as the
    config of its directory anyway.

    ## Why it matters
    Triton reads `<model>/config.pbtxt`, or `<model>/configs/<name>.pbtxt` with
    `--model-config-name`; edits to another file have no effect on the server.

    ## Example
    `bls/sync_config.pbtxt`

    ## Fix
    Rename it, or move it to `configs/` and select it with `--model-config-name`.
    """
    for issue in model.repository.issues:
        if issue.kind == "unconventional_config_file" and issue.path == model.dir.config_path:
            yield Finding(issue.detail, path=str(issue.path))
