"""tritoncfg: read, check, format and prove Triton Inference Server model repositories."""

from __future__ import annotations

__version__ = "0.1.0"
