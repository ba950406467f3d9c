"""TC115-TC116: VERSIONS. Which of the version directories Triton's `VersionsToLoad` loads under
the version policy (model_lifecycle.cc). A model with no version directory at all is TC105's."""

from __future__ import annotations

from collections.abc import Iterator

from tritoncfg.checks.core.context import CheckContext, Finding, at
from tritoncfg.checks.core.phase import Phase
from tritoncfg.checks.core.registry import model_rule
from tritoncfg.diagnostics import Severity
from tritoncfg.workspace import LoadedModel

PHASE = Phase.VERSIONS


def _on_disk(model: LoadedModel) -> str:
    return ", ".join(str(n) for n in model.dir.version_numbers)


@model_rule(
    "TC115",
    severity=Severity.ERROR,
    summary="The version policy selects none of the model's version directories.",
    phase=PHASE,
)
def no_version_selected(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a version policy that selects no version although version directories exist:
    `latest {}` (zero versions: `num_versions` defaults to 0 once `latest` is written), or
    `specific` naming only versions that are not on disk.

    ## Why it matters
    Triton loads nothing and fails the model: `at least one version must be available under
    the version policy of model 'm'`. Leaving `version_policy` out loads the highest version.

    ## Example
    ```pbtxt
    backend: "python"
    version_policy { latest {} }
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    version_policy { latest { num_versions: 1 } }
    ```
    """
    if not model.dir.versions:
        return  # TC105
    completion = ctx.completion(model)
    policy = completion.config.version_policy
    if not ctx.versions(model).empty:
        return
    if policy.WhichOneof("policy_choice") == "latest":
        message = "`latest` selects 0 versions (num_versions is 0 or not set); set num_versions: 1"
        span = at(model, "version_policy", "latest", "num_versions", value=True)
    else:
        message = (
            "none of the `specific` versions has a directory (on disk: "
            f"{_on_disk(model)}); list existing versions or create their directories"
        )
        span = at(model, "version_policy", "specific", "versions")
    yield Finding(
        f"model '{model.name}' loads no version: {message}",
        span,
        triton_message="at least one version must be available under the version policy of "
        f"model '{completion.name}'",
    )


@model_rule(
    "TC116",
    severity=Severity.WARNING,
    summary="A version listed in `specific` has no version directory.",
    phase=PHASE,
)
def specific_version_missing(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports each version in `version_policy { specific { versions: [...] } }` that has no
    numeric directory in the model.

    ## Why it matters
    Triton skips it with an error line, `version 3 is specified for model 'm', but the version
    directory is not present`, and loads the others, so the version clients ask for is not
    served. (Listed twice, a missing version is even attempted, and fails to load.)

    ## Example
    ```pbtxt
    backend: "python"
    version_policy { specific { versions: [ 1, 3 ] } }
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    version_policy { specific { versions: [ 1 ] } }
    ```
    """
    missing = ctx.versions(model).missing
    if not missing:
        return
    completion = ctx.completion(model)
    on_disk = _on_disk(model) or "none"
    for index, version in missing:
        yield Finding(
            f"version {version} has no directory '{version}/' in model '{model.name}' (version "
            f"directories: {on_disk}); Triton does not load it. Create it or remove the entry",
            at(model, "version_policy", "specific", "versions", index, value=True),
            triton_message=f"version {version} is specified for model '{completion.name}', but "
            "the version directory is not present",
        )
