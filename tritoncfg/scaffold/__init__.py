"""`tritoncfg new`: scaffold a model repository project from the shipped templates.

`spec` parses and checks what the user asks for (names, tensors), `models` builds each model's
files (configs as `inference.ModelConfig`, printed as `fmt` prints), `deploy` the server flags
and manifests, `project` the repository's own files, and `plan` checks every target before it
writes anything, then writes atomically.
"""

from __future__ import annotations

from tritoncfg.scaffold.spec import ScaffoldError, TensorSpec, parse_tensor, validate_name

__all__ = ["ScaffoldError", "TensorSpec", "parse_tensor", "validate_name"]
