"""`gen ensemble`: an ensemble model directory wired from step models of the repository.

Wiring, for each step input in order: a `--map STEP.INPUT=TENSOR` wins; else the output of
another step with the same name; else the one output of an *earlier* step with the same data type
and a compatible shape (-1 matches any size; a batching step's tensors carry the batch dim in
front) — two candidates are refused as ambiguous; else the input becomes an ensemble input. The
ensemble's inputs are the tensors no step produces, its outputs the tensors no step consumes.

What Triton requires (`model_config_utils.cc`, `ValidateEnsembleSchedulingConfig`;
`ensemble_utils.cc`, `ValidateEnsembleConfig`): `platform: "ensemble"`, no instance groups,
optimization or warmup; each step's maps keyed by the composing model's tensor names; every
ensemble tensor written once and used; the ensemble's `max_batch_size` no larger than any
batching step's; `model_version: -1` (an omitted version is 0, which must then be loaded); and a
numeric version directory, which may be empty (`model_lifecycle.cc`); it gets a `.gitkeep`, as
`tritoncfg new` writes one, so that git keeps it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from tritoncfg.diagnostics import Diagnostic
from tritoncfg.gen.change import Change, GenError, GenUsageError
from tritoncfg.gen.field_update import set_fields
from tritoncfg.gen.target import completed_config, load_target
from tritoncfg.lintoptions import LintSetup
from tritoncfg.record import field, record
from tritoncfg.scaffold.models import KEEP
from tritoncfg.schema import ModelConfig
from tritoncfg.text import ParsedConfig

VERSION_DIR = "1"
WRITTEN = ("name", "platform", "max_batch_size", "input", "output", "ensemble_scheduling")


@record
class Step:
    model: str
    config: ModelConfig
    inputs: dict[str, str] = field(default_factory=dict)  # model input -> ensemble tensor
    outputs: dict[str, str] = field(default_factory=dict)  # model output -> ensemble tensor

    def full_shape(self, dims: list[int]) -> list[int]:
        return [-1, *dims] if self.config.max_batch_size > 0 else list(dims)


def _compatible(a: list[int], b: list[int]) -> bool:
    return len(a) == len(b) and all(x == y or -1 in (x, y) for x, y in zip(a, b, strict=True))


def parse_maps(values: list[str]) -> dict[tuple[str, str], str]:
    maps = {}
    for value in values:
        left, _, tensor = value.partition("=")
        step, _, name = left.partition(".")
        if not (step and name and tensor):
            raise GenUsageError(f"--map expects STEP.INPUT=TENSOR, got {value!r}")
        maps[(step, name)] = tensor
    return maps


def load_steps(repository: Path, models: list[str], config_name: str | None = None) -> list[Step]:
    steps = []
    for model in models:
        if not model or "/" in model or model in (".", ".."):
            raise GenUsageError(f"--step expects a model name of the repository, got {model!r}")
        target = load_target(repository / model, config_name)
        config = completed_config(target)
        if not config.input or not config.output:
            raise GenError(f"step model '{model}': its inputs and outputs are not known")
        steps.append(Step(model, config))
    return steps


def wire(steps: list[Step], maps: dict[tuple[str, str], str]) -> None:
    """Fill each step's maps (see the module doc). Raises GenError naming the tensors."""
    producer: dict[str, tuple[int, list[int], int]] = {}  # tensor -> step, full shape, dtype
    for index, step in enumerate(steps):
        for made in step.config.output:
            name = _unique(made.name, step.model, producer)
            step.outputs[made.name] = name
            producer[name] = (index, step.full_shape(list(made.dims)), made.data_type)
    unused = set(maps) - {(s.model, t.name) for s in steps for t in s.config.input}
    if unused:
        raise GenUsageError(
            "--map names no step input: " + ", ".join(f"{s}.{i}" for s, i in sorted(unused))
        )
    for index, step in enumerate(steps):
        for tensor in step.config.input:
            given = maps.get((step.model, tensor.name))
            if given is not None:
                step.inputs[tensor.name] = given
                continue
            own = producer.get(tensor.name)
            if own is not None and own[0] != index:
                step.inputs[tensor.name] = tensor.name
                continue
            shape = step.full_shape(list(tensor.dims))
            matches = [
                name
                for name, (at, other, dtype) in producer.items()
                if at < index and dtype == tensor.data_type and _compatible(shape, other)
            ]
            if len(matches) > 1:
                raise GenError(
                    f"ambiguous wiring: input '{tensor.name}' of step '{step.model}' matches "
                    f"{', '.join(repr(m) for m in matches)} by data type and shape; "
                    f"choose with --map {step.model}.{tensor.name}=TENSOR"
                )
            step.inputs[tensor.name] = matches[0] if matches else tensor.name


def _unique(tensor: str, model: str, taken: Mapping[str, object]) -> str:
    """An ensemble tensor name for a step output: its own name, else prefixed by its model (and
    numbered, for a model that is several steps)."""
    name, number = tensor, 1
    while name in taken:
        number += 1
        name = f"{model}_{tensor}" if number == 2 else f"{model}_{number - 1}_{tensor}"
    return name


def order(steps: list[Step]) -> list[Step]:
    """The steps producers first; GenError naming the tensors of a cycle. A model may be
    several steps (Triton runs each as its own step), so steps are told apart by position."""
    made = {t: index for index, s in enumerate(steps) for t in s.outputs.values()}
    done: list[int] = []
    pending = list(range(len(steps)))
    while pending:
        ready = [
            i
            for i in pending
            if all(made.get(t) in (None, *done) for t in steps[i].inputs.values())
        ]
        if not ready:
            tensors = sorted({t for i in pending for t in steps[i].inputs.values() if t in made})
            raise GenError(
                "the steps form a cycle through the tensors "
                + ", ".join(repr(t) for t in tensors)
                + " (use --map to wire them differently)"
            )
        done.extend(ready)
        pending = [i for i in pending if i not in ready]
    return [steps[i] for i in done]


def build(name: str, steps: list[Step]) -> ModelConfig:
    """The ensemble's config from wired steps (in producer-first order)."""
    config = ModelConfig(name=name, platform="ensemble")
    batching = [s.config.max_batch_size for s in steps if s.config.max_batch_size > 0]
    unbatched_ok = all(
        dims and dims[0] == -1
        for s in steps
        if s.config.max_batch_size <= 0
        for dims in [*(t.dims for t in s.config.input), *(t.dims for t in s.config.output)]
    )
    config.max_batch_size = min(batching) if batching and unbatched_ok else 0
    consumed = [v for s in steps for v in s.inputs.values()]
    produced = [v for s in steps for v in s.outputs.values()]
    for step in steps:
        for tensor in step.config.input:
            wired = step.inputs[tensor.name]
            if wired not in produced and wired not in [t.name for t in config.input]:
                full = step.full_shape(list(tensor.dims))
                config.input.add(name=wired, data_type=tensor.data_type, dims=_dims(full, config))
        for made in step.config.output:
            wired = step.outputs[made.name]
            if wired not in consumed:
                full = step.full_shape(list(made.dims))
                config.output.add(name=wired, data_type=made.data_type, dims=_dims(full, config))
        entry = config.ensemble_scheduling.step.add(model_name=step.model, model_version=-1)
        entry.input_map.update(step.inputs)
        entry.output_map.update(step.outputs)
    return config


def _dims(full: list[int], config: ModelConfig) -> list[int]:
    return full[1:] if config.max_batch_size > 0 else full


def generate(
    repository: Path,
    name: str,
    models: list[str],
    maps: list[str],
    notes: list[str],
    config_name: str | None = None,
) -> Change:
    from tritoncfg.complete.merge import render_message
    from tritoncfg.confined import PathRefused, check_input, confine, read_regular
    from tritoncfg.repository.names import model_name_problem
    from tritoncfg.text import parse

    problem = model_name_problem(name, "ensemble name")  # the rule `new` applies to a model
    if problem is not None:
        raise GenUsageError(problem)
    try:  # a name too long for the file system; a folder of that name linked out of the root
        check_input(repository / name)
        confine(repository / name / "config.pbtxt", repository)
    except PathRefused as error:
        raise GenUsageError(str(error)) from None
    if name in models:
        raise GenUsageError(f"the ensemble '{name}' cannot be one of its own steps")
    steps = load_steps(repository, models, config_name)
    wire(steps, parse_maps(maps))
    config = build(name, order(steps))
    path = repository / name / "config.pbtxt"
    for step in config.ensemble_scheduling.step:
        wiring = ", ".join(f"{k} <- {v}" for k, v in sorted(step.input_map.items()))
        notes.append(f"step {step.model_name}: {wiring}")
    if path.is_file():
        before = read_regular(path).decode("utf-8")
        parsed = parse(before, str(path))
        _refuse_other_model(parsed, name)
        after = set_fields(parsed, config, WRITTEN)
    elif path.parent.is_dir() and any(path.parent.iterdir()) and not _only_version_dir(path):
        raise GenUsageError(
            f"{path.parent}: a model directory of the repository already (no config.pbtxt); "
            "gen ensemble writes a new ensemble or updates one: choose another name"
        )
    else:
        before, after = "", render_message(config)
    change = Change(path, before, after, notes)
    version = path.parent / VERSION_DIR
    change.make_dirs = [version]
    if not (version.is_dir() and any(version.iterdir())):
        # git keeps no empty folder: without a file, a clone has no version and Triton no model
        change.extra_files[version / KEEP] = b""
    change.root = repository
    return change


def _refuse_other_model(parsed: ParsedConfig, name: str) -> None:
    """GenUsageError for an existing config that is another model's: the name is taken. A
    config that names no backend or platform is an ensemble's to fill in, unless its model
    directory holds model files (Triton would complete it from them)."""
    message = parsed.message
    if message.platform == "ensemble" and not message.backend:
        return
    directory = Path(parsed.path or ".").parent
    if message.backend:
        what = f"backend {message.backend!r}"
    elif message.platform:
        what = f"platform {message.platform!r}"
    elif _holds_files(directory):
        what = "its version directories hold model files"
    else:
        return
    raise GenUsageError(
        f"{parsed.path}: model '{name}' exists and is not an ensemble ({what}); gen ensemble "
        "writes a new ensemble or updates one: choose another name"
    )


def _holds_files(directory: Path) -> bool:
    versions = [p for p in directory.iterdir() if p.name.isdigit() and p.is_dir()]
    return any(True for version in versions for _ in version.iterdir())


def _only_version_dir(path: Path) -> bool:
    """The model directory holds only an empty version directory (what a failed write left)."""
    version = path.parent / VERSION_DIR
    entries = list(path.parent.iterdir())
    return entries == [version] and version.is_dir() and not any(version.iterdir())


def planned_findings(change: Change, text: str, setup: LintSetup) -> list[Diagnostic]:
    """Lint the ensemble, `text` as its config, as `tritoncfg lint` would with `setup` (the
    project's settings): in place, on the repository as it is with the ensemble's directory as
    --write makes it (`tritoncfg.gen.planned`). The steps are read where they are, as lint reads
    them; nothing is copied and nothing written."""
    import os

    from tritoncfg.api import lint_discovered
    from tritoncfg.gen.change import model_findings
    from tritoncfg.gen.planned import planned_repository

    config_path = Path(os.path.abspath(change.path))
    repository = planned_repository(config_path, text, VERSION_DIR, setup.options.config_name)
    result = lint_discovered(
        (repository,),
        setup.options,
        setup.selection,
        setup.filters,
        overrides={str(config_path): text},
    )
    return model_findings(result, config_path)
