"""TC604-TC608: the values of sequence controls (model_config_utils.cc:
`GetBooleanSequenceControlProperties`, `GetTypedSequenceControlProperties`): the false/true array of
a START, END or READY control, and the data type of a CORRID control."""

from __future__ import annotations

from collections.abc import Iterator

from tritoncfg.checks.core import gates
from tritoncfg.checks.core.context import CheckContext, Finding
from tritoncfg.checks.core.registry import model_rule
from tritoncfg.checks.sequence_batching.controls import (
    BOOLEAN_KINDS,
    PHASE,
    Control,
    controls,
    for_model,
)
from tritoncfg.diagnostics import Severity
from tritoncfg.schema import DataType
from tritoncfg.workspace import LoadedModel

CORRID_TYPES = (
    DataType.TYPE_UINT64,
    DataType.TYPE_INT64,
    DataType.TYPE_UINT32,
    DataType.TYPE_INT32,
    DataType.TYPE_STRING,
)


@model_rule(
    "TC604",
    severity=Severity.ERROR,
    summary="A START, END or READY control gives none of int32/fp32/bool_false_true.",
    phase=PHASE,
    gate=gates.sequence_batching,
)
def sequence_control_without_false_true(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports each START, END or READY control without `int32_false_true`, `fp32_false_true`
    or `bool_false_true`.

    ## Why it matters
    The array gives the values (false, true) Triton writes into the tensor, and its type the
    tensor's data type. Triton refuses the model: `sequence batching must specify either
    'int32_false_true', 'fp32_false_true' or 'bool_false_true' for CONTROL_SEQUENCE_READY for
    <model>`.

    ## Example
    ```pbtxt
    backend: "python"
    sequence_batching {
      control_input [ { name: "READY" control [ { kind: CONTROL_SEQUENCE_READY } ] } ]
    }
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    sequence_batching {
      control_input [
        { name: "READY" control [ { kind: CONTROL_SEQUENCE_READY int32_false_true: [ 0, 1 ] } ] }
      ]
    }
    ```
    """
    for control in controls(model, ctx):
        if control.control.kind in BOOLEAN_KINDS and not control.arrays:
            yield Finding(
                f"{control.kind_name} control on '{control.tensor}' gives no values; add e.g. "
                "int32_false_true: [ 0, 1 ] (or fp32_false_true / bool_false_true)",
                control.span(model),
                triton_message="sequence batching must specify either 'int32_false_true', "
                f"'fp32_false_true' or 'bool_false_true' for {control.kind_name}"
                + for_model(model, ctx),
            )


@model_rule(
    "TC605",
    severity=Severity.ERROR,
    summary="A START, END or READY control gives more than one of int32/fp32/bool_false_true.",
    phase=PHASE,
    gate=gates.sequence_batching,
)
def sequence_control_multiple_false_true(
    model: LoadedModel, ctx: CheckContext
) -> Iterator[Finding]:
    """
    ## What it does
    Reports each START, END or READY control that sets two or three of `int32_false_true`,
    `fp32_false_true` and `bool_false_true`.

    ## Why it matters
    The array chosen decides the tensor's data type, so only one may be given. Triton refuses
    the model: `sequence batching specifies more than one from 'int32_false_true',
    'fp32_false_true' and 'bool_false_true' for CONTROL_SEQUENCE_START for <model>`.

    ## Example
    ```pbtxt
    backend: "python"
    sequence_batching {
      control_input [ {
        name: "START"
        control [ { kind: CONTROL_SEQUENCE_START int32_false_true: [ 0, 1 ] fp32_false_true: [ 0, 1 ] } ]
      } ]
    }
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    sequence_batching {
      control_input [
        { name: "START" control [ { kind: CONTROL_SEQUENCE_START int32_false_true: [ 0, 1 ] } ] }
      ]
    }
    ```
    """
    for control in controls(model, ctx):
        arrays = control.arrays
        if control.control.kind in BOOLEAN_KINDS and len(arrays) > 1:
            yield Finding(
                f"{control.kind_name} control on '{control.tensor}' sets {' and '.join(arrays)}; "
                "keep the one matching the tensor's data type",
                control.span(model, arrays[1]),
                triton_message="sequence batching specifies more than one from "
                "'int32_false_true', 'fp32_false_true' and 'bool_false_true' for "
                f"{control.kind_name}" + for_model(model, ctx),
            )


@model_rule(
    "TC606",
    severity=Severity.ERROR,
    summary="A control's int32/fp32/bool_false_true does not have exactly 2 entries.",
    phase=PHASE,
    gate=gates.sequence_batching,
)
def sequence_control_false_true_length(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a START, END or READY control whose one false/true array does not hold exactly
    two values.

    ## Why it matters
    The two entries are the value for false and the value for true. Triton refuses the model:
    `sequence batching control 'int32_false_true' must have exactly 2 entries for
    CONTROL_SEQUENCE_START for <model>`.

    ## Example
    ```pbtxt
    backend: "python"
    sequence_batching {
      control_input [
        { name: "START" control [ { kind: CONTROL_SEQUENCE_START int32_false_true: [ 0, 1, 2 ] } ] }
      ]
    }
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    sequence_batching {
      control_input [
        { name: "START" control [ { kind: CONTROL_SEQUENCE_START int32_false_true: [ 0, 1 ] } ] }
      ]
    }
    ```
    """
    for control in controls(model, ctx):
        arrays = control.arrays
        if control.control.kind not in BOOLEAN_KINDS or len(arrays) != 1:
            continue  # none or several arrays are TC604 / TC605
        array = arrays[0]
        count = len(getattr(control.control, array))
        if count != 2:
            yield Finding(
                f"{array} of the {control.kind_name} control on '{control.tensor}' has {count} "
                "entries; give exactly two: the false value, then the true value",
                control.span(model, array),
                triton_message=f"sequence batching control '{array}' must have exactly 2 entries "
                f"for {control.kind_name}" + for_model(model, ctx),
            )


@model_rule(
    "TC607",
    severity=Severity.ERROR,
    summary="A CONTROL_SEQUENCE_CORRID control gives int32/fp32/bool_false_true.",
    phase=PHASE,
    gate=gates.sequence_batching,
)
def corrid_control_with_false_true(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a `CONTROL_SEQUENCE_CORRID` control that sets `int32_false_true`,
    `fp32_false_true` or `bool_false_true`.

    ## Why it matters
    The correlation ID control carries the sequence's ID, not a flag; its type comes from
    `data_type`. Triton refuses the model: `sequence batching must not specify either
    'int32_false_true', 'fp32_false_true' or 'bool_false_true' for CONTROL_SEQUENCE_CORRID for
    <model>`.

    ## Example
    ```pbtxt
    backend: "python"
    sequence_batching {
      control_input [ {
        name: "CORRID"
        control [ { kind: CONTROL_SEQUENCE_CORRID data_type: TYPE_UINT64 int32_false_true: [ 0, 1 ] } ]
      } ]
    }
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    sequence_batching {
      control_input [
        { name: "CORRID" control [ { kind: CONTROL_SEQUENCE_CORRID data_type: TYPE_UINT64 } ] }
      ]
    }
    ```
    """
    for control in controls(model, ctx):
        arrays = control.arrays
        if control.control.kind == Control.CONTROL_SEQUENCE_CORRID and arrays:
            yield Finding(
                f"the CONTROL_SEQUENCE_CORRID control on '{control.tensor}' sets "
                f"{' and '.join(arrays)}; remove it and set data_type instead",
                control.span(model, arrays[0]),
                triton_message="sequence batching must not specify either 'int32_false_true', "
                "'fp32_false_true' or 'bool_false_true' for CONTROL_SEQUENCE_CORRID"
                + for_model(model, ctx),
            )


@model_rule(
    "TC608",
    severity=Severity.ERROR,
    summary="A CONTROL_SEQUENCE_CORRID control's data_type is unset or not an integer/string type.",
    phase=PHASE,
    gate=gates.sequence_batching,
)
def corrid_control_data_type(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a `CONTROL_SEQUENCE_CORRID` control whose `data_type` is not `TYPE_UINT64`,
    `TYPE_INT64`, `TYPE_UINT32`, `TYPE_INT32` or `TYPE_STRING`, including an unset one.

    ## Why it matters
    Triton refuses the model: `unexpected data type for control CONTROL_SEQUENCE_CORRID for
    <model>. Allowed data types are TYPE_UINT64, TYPE_INT64, TYPE_UINT32, TYPE_INT32 and
    TYPE_STRING`.

    ## Example
    ```pbtxt
    backend: "python"
    sequence_batching {
      control_input [ { name: "CORRID" control [ { kind: CONTROL_SEQUENCE_CORRID } ] } ]
    }
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    sequence_batching {
      control_input [
        { name: "CORRID" control [ { kind: CONTROL_SEQUENCE_CORRID data_type: TYPE_UINT64 } ] }
      ]
    }
    ```
    """
    for control in controls(model, ctx):
        data_type = control.control.data_type
        if control.control.kind != Control.CONTROL_SEQUENCE_CORRID or data_type in CORRID_TYPES:
            continue
        shown = DataType.Name(data_type) if data_type in DataType.values() else str(data_type)
        problem = "has no data_type" if data_type == DataType.TYPE_INVALID else f"is {shown}"
        yield Finding(
            f"the CONTROL_SEQUENCE_CORRID control on '{control.tensor}' {problem}; use "
            "TYPE_UINT64 (or TYPE_INT64, TYPE_UINT32, TYPE_INT32, TYPE_STRING)",
            control.span(model, "data_type"),
            triton_message="unexpected data type for control CONTROL_SEQUENCE_CORRID"
            + for_model(model, ctx)
            + ". Allowed data types are TYPE_UINT64, TYPE_INT64, TYPE_UINT32, TYPE_INT32 and "
            "TYPE_STRING",
        )
