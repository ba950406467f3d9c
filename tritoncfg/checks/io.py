"""Rules of this family (see docs/architecture.md for the code ranges)."""

from __future__ import annotations
