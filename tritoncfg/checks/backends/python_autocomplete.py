"""TC127: MODEL_INIT of a python model. Before it starts the model, the python backend runs
`model.py`'s `auto_complete_config` on the config as written (python_backend `src/python_be.cc`,
TRITONBACKEND_ModelInitialize), and its `pb_utils.ModelConfig` raises `ValueError` on a
`set_max_batch_size`, `add_input` or `add_output` that contradicts the config
(`src/resources/triton_python_backend_utils.py`); Triton then refuses the model. `model.py` is
read with `ast` (tritoncfg/models/python_autocomplete.py), never imported or run."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from tritoncfg.checks.backends.library import PYTHON_RUNTIME
from tritoncfg.checks.core.context import CheckContext, Finding
from tritoncfg.checks.core.phase import Phase
from tritoncfg.checks.core.registry import model_rule
from tritoncfg.diagnostics import Severity
from tritoncfg.repository import backend_version_dirname
from tritoncfg.schema import DataType, ModelConfig, ModelInput, ModelOutput
from tritoncfg.workspace import LoadedModel

PYTHON_BACKEND = "python"
# the keys pb_utils accepts in a tensor (add_input also takes "optional")
_KEYS = {
    "input": ("name", "data_type", "dims", "optional"),
    "output": ("name", "data_type", "dims"),
}
_REQUIRED = ("name", "data_type", "dims")


@model_rule(
    "TC127",
    severity=Severity.ERROR,
    summary="model.py's auto_complete_config sets a max_batch_size or tensor that contradicts "
    "the config.",
    phase=Phase.MODEL_INIT,
)
def python_auto_complete_contradicts_config(
    model: LoadedModel, ctx: CheckContext
) -> Iterator[Finding]:
    """
    ## What it does
    Reads the `auto_complete_config` of a python model's `model.py` (statically: the file is
    parsed, never imported or run) for `set_max_batch_size(N)`, `add_input({...})` and
    `add_output({...})` calls whose values are literals, and reports each one the python
    backend would reject against the config: a `max_batch_size` below the config's, a tensor
    the config declares with another `data_type`, other `dims` or another `optional`, or a
    tensor dict with a key other than `name`, `data_type`, `dims` (and `optional` for inputs)
    or without one of the first three. Calls under an `if` on something only known at run
    time (such as `if name not in config_names:`) are not read. Not reported with
    `--triton-mode strict` (`--disable-auto-complete-config`: the function is not called).

    ## Why it matters
    The python backend runs `auto_complete_config` at load; its `ModelConfig` raises
    `ValueError` and Triton refuses the model: `configuration specified max_batch_size 16, but
    in auto-complete-config function for model 'm' specified max_batch_size 8`. Raising
    `max_batch_size` in `config.pbtxt` while `model.py` still states the old value is enough.

    ## Example
    ```text
    m/config.pbtxt   max_batch_size: 16
    m/1/model.py     auto_complete_model_config.set_max_batch_size(8)
    ```

    ## Fix
    Keep the config the one source: let `auto_complete_config` add only what the config lacks
    (check `auto_complete_model_config.as_dict()` first), or make both say the same.
    ```text
    m/config.pbtxt   max_batch_size: 16
    m/1/model.py     (no set_max_batch_size)
    ```
    """
    config = ctx.config(model)
    if ctx.strict or config.backend != PYTHON_BACKEND or config.runtime == PYTHON_RUNTIME:
        return
    from tritoncfg.models.python_autocomplete import read_autocomplete_calls

    filename = config.default_model_filename or PYTHON_RUNTIME
    for number in ctx.versions(model).selected:
        version = model.dir.version(number)
        entry = version.entry(filename) if version is not None else None
        if version is None or entry is None or not entry.is_file or entry.outside_root:
            continue  # TC125 reports a missing model.py
        path = model.dir.path / backend_version_dirname(number) / filename
        for call in read_autocomplete_calls(path):
            problem = _contradiction(call.method, call.value, config)
            if problem is not None:
                message, triton = problem
                yield Finding(message, call.span, path=str(path), triton_message=triton)


def _contradiction(method: str, value: object, config: ModelConfig) -> tuple[str, str] | None:
    """(lint's message, the python backend's) for a call pb_utils.ModelConfig rejects."""
    if method == "set_max_batch_size":
        if isinstance(value, int) and not isinstance(value, bool):
            return _max_batch_size(value, config)
        return None
    if not isinstance(value, Mapping):
        return None
    kind = "input" if method == "add_input" else "output"
    return _tensor(kind, value, config)


def _max_batch_size(value: int, config: ModelConfig) -> tuple[str, str] | None:
    written = config.max_batch_size
    if written <= value:
        return None  # pb_utils raises only when the config's is larger
    return (
        f"auto_complete_config calls set_max_batch_size({value}), but the config sets "
        f"max_batch_size: {written}; the python backend raises and Triton refuses the model. "
        "Remove the call (the config is the one source) or make both say the same",
        f"configuration specified max_batch_size {written}, but in auto-complete-config "
        f"function for model '{config.name}' specified max_batch_size {value}",
    )


def _tensor(
    kind: str, value: Mapping[object, object], config: ModelConfig
) -> tuple[str, str] | None:
    name = value.get("name")
    shown = name if isinstance(name, str) else "?"
    where = f"{kind} '{shown}' in auto-complete-config function for model '{config.name}'"
    extra = [k for k in value if k not in _KEYS[kind]]
    if extra:
        allowed = ", ".join(f"'{k}'" for k in _KEYS[kind][:-1]) + f" and '{_KEYS[kind][-1]}'"
        triton = f"{where} contains property other than {allowed}."
        return (f"add_{kind} is given {extra[0]!r}, which the python backend refuses", triton)
    missing = next((k for k in _REQUIRED if k not in value), None)
    if missing is not None:
        triton = f"{where} is missing '{missing}' property."
        return (f"add_{kind} is given no {missing!r}, which the python backend requires", triton)
    declared = config.input if kind == "input" else config.output
    tensor = next((t for t in declared if t.name == name), None)
    return None if tensor is None else _conflict(kind, value, tensor, config.name)


def _conflict(
    kind: str, value: Mapping[object, object], tensor: ModelInput | ModelOutput, model: str
) -> tuple[str, str] | None:
    """pb_utils's checks of an entry the config has: data_type, then dims, then optional."""
    fix = "; the python backend raises and Triton refuses the model"
    written_type = DataType.Name(tensor.data_type)
    if tensor.data_type != 0 and written_type != value["data_type"]:
        return (
            f"add_{kind} declares {kind} '{tensor.name}' as {value['data_type']}, but the "
            f"config declares {written_type}{fix}",
            f"unable to load model '{model}', configuration expects datatype {written_type} "
            f"for {kind} '{tensor.name}', model provides {value['data_type']}",
        )
    dims = list(tensor.dims)
    if dims and dims != _as_list(value["dims"]):
        return (
            f"add_{kind} declares {kind} '{tensor.name}' with dims {value['dims']}, but the "
            f"config declares {dims}{fix}",
            f"model '{model}', tensor '{tensor.name}': the model expects dims {value['dims']} "
            f"but the model configuration specifies dims {dims}",
        )
    if (
        isinstance(tensor, ModelInput)
        and "optional" in value
        and value["optional"] != tensor.optional
    ):
        return (
            f"add_input declares input '{tensor.name}' optional: {value['optional']}, but the "
            f"config's is {tensor.optional}{fix}",
            f"model '{model}', tensor '{tensor.name}': the model expects optional "
            f"{value['optional']} but the model configuration specifies optional {tensor.optional}",
        )
    return None


def _as_list(dims: object) -> object:
    return list(dims) if isinstance(dims, Sequence) and not isinstance(dims, str) else dims
