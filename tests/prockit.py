"""Test support: the live processes, read from /proc (which processes a command left behind)."""

from __future__ import annotations

from pathlib import Path

from tritoncfg.record import record


@record(frozen=True)
class Proc:
    pid: int
    parent: int
    group: int
    state: str  # T: stopped, Z: a zombie (exited, not reaped yet)


def processes() -> dict[int, Proc]:
    found = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            pid = int(stat.parent.name)
            found[pid] = Proc(pid, int(fields[1]), int(fields[2]), fields[0])
        except (OSError, IndexError, ValueError):
            continue
    return found


def descendants(pid: int) -> dict[int, Proc]:
    """The processes under `pid`, at any depth."""
    every = processes()
    found: dict[int, Proc] = {}
    todo = [pid]
    while todo:
        current = todo.pop()
        for proc in every.values():
            if proc.parent == current and proc.pid not in found:
                found[proc.pid] = proc
                todo.append(proc.pid)
    return found


def running(pid: int) -> bool:
    """Whether `pid` exists and is not a zombie."""
    proc = processes().get(pid)
    return proc is not None and proc.state != "Z"


def group(pgid: int) -> list[int]:
    """The live processes of a process group."""
    return [p.pid for p in processes().values() if p.group == pgid and p.state != "Z"]


def command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def catches(pid: int, sig: int) -> bool:
    """Whether `pid` has a handler for `sig` (its SigCgt mask in /proc/PID/status)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    mask = next(line.split()[1] for line in status.splitlines() if line.startswith("SigCgt:"))
    return bool(int(mask, 16) >> (sig - 1) & 1)
