"""`tritoncfg verify PATH`: load the repository into a real Triton and compare its verdict with
tritoncfg's, model by model."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from tritoncfg.cli.common import Color, existing_paths, fail, use_color
from tritoncfg.options.choices import TextOrJson, TritonMode

EXIT_SERVER = 3  # no server could be found, started or reached
EXIT_INTERRUPTED = 130


def _server_failure(message: str) -> None:
    sys.stderr.write(f"tritoncfg: error: {message}\n")
    raise typer.Exit(EXIT_SERVER)


class _Progress:
    """A Rich progress bar on stderr while models load (nothing when stderr is not a terminal)."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn

        console = Console(stderr=True)
        self.bar = Progress(
            SpinnerColumn(),
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            console=console,
            transient=True,
            disable=not console.is_terminal,
        )
        self.task = self.bar.add_task("verify", total=None)

    def __call__(self, what: str, done: int, total: int) -> None:
        self.bar.update(self.task, description=what, completed=done, total=total)

    def __enter__(self) -> _Progress:
        self.bar.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.bar.stop()


def verify_command(
    path: Annotated[
        Path,
        typer.Argument(help="A model repository (or one model directory).", show_default=False),
    ],
    tritonserver: Annotated[
        Path | None,
        typer.Option(
            help="The tritonserver binary. Default: PATH, /opt/tritonserver, an installed "
            "nvidia-pytriton (extra tritoncfg[triton])."
        ),
    ] = None,
    backend_dir: Annotated[
        Path | None,
        typer.Option(help="Triton's --backend-directory (also given to tritoncfg's lint)."),
    ] = None,
    triton_mode: Annotated[
        TritonMode,
        typer.Option(help="default: auto-complete on; strict: --disable-auto-complete-config."),
    ] = TritonMode.default,
    gpus: Annotated[
        str | None,
        typer.Option(help="GPU ids the server sees, for lint: '0,1' or 'none'. Default: detected."),
    ] = None,
    model_config_name: Annotated[
        str | None,
        typer.Option(help="Triton's --model-config-name, for the server and for lint."),
    ] = None,
    rate_limit: Annotated[
        str | None,
        typer.Option(help="Triton's --rate-limit (off or execution_count), for both."),
    ] = None,
    rate_limit_resource: Annotated[
        list[str] | None,
        typer.Option(help="Triton's --rate-limit-resource NAME:COUNT[:DEVICE], for both."),
    ] = None,
    output_format: Annotated[
        TextOrJson, typer.Option("--format", "-f", help="Output format.")
    ] = TextOrJson.text,
    startup_timeout: Annotated[
        float, typer.Option(help="Seconds to wait for the server to come up.")
    ] = 60.0,
    load_timeout: Annotated[
        float, typer.Option(help="Seconds to wait for one model to load.")
    ] = 600.0,
    color: Annotated[Color, typer.Option(help="Colour in text output.")] = Color.auto,
) -> None:
    """Load every model into a real Triton (explicit model control, 127.0.0.1, free ports) and
    report Triton's verdict beside tritoncfg's, flagging each disagreement.

    Triton's errors come as TC000 diagnostics. The models' own code runs (python backend
    `initialize`), as in any Triton. Exit status: 0 every model loads and tritoncfg agrees,
    1 Triton rejected a model or the two disagree, 2 usage error, 3 the server could not start.
    """
    from tritoncfg.triton.load import ServerDied
    from tritoncfg.triton.locate import ServerNotFound
    from tritoncfg.triton.process import ServerStartError
    from tritoncfg.triton.verify import VerifyOptions, verify

    (path,) = existing_paths([path])
    if backend_dir is not None and not backend_dir.is_dir():
        fail(f"--backend-dir {backend_dir}: not a directory")
    from tritoncfg.options.values import (
        OptionError,
        parse_gpus,
        parse_rate_limit,
        parse_rate_limit_resources,
        parse_triton_mode,
    )

    try:
        options = VerifyOptions(
            tritonserver=tritonserver,
            backend_dir=backend_dir.resolve() if backend_dir is not None else None,
            triton_mode=parse_triton_mode(triton_mode),
            gpus=parse_gpus(gpus),
            startup_timeout=startup_timeout,
            load_timeout=load_timeout,
            config_name=model_config_name,
            rate_limit=bool(parse_rate_limit(rate_limit)),
            rate_limit_resources=parse_rate_limit_resources(rate_limit_resource),
        )
    except OptionError as exc:
        fail(str(exc))
    try:
        with _Progress() as progress:
            report = verify(path, options, progress)
    except ServerNotFound as exc:
        _server_failure(str(exc))
    except ServerStartError as exc:
        _server_failure(f"tritonserver failed to start: {exc}")
    except ServerDied as exc:
        _server_failure(f"{exc}; see the messages above")
    except KeyboardInterrupt:
        sys.stderr.write("tritoncfg: interrupted; tritonserver stopped\n")
        raise typer.Exit(EXIT_INTERRUPTED) from None
    from tritoncfg.triton.render import render_verify_text, verify_json

    if output_format is TextOrJson.json:
        sys.stdout.write(json.dumps(verify_json(report), indent=2) + "\n")
    else:
        render_verify_text(sys.stdout, report, color=use_color(color, sys.stdout))
    raise typer.Exit(report.exit_code)
