"""The sizes of a model's data files (warmup/, initial_state/) as discovery listed them."""

from __future__ import annotations

from tritoncfg.repository import Entry
from tritoncfg.repository.model import find_entry
from tritoncfg.schema import DataType

STRING = DataType.Value("TYPE_STRING")  # a STRING tensor takes its whole file, whatever its size


def data_file_size(entries: tuple[Entry, ...], name: str) -> int | None:
    """Bytes of the file `name` among a data folder's listed `entries`; None for a file in a
    subfolder, one that is not there (another rule's finding), or a size not known."""
    plain = name.lstrip("/")  # Triton's JoinPath keeps a leading "/" inside the folder
    if not plain or "/" in plain:
        return None
    entry = find_entry(entries, plain)
    return None if entry is None else entry.size
