"""Regenerate `tritoncfg/schema/releases.json`: which Triton release first knows each field and
enum value of `model_config.proto` (for `tritoncfg lint --triton-version`).

Triton's schema lives in triton-inference-server/common (`protobuf/model_config.proto`), with a
release branch `rYY.MM` per NGC container release. This script reads the file from every such
branch of a local clone, compiles each with grpcio-tools into descriptors, and records for every
field (`Message.field`, nested messages dotted: `ModelSequenceBatching.State.use_growable_memory`)
and enum value (`DataType.TYPE_BF16`) the first release that has it. Only what is newer than the
oldest release read is kept; the table is compact data, not code.

    git clone https://github.com/triton-inference-server/common
    python tools/gen_release_fields.py --git-dir common/.git

Container release YY.MM is Triton 2.N: 20.10-20.12 are 2.4-2.6 and, from 21.02 (there is no
21.01), N = 7 + 12 * (YY - 21) + (MM - 2), e.g. 24.10 = 2.51 (Triton's release notes).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from google.protobuf import descriptor_pb2

REPO = Path(__file__).resolve().parent.parent
OUTPUT = REPO / "tritoncfg" / "schema" / "releases.json"
PROTO = "protobuf/model_config.proto"
BRANCH = re.compile(r"^r(\d\d)\.(\d\d)$")


def triton_version(year: int, month: int) -> str:
    """The Triton version of container release YY.MM."""
    if year == 20:
        return f"2.{month - 6}"  # 20.10 = 2.4
    return f"2.{7 + 12 * (year - 21) + (month - 2)}"


def _git(git_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", f"--git-dir={git_dir}", *args], capture_output=True, text=True, check=False
    )


def release_branches(git_dir: Path) -> list[tuple[int, int, str]]:
    refs = _git(git_dir, "for-each-ref", "--format=%(refname:short)", "refs/heads", "refs/remotes")
    found = set()
    for ref in refs.stdout.split():
        match = BRANCH.match(ref.rsplit("/", 1)[-1])
        if match:
            found.add((int(match[1]), int(match[2]), ref))
    return sorted(found)


def compile_names(source: str) -> set[str]:
    """Every `Message.field` and `Enum.VALUE` of a model_config.proto, package prefix dropped."""
    from grpc_tools import protoc

    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "model_config.proto").write_text(source)
        out = Path(tmp) / "set.pb"
        status = protoc.main(
            ["protoc", f"-I{tmp}", f"--descriptor_set_out={out}", "model_config.proto"]
        )
        if status != 0:
            raise RuntimeError("protoc failed")
        files = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())
    names: set[str] = set()
    for file in files.file:
        for enum in file.enum_type:
            names.update(f"{enum.name}.{value.name}" for value in enum.value)
        for message in file.message_type:
            _message_names(message, message.name, names)
    return names


def _message_names(message: descriptor_pb2.DescriptorProto, prefix: str, names: set[str]) -> None:
    names.update(f"{prefix}.{field.name}" for field in message.field)
    for enum in message.enum_type:
        names.update(f"{prefix}.{enum.name}.{value.name}" for value in enum.value)
    for nested in message.nested_type:
        if not nested.options.map_entry:
            _message_names(nested, f"{prefix}.{nested.name}", names)


def build_table(git_dir: Path) -> dict[str, object]:
    releases: dict[str, str] = {}
    first: dict[str, str] = {}
    for year, month, ref in release_branches(git_dir):
        shown = _git(git_dir, "show", f"{ref}:{PROTO}")
        if shown.returncode != 0:
            continue  # before the schema moved to common (2021-04)
        release = f"{year:02d}.{month:02d}"
        releases[release] = triton_version(year, month)
        for name in compile_names(shown.stdout):
            first.setdefault(name, release)
    oldest = next(iter(releases))
    newer = {name: release for name, release in sorted(first.items()) if release != oldest}
    return {
        "source": f"triton-inference-server/common {PROTO}, release branches rYY.MM",
        "releases": releases,
        "first_release": newer,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--git-dir", type=Path, required=True, help="a clone of triton common")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    args = parser.parse_args(argv)
    table = build_table(args.git_dir)
    args.output.write_text(json.dumps(table, indent=1) + "\n")
    print(f"wrote {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
