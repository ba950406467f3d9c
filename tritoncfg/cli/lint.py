"""`tritoncfg lint PATH...`: Triton's verdict, offline, with every finding at once."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from tritoncfg.cli.common import (
    EXIT_FINDINGS,
    EXIT_OK,
    Color,
    existing_paths,
    fail,
    refuse_cloud,
    use_color,
)


class OutputFormat(StrEnum):
    text = "text"
    json = "json"
    sarif = "sarif"
    github = "github"
    junit = "junit"


class TritonModeOption(StrEnum):
    default = "default"
    strict = "strict"


class ModelFilesOption(StrEnum):
    required = "required"
    optional = "optional"


def parse_gpus(value: str | list[int] | None) -> tuple[int, ...] | None:
    if value is None:
        return None
    if isinstance(value, list):
        return tuple(sorted(set(value)))
    if value.strip().lower() == "none":
        return ()
    try:
        return tuple(sorted({int(part) for part in value.split(",") if part.strip()}))
    except ValueError:
        fail(f"--gpus expects a comma-separated list of GPU ids or 'none', got {value!r}")


def parse_rate_limit(value: str | None) -> bool | None:
    if value is None:
        return None
    if value not in ("off", "execution_count"):
        fail(f"--rate-limit expects off or execution_count, got {value!r}")
    return value == "execution_count"


def _gpu_memory(value: str | int | None) -> int | None:
    if value is None:
        return None
    from tritoncfg.units import parse_size

    try:
        return parse_size(value)
    except ValueError as exc:
        fail(f"--gpu-memory: {exc}")


def _triton_version(value: str | None) -> str | None:
    if value is None:
        return None
    from tritoncfg.schema.releases import UnknownRelease, find_release

    try:
        find_release(str(value))
    except UnknownRelease as exc:
        fail(f"--triton-version: {exc}")
    return str(value)


def parse_rate_limit_resources(values: list[str] | None) -> tuple[tuple[str, int, int | None], ...]:
    from tritoncfg.checks.rate_limit_resources import parse_rate_limit_resource

    try:
        return tuple(parse_rate_limit_resource(value) for value in values or ())
    except ValueError as exc:
        fail(f"--rate-limit-resource: {exc}")


def _split(values: list[str] | None) -> tuple[str, ...] | None:
    """`--select TC1,TC2 --select TC9` → ("TC1", "TC2", "TC9"); None when not given."""
    if values is None:
        return None
    return tuple(part.strip() for value in values for part in value.split(",") if part.strip())


def _overrides(values: list[str] | None, configured: dict[str, str]) -> dict[str, Any]:
    from tritoncfg.diagnostics import Severity

    merged = dict(configured)
    for value in values or []:
        selector, _, severity = value.partition("=")
        if not severity:
            fail(f"--severity-override expects CODE=SEVERITY, got {value!r}")
        merged[selector.strip()] = severity.strip()
    try:
        return {k: Severity(v) for k, v in merged.items()}
    except ValueError as exc:
        fail(f"severity override: {exc}; use error, warning or info")


def lint_command(
    raw_paths: Annotated[
        list[str],
        typer.Argument(
            metavar="PATHS...",
            help="Model repositories, model directories or config files; s3://, gs:// and as:// "
            "repositories are read through the cloud extra.",
            show_default=False,
        ),
    ],
    output_format: Annotated[
        OutputFormat, typer.Option("--format", "-f", help="Output format.")
    ] = OutputFormat.text,
    triton_mode: Annotated[
        TritonModeOption | None,
        typer.Option(
            help="default: Triton's auto-complete is on; strict: --disable-auto-complete-config."
        ),
    ] = None,
    gpus: Annotated[
        str | None, typer.Option(help="GPU ids visible on the target host, e.g. '0,1', or 'none'.")
    ] = None,
    gpu_memory: Annotated[
        str | None,
        typer.Option(
            help="Memory of one GPU of the target host, e.g. '24GiB' or '80GB' (checks TC914)."
        ),
    ] = None,
    model_config_name: Annotated[
        str | None,
        typer.Option(
            help="Like Triton's --model-config-name: use configs/<name>.pbtxt where present."
        ),
    ] = None,
    backend_dir: Annotated[
        Path | None,
        typer.Option(
            help="Triton's --backend-directory on the target host; backend libraries are then checked."
        ),
    ] = None,
    rate_limit: Annotated[
        str | None,
        typer.Option(help="Triton's --rate-limit on the target host: off or execution_count."),
    ] = None,
    model_files: Annotated[
        ModelFilesOption | None,
        typer.Option(
            help="required (default): report versions without their model file (TC125, TC126); "
            "optional: model files are fetched at deploy time."
        ),
    ] = None,
    rate_limit_resource: Annotated[
        list[str] | None,
        typer.Option(
            help="Triton's --rate-limit-resource on the target host: NAME:COUNT[:DEVICE] "
            "(repeatable)."
        ),
    ] = None,
    triton_version: Annotated[
        str | None,
        typer.Option(
            help="The Triton release the repository is for, e.g. 2.51 or 24.10: report fields "
            "and values it does not know (TC012). Default: the newest schema."
        ),
    ] = None,
    select: Annotated[
        list[str] | None,
        typer.Option(help="Rules to run: codes, prefixes (TC2) or names; comma-separated."),
    ] = None,
    extend_select: Annotated[
        list[str] | None, typer.Option(help="Rules to add to the selection.")
    ] = None,
    ignore: Annotated[
        list[str] | None, typer.Option(help="Rules not to run: codes, prefixes or names.")
    ] = None,
    severity_override: Annotated[
        list[str] | None, typer.Option(help="CODE=SEVERITY, e.g. TC901=error (repeatable).")
    ] = None,
    warnings_as_errors: Annotated[
        bool | None, typer.Option("--warnings-as-errors", help="Exit 1 on warnings too.")
    ] = None,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="Print diagnostics only, no summary.")
    ] = False,
    statistics: Annotated[
        bool, typer.Option("--statistics", help="Print the count of findings per rule.")
    ] = False,
    config: Annotated[
        Path | None,
        typer.Option(
            "--config", help="Read settings from this file (pyproject.toml or tritoncfg.toml)."
        ),
    ] = None,
    isolated: Annotated[
        bool, typer.Option("--isolated", help="Ignore configuration files.")
    ] = False,
    apply_fixes: Annotated[
        bool, typer.Option("--fix", help="Apply safe fixes (atomic writes; comments kept).")
    ] = False,
    unsafe_fixes: Annotated[
        bool, typer.Option("--unsafe-fixes", help="Also apply fixes that may change behaviour.")
    ] = False,
    show_diff: Annotated[
        bool,
        typer.Option(
            "--diff", help="Show the fixes as a unified diff; change nothing (exit 1 if any)."
        ),
    ] = False,
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs",
            "-j",
            min=1,
            help="Processes to lint with. Default: one per core for a few hundred models or more.",
        ),
    ] = None,
    cache: Annotated[
        bool | None,
        typer.Option(
            "--cache/--no-cache",
            help="Reuse unchanged models' findings from .tritoncfg_cache/ (default: on).",
            show_default=False,
        ),
    ] = None,
    color: Annotated[Color, typer.Option(help="Colour in text output.")] = Color.auto,
) -> None:
    """Check configs the way Triton loads them, and report every problem with file:line:col.

    Exit status: 0 no error findings, 1 error findings (or warnings with --warnings-as-errors),
    2 usage error or unreadable path.
    """
    from tritoncfg.checks import LintOptions
    from tritoncfg.checks.registry import TritonMode
    from tritoncfg.checks.selection import (
        PathFilters,
        RuleSelection,
        SelectorError,
        check_selectors,
    )
    from tritoncfg.cloud import is_cloud
    from tritoncfg.settings import SettingsError, load_settings, project_repository

    paths: list[Path | str] = [p if is_cloud(p) else project_repository(Path(p)) for p in raw_paths]
    local = [p for p in paths if isinstance(p, Path)]
    existing_paths(local)
    if apply_fixes or show_diff:
        refuse_cloud([Path(p) for p in paths if isinstance(p, str)], "lint --fix")
    try:
        settings = load_settings(
            local[0] if local else Path.cwd(), config=config, isolated=isolated
        )
    except SettingsError as exc:
        fail(str(exc))
    mode: TritonMode = (
        "strict" if (triton_mode or settings.get("triton-mode")) == "strict" else "default"
    )
    configured_backend_dir = settings.get("backend-dir")
    options = LintOptions(
        triton_mode=mode,
        gpus=parse_gpus(gpus) if gpus is not None else parse_gpus(settings.get("gpus")),
        gpu_memory=_gpu_memory(
            gpu_memory if gpu_memory is not None else settings.get("gpu-memory")
        ),
        config_name=model_config_name or settings.get("model-config-name"),
        rate_limit=parse_rate_limit(rate_limit or settings.get("rate-limit")),
        rate_limit_resources=parse_rate_limit_resources(
            rate_limit_resource or settings.get("rate-limit-resource")
        ),
        backend_dir=backend_dir
        or (settings.base / configured_backend_dir if configured_backend_dir else None),
        triton_version=_triton_version(triton_version or settings.get("triton-version")),
        model_files="optional"
        if (model_files or settings.get("model-files")) == "optional"
        else "required",
        backends=tuple(settings.get("backends", [])),
        repo_agents=tuple(settings.get("repo-agents", [])),
    )
    cli_select = (*(_split(select) or ()), *(_split(extend_select) or ()))
    selection = RuleSelection(
        select=_split(select) or tuple(settings.get("select", ["ALL"])),
        extend_select=(*settings.get("extend-select", []), *(_split(extend_select) or ())),
        # a rule named on the command line is not ignored by the configuration file
        ignore=(
            *(s for s in settings.get("ignore", []) if s not in cli_select),
            *(_split(ignore) or ()),
        ),
        severity_overrides=_overrides(severity_override, settings.get("severity-overrides", {})),
    )
    filters = PathFilters(
        base=settings.base,
        exclude=tuple(settings.get("exclude", [])),
        per_path_ignores={k: tuple(v) for k, v in settings.get("per-path-ignores", {}).items()},
    )
    try:
        check_selectors(selection.selectors())
        for selectors in filters.per_path_ignores.values():
            check_selectors(selectors)
    except SelectorError as exc:
        fail(str(exc))
    if apply_fixes or show_diff:
        result = _fix(paths, options, selection, filters, unsafe=unsafe_fixes, diff_only=show_diff)
        if show_diff:
            raise typer.Exit(EXIT_FINDINGS if result else EXIT_OK)
        assert not isinstance(result, bool)
    else:
        cached = cache if cache is not None else settings.get("cache", True)
        cache_dir = settings.base / ".tritoncfg_cache" if cached and local == paths else None
        result = _lint(paths, options, selection, filters, jobs, cache_dir)
    strict_exit = (
        warnings_as_errors
        if warnings_as_errors is not None
        else settings.get("warnings-as-errors", False)
    )
    _render(
        output_format,
        result,
        quiet=quiet,
        color=color,
        statistics=statistics,
        warnings_as_errors=strict_exit,
    )
    from tritoncfg.diagnostics import Severity

    failing = result.has_errors or (strict_exit and result.count(Severity.WARNING) > 0)
    raise typer.Exit(EXIT_FINDINGS if failing else EXIT_OK)


def _lint(
    paths: list[Path | str],
    options: Any,
    selection: Any,
    filters: Any,
    jobs: int | None,
    cache_dir: Path | None,
) -> Any:
    """The lint, with a cloud repository that cannot be read reported as a usage error."""
    from tritoncfg.api import lint
    from tritoncfg.cloud.url import CloudUrlError

    try:
        return lint(paths, options, selection, filters, jobs=jobs, cache_dir=cache_dir)
    except CloudUrlError as error:
        fail(str(error))
    except Exception as error:
        from tritoncfg.cloud.stage import CloudError

        if isinstance(error, CloudError):
            fail(str(error))
        raise


def _fix(
    paths: list[Path | str],
    options: Any,
    selection: Any,
    filters: Any,
    *,
    unsafe: bool,
    diff_only: bool,
) -> Any:
    """Apply fixes (or print them as a diff). Returns the lint of the fixed files, or, with
    `diff_only`, whether anything would change."""
    import difflib

    from tritoncfg.atomic import write_atomic
    from tritoncfg.fixer import fix

    outcome = fix(paths, options, selection, filters, unsafe=unsafe)
    for path in outcome.changed:
        if diff_only:
            before, after = outcome.before[path], outcome.after[path]
            sys.stdout.writelines(
                difflib.unified_diff(before.splitlines(True), after.splitlines(True), path, path)
            )
        else:
            try:
                write_atomic(Path(path), outcome.after[path])
            except OSError as exc:  # the file is left as it was
                fail(f"{path}: cannot write the fixes: {exc.strerror or exc}")
    if diff_only:
        return bool(outcome.changed)
    remaining = sum(1 for d in outcome.result.diagnostics if d.fix is not None)
    hint = f"; {remaining} more with --unsafe-fixes" if remaining and not unsafe else ""
    fixed, files = len(outcome.applied), len(outcome.changed)
    sys.stderr.write(
        f"Fixed {fixed} finding{'s' if fixed != 1 else ''} in {files} file{'s' if files != 1 else ''}{hint}.\n"
    )
    return outcome.result


def _relative(result: Any) -> None:
    """Paths under the working directory are shown relative to it, as ruff and git do."""
    import dataclasses
    import os

    cwd = Path.cwd()

    def show(path: str) -> str:
        return os.path.relpath(path, cwd) if Path(path).is_relative_to(cwd) else path

    result.diagnostics = [dataclasses.replace(d, path=show(d.path)) for d in result.diagnostics]
    from tritoncfg.lintrun import SourceTexts

    sources = result.sources
    result.sources = (
        sources.renamed(show)  # the texts of cached models stay unread until a snippet needs one
        if isinstance(sources, SourceTexts)
        else {show(p): text for p, text in sources.items()}
    )
    result.file_paths = [show(p) for p in result.file_paths]


def _render(
    output_format: OutputFormat,
    result: Any,
    *,
    quiet: bool,
    color: Color,
    statistics: bool,
    warnings_as_errors: bool,
) -> None:
    out = sys.stdout
    if output_format is not OutputFormat.sarif:
        _relative(result)
    if output_format is OutputFormat.json:
        from tritoncfg.report.json import render_json

        out.write(render_json(result.diagnostics, files=result.files, models=result.models) + "\n")
    elif output_format is OutputFormat.sarif:
        from tritoncfg.checks import RULES
        from tritoncfg.report.sarif import render_sarif

        out.write(render_sarif(result.diagnostics, RULES.values(), root=Path.cwd()) + "\n")
    elif output_format is OutputFormat.github:
        from tritoncfg.report.github import render_github

        out.write(render_github(result.diagnostics))
    elif output_format is OutputFormat.junit:
        from tritoncfg.report.junit import render_junit

        out.write(
            render_junit(
                result.diagnostics,
                files=result.file_paths,
                warnings_as_errors=warnings_as_errors,
            )
            + "\n"
        )
    else:
        from tritoncfg.report.text import render_statistics, render_text

        painted = use_color(color, out)
        render_text(
            out,
            result.diagnostics,
            result.sources,
            files=result.files,
            models=result.models,
            color=painted,
            summary=not quiet,
        )
        if statistics:
            render_statistics(out, result.diagnostics)
