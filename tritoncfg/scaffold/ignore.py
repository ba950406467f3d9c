"""What the scaffold keeps out of git: model files, in the version folders only.

Triton loads a model's files from its version folders (`<model>/<version>/`); the other files a
config refers to sit beside them in the model folder (`warmup/` data files, `initial_state/`
data files, label files) and must be committed, or a clone fails to load (TC705). So the
`.gitignore` patterns are anchored to the version folders, and the README names the same list.
"""

from __future__ import annotations

MODEL_FILES = (
    "*.onnx",
    "*.onnx.data",
    "*.plan",
    "*.engine",
    "*.pt",
    "*.pt2",
    "*.pth",
    "*.savedmodel/",
    "*.graphdef",
    "*.bin",
    "*.safetensors",
)


def gitignore_lines(repository: str) -> str:
    """One line per model file pattern, inside `repository/<model>/<version>/` at any depth
    (`[0-9]*`: a version folder's name is a number)."""
    return "\n".join(f"/{repository}/*/[0-9]*/**/{pattern}" for pattern in MODEL_FILES)


def readme_list() -> str:
    return ", ".join(f"`{pattern}`" for pattern in MODEL_FILES)


__all__ = ["MODEL_FILES", "gitignore_lines", "readme_list"]
