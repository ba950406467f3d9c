"""The sizes of a model's data files (warmup/, initial_state/) as discovery listed them."""

from __future__ import annotations

from tritoncfg.schema import DataType
from tritoncfg.workspace import LoadedModel

STRING = DataType.Value("TYPE_STRING")  # a STRING tensor takes its whole file, whatever its size


def data_file_size(model: LoadedModel, folder: str, name: str) -> int | None:
    """Bytes of `<model>/<folder>/<name>`; None for a file in a subfolder, one that is not there
    (another rule's finding), or a size not known."""
    plain = name.lstrip("/")  # Triton's JoinPath keeps a leading "/" inside the folder
    if not plain or "/" in plain:
        return None
    return model.dir.file_sizes.get(f"{folder}/{plain}")
