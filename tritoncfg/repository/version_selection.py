"""Which versions Triton loads under a version policy, as `model_lifecycle.cc:VersionsToLoad`.

Runs on the completed config (normalization already turned an absent policy into
`latest { num_versions: 1 }`) and the version numbers discovery found on disk (versions.py).
"""

from __future__ import annotations

from collections.abc import Iterable

from tritoncfg.record import record
from tritoncfg.schema import ModelVersionPolicy


@record(frozen=True)
class VersionSelection:
    """The versions Triton loads, and the `specific` entries it logs as missing."""

    selected: tuple[int, ...]  # ascending
    missing: tuple[tuple[int, int], ...]  # (index in `specific.versions`, version) not on disk

    @property
    def empty(self) -> bool:
        return not self.selected


def select_versions(policy: ModelVersionPolicy, available: Iterable[int]) -> VersionSelection:
    """Apply `policy` to the version numbers on disk, as `model_lifecycle.cc:VersionsToLoad` does."""
    existing = set(available)
    choice = policy.WhichOneof("policy_choice")
    if choice == "specific":
        selected: set[int] = set()
        missing: list[tuple[int, int]] = []
        for index, version in enumerate(policy.specific.versions):
            # Triton inserts into the existing set to test membership, so a missing version listed
            # twice is reported once and then "selected" (its load fails later).
            if version in existing:
                selected.add(version)
            else:
                existing.add(version)
                missing.append((index, version))
        return VersionSelection(tuple(sorted(selected)), tuple(missing))
    if choice == "latest":
        highest = sorted(existing, reverse=True)[: policy.latest.num_versions]
        return VersionSelection(tuple(sorted(highest)), ())
    return VersionSelection(tuple(sorted(existing)), ())  # `all {}` or an empty `version_policy {}`


__all__ = ["VersionSelection", "select_versions"]
