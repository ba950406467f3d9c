"""TC000 triton-rejected: what a real Triton said when `tritoncfg verify` loaded the model.

The rule is metadata only (so `tritoncfg explain TC000`, docs/rules.md and SARIF know it): lint
never produces it; `verify` turns each error the server reported into a TC000 diagnostic.
"""

from __future__ import annotations

from tritoncfg.checks.core.phase import Phase
from tritoncfg.checks.core.registry import emitted_rule
from tritoncfg.diagnostics import Severity

PHASE = Phase.LOAD  # any step of the load: the server's own verdict


TRITON_REJECTED = emitted_rule(
    "TC000",
    "TRITON_REJECTED",
    severity=Severity.ERROR,
    summary="A real Triton server refused to load the model (reported by `tritoncfg verify`).",
    phase=PHASE,
    doc="""
    ## What it does
    `tritoncfg verify` loads every model into a real `tritonserver` (explicit model control, on
    127.0.0.1) and reports each error the server gives, from its API and from its log, as
    TC000 at the config file, on the line the message names when it names one (a protobuf parse
    error's `line:column`, the field or tensor a validation message mentions). `tritoncfg lint`
    never reports it.

    ## Why it matters
    It is Triton's own verdict, not tritoncfg's reading of it. `verify` prints it beside the lint
    findings and flags each model where the two disagree: either tritoncfg missed a problem
    Triton has, or it reports one that Triton accepts.

    ## Example
    A config with `preferred_batch_size: [ 16 ]` and `max_batch_size: 8`, loaded by
    `tritoncfg verify`:
    ```text
    m/config.pbtxt:3:43: TC203 error (preferred-batch-size-exceeds-max) preferred batch size 16 ...
    m/config.pbtxt:3:43: TC000 error (triton-rejected) Triton refused the model: dynamic batching
      preferred size must be <= max batch size for m
    ```

    ## Fix
    Fix the config as the message says (the lint finding beside it usually says how), then run
    `tritoncfg verify` again. A model whose backend the verifying server lacks is not a TC000: it
    is reported as "backend not available on this server".
    """,
    module=__name__,
)
