"""`tritoncfg new`: scaffold a model repository project from the shipped templates.

`spec` parses and checks what the user asks for (names, tensors); `models` builds each model's
files from a template (configs as `inference.ModelConfig`, printed as `fmt` prints) and
`from_model` around a model file (config by `tritoncfg.complete`); `server` makes the server
flags, `deploy` the manifests (`kserve`, `kubernetes`, written by `yamltext`); `resources`
reads the shipped templates; `project` turns one request into a `plan`, which checks every
target before it writes anything, then writes atomically.
"""

from __future__ import annotations

from tritoncfg.scaffold.spec import ScaffoldError, TensorSpec, parse_tensor, validate_name

__all__ = ["ScaffoldError", "TensorSpec", "parse_tensor", "validate_name"]
