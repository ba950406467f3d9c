"""Regenerate tritoncfg's vendored Triton schema (`make proto`).

Triton's `model_config.proto` reaches us compiled into tritonclient's `model_config_pb2.py`.
This script takes that descriptor, prints it back as proto3 source (`proto/model_config.proto`,
for people to read) and compiles that source with grpcio-tools into
`tritoncfg/schema/model_config_pb2.py` and `.pyi`, so tritoncfg needs only protobuf at run time.

    python tools/gen_proto.py              # rewrite the committed files in this checkout
    python tools/gen_proto.py --root DIR   # write DIR/proto/... and DIR/tritoncfg/schema/...

Running it twice changes nothing. It stops with an error when the installed tritonclient or
grpcio-tools is not the pinned version.
"""

from __future__ import annotations

import argparse
import ast
import functools
import importlib.metadata
import importlib.util
import sys
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from google.protobuf import descriptor_pb2, message

REPO = Path(__file__).resolve().parent.parent
PROTO_FILE = Path("proto/model_config.proto")
SCHEMA_DIR = Path("tritoncfg/schema")
OUTPUTS = (PROTO_FILE, SCHEMA_DIR / "model_config_pb2.py", SCHEMA_DIR / "model_config_pb2.pyi")

# protoc 33.5 writes gencode 6.33.5, which loads under protobuf 6.33+ (tritonclient's range)
# and 7.x; grpcio-tools 1.82+ writes 7.x gencode that protobuf 6 refuses (its gencode checks the runtime version at import).
GRPCIO_TOOLS_VERSION = "1.81.1"
GENCODE_HEADER = "# Protobuf Python Version: 6.33.5"

FDP = descriptor_pb2.FieldDescriptorProto
SCALAR_TYPES = {
    FDP.TYPE_DOUBLE: "double",
    FDP.TYPE_FLOAT: "float",
    FDP.TYPE_INT64: "int64",
    FDP.TYPE_UINT64: "uint64",
    FDP.TYPE_INT32: "int32",
    FDP.TYPE_FIXED64: "fixed64",
    FDP.TYPE_FIXED32: "fixed32",
    FDP.TYPE_BOOL: "bool",
    FDP.TYPE_STRING: "string",
    FDP.TYPE_BYTES: "bytes",
    FDP.TYPE_UINT32: "uint32",
    FDP.TYPE_SFIXED32: "sfixed32",
    FDP.TYPE_SFIXED64: "sfixed64",
    FDP.TYPE_SINT32: "sint32",
    FDP.TYPE_SINT64: "sint64",
}
MESSAGE_RANGE_MAX = 2**29  # exclusive end of a `reserved N to max` range in a message
ENUM_RANGE_MAX = 2**31 - 1  # inclusive end of one in an enum
INDENT = "  "


class GenerationError(Exception):
    """The environment or the descriptor is not what this script can reproduce faithfully."""


# --- pins and inputs ---------------------------------------------------------------------------


def pinned_tritonclient_version() -> str:
    """`TRITONCLIENT_VERSION` from tritoncfg/schema/__init__.py, read without importing it."""
    init = REPO / SCHEMA_DIR / "__init__.py"
    for node in ast.parse(init.read_text(encoding="utf-8")).body:
        if (
            isinstance(node, ast.Assign)
            and any(
                isinstance(t, ast.Name) and t.id == "TRITONCLIENT_VERSION" for t in node.targets
            )
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            return node.value.value
    raise GenerationError(f"{init}: no TRITONCLIENT_VERSION = '...' assignment")


def require_version(dist: str, wanted: str, pinned_in: str) -> None:
    try:
        found = importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        raise GenerationError(
            f"{dist} is not installed; `make proto` needs {dist}=={wanted} "
            "(pip install -e '.[dev]')"
        ) from None
    if found != wanted:
        raise GenerationError(
            f"{dist} {found} is installed but the schema is pinned to {dist}=={wanted}; "
            f"install {dist}=={wanted}, or move the pin in pyproject.toml [dev] and {pinned_in} "
            "together, then run `make proto`"
        )


@functools.cache
def load_tritonclient_descriptor() -> descriptor_pb2.FileDescriptorProto:
    """tritonclient's compiled `model_config.proto`, loaded by file path.

    Importing `tritonclient.grpc.model_config_pb2` would run `tritonclient/grpc/__init__.py`,
    which pulls in grpc and numpy; the pb2 file itself needs only protobuf.
    """
    spec = importlib.util.find_spec("tritonclient")
    if spec is None or not spec.submodule_search_locations:
        raise GenerationError("tritonclient is not installed (pip install -e '.[dev]')")
    path = Path(next(iter(spec.submodule_search_locations))) / "grpc" / "model_config_pb2.py"
    module_spec = importlib.util.spec_from_file_location("_tritoncfg_pinned_model_config_pb2", path)
    if module_spec is None or module_spec.loader is None or not path.is_file():
        raise GenerationError(f"{path}: tritonclient's compiled model config schema is missing")
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    proto = descriptor_pb2.FileDescriptorProto()
    module.DESCRIPTOR.CopyToProto(proto)
    return proto


# --- printer: FileDescriptorProto -> proto3 source --------------------------------------------


def _default_json_name(name: str) -> str:
    """protoc's json_name for a field that does not set one: drop `_`, capitalise what follows."""
    parts = name.split("_")
    return parts[0] + "".join(p[:1].upper() + p[1:] for p in parts[1:])


def _quote(data: bytes) -> str:
    """A proto string literal; anything but printable ASCII is written as octal escapes."""
    plain = set(range(0x20, 0x7F)) - {ord('"'), ord("\\")}
    return '"' + "".join(chr(b) if b in plain else f"\\{b:03o}" for b in data) + '"'


def _option_value(field: object, value: object) -> str:
    enum_type = getattr(field, "enum_type", None)
    if enum_type is not None and isinstance(value, int):
        return str(enum_type.values_by_number[value].name)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return _quote(value.encode("utf-8"))
    if isinstance(value, bytes):
        return _quote(value)
    if isinstance(value, int | float):
        return repr(value)
    raise GenerationError(f"option value {value!r} has a type this printer does not handle")


def _options(options: message.Message, owner: str, skip: frozenset[str] = frozenset()) -> list[str]:
    """`name = value` for each option set; custom (extension) and composite options are refused."""
    items = []
    for field, value in options.ListFields():
        if field.name in skip:
            continue
        if field.is_extension or field.is_repeated or field.message_type is not None:
            raise GenerationError(f"{owner}: option {field.full_name} cannot be printed yet")
        items.append(f"{field.name} = {_option_value(field, value)}")
    return items


def _reserved_ranges(ranges: list[tuple[int, int]], maximum: int) -> list[str]:
    """Inclusive (start, end) pairs as `reserved` items."""
    out = []
    for start, end in ranges:
        if start == end:
            out.append(str(start))
        else:
            out.append(f"{start} to {'max' if end == maximum else end}")
    return out


class _ProtoPrinter:
    def __init__(self, proto: descriptor_pb2.FileDescriptorProto) -> None:
        self.proto = proto
        self.package = proto.package
        # Every name protoc's resolver can hit, so printed type names can be as short as is safe.
        self.symbols: dict[str, str] = {}
        parts = self.package.split(".") if self.package else []
        for i in range(1, len(parts) + 1):
            self.symbols[".".join(parts[:i])] = "package"
        self._collect(self.package, proto.message_type, proto.enum_type)

    def _collect(
        self,
        scope: str,
        messages: Iterable[descriptor_pb2.DescriptorProto],
        enums: Iterable[descriptor_pb2.EnumDescriptorProto],
    ) -> None:
        for enum in enums:
            self.symbols[_join(scope, enum.name)] = "enum"
            for value in enum.value:  # C++ scoping: enum values are siblings of their enum
                self.symbols.setdefault(_join(scope, value.name), "value")
        for msg in messages:
            full = _join(scope, msg.name)
            self.symbols[full] = "message"
            for field in msg.field:
                self.symbols[_join(full, field.name)] = "field"
            for oneof in msg.oneof_decl:
                self.symbols[_join(full, oneof.name)] = "oneof"
            self._collect(full, msg.nested_type, msg.enum_type)

    # protoc's LookupSymbol: the first component is searched from the innermost scope outwards;
    # once it names an aggregate, the rest must resolve inside it or the lookup fails.
    def _resolves_to(self, name: str, scope: str, target: str) -> bool:
        first = name.split(".", 1)[0]
        parts = scope.split(".") if scope else []
        while True:
            prefix = ".".join(parts)
            kind = self.symbols.get(_join(prefix, first))
            if kind is not None:
                if first != name and kind in ("package", "message", "enum"):
                    return _join(prefix, name) == target
                if first == name and kind in ("message", "enum"):
                    return _join(prefix, name) == target
            if not parts:
                return False
            parts.pop()

    def type_ref(self, type_name: str, scope: str) -> str:
        """The shortest spelling of `.pkg.Msg.Sub` that resolves back to it from `scope`."""
        target = type_name.lstrip(".")
        parts = target.split(".")
        for i in range(len(parts) - 1, -1, -1):
            candidate = ".".join(parts[i:])
            if self._resolves_to(candidate, scope, target):
                return candidate
        return "." + target

    def render(self, header: list[str]) -> str:
        proto = self.proto
        if proto.syntax != "proto3":
            raise GenerationError(f"{proto.name}: syntax {proto.syntax!r}; only proto3 is printed")
        if proto.service or proto.extension:
            raise GenerationError(f"{proto.name}: services and extensions are not printed yet")
        lines = [f"// {line}" if line else "//" for line in header]
        lines += ["", 'syntax = "proto3";', ""]
        if proto.package:
            lines += [f"package {proto.package};", ""]
        public = set(proto.public_dependency)
        if proto.weak_dependency:
            raise GenerationError(f"{proto.name}: weak imports are not printed")
        for i, dep in enumerate(proto.dependency):
            lines.append(f'import {"public " if i in public else ""}"{dep}";')
        if proto.dependency:
            lines.append("")
        options = _options(proto.options, proto.name)
        lines += [f"option {item};" for item in options]
        if options:
            lines.append("")
        blocks = [self._enum(e, self.package, 0) for e in proto.enum_type]
        blocks += [self._message(m, self.package, 0) for m in proto.message_type]
        for block in blocks:
            lines += [*block, ""]
        return "\n".join(lines).rstrip("\n") + "\n"

    def _enum(self, enum: descriptor_pb2.EnumDescriptorProto, scope: str, depth: int) -> list[str]:
        pad, inner = INDENT * depth, INDENT * (depth + 1)
        full = _join(scope, enum.name)
        lines = [f"{pad}enum {enum.name} {{"]
        lines += [f"{inner}option {item};" for item in _options(enum.options, full)]
        ranges = [(r.start, r.end) for r in enum.reserved_range]
        lines += self._reserved(ranges, ENUM_RANGE_MAX, enum.reserved_name, inner)
        for value in enum.value:
            opts = _options(value.options, _join(full, value.name))
            suffix = f" [{', '.join(opts)}]" if opts else ""
            lines.append(f"{inner}{value.name} = {value.number}{suffix};")
        lines.append(f"{pad}}}")
        return lines

    @staticmethod
    def _reserved(
        ranges: list[tuple[int, int]], maximum: int, names: Iterable[str], pad: str
    ) -> list[str]:
        lines = []
        if ranges:
            lines.append(f"{pad}reserved {', '.join(_reserved_ranges(ranges, maximum))};")
        if names:
            quoted = ", ".join(f'"{name}"' for name in names)
            lines.append(f"{pad}reserved {quoted};")
        return lines

    def _message(self, msg: descriptor_pb2.DescriptorProto, scope: str, depth: int) -> list[str]:
        pad, inner = INDENT * depth, INDENT * (depth + 1)
        full = _join(scope, msg.name)
        if msg.extension or msg.extension_range:
            raise GenerationError(f"{full}: extensions are not printed yet")
        lines = [f"{pad}message {msg.name} {{"]
        lines += [f"{inner}option {item};" for item in _options(msg.options, full)]
        # Descriptor message ranges are end-exclusive; the source syntax is inclusive.
        ranges = [(r.start, r.end - 1) for r in msg.reserved_range]
        lines += self._reserved(ranges, MESSAGE_RANGE_MAX - 1, msg.reserved_name, inner)
        entries = {_join(full, n.name): n for n in msg.nested_type if n.options.map_entry}
        nested = [self._enum(e, full, depth + 1) for e in msg.enum_type]
        nested += [
            self._message(n, full, depth + 1) for n in msg.nested_type if not n.options.map_entry
        ]
        for block in nested:
            if len(lines) > 1:
                lines.append("")
            lines += block
        fields = list(self._fields(msg, full, entries, depth + 1))
        if fields and len(lines) > 1:
            lines.append("")
        lines += fields
        if len(lines) == 1:
            return [f"{pad}message {msg.name} {{}}"]
        lines.append(f"{pad}}}")
        return lines

    def _fields(
        self,
        msg: descriptor_pb2.DescriptorProto,
        full: str,
        entries: dict[str, descriptor_pb2.DescriptorProto],
        depth: int,
    ) -> Iterator[str]:
        pad = INDENT * depth
        printed_oneofs: set[int] = set()
        for field in msg.field:
            if not field.HasField("oneof_index") or field.proto3_optional:
                yield pad + self._field(field, full, entries)
                continue
            index = field.oneof_index
            if index in printed_oneofs:
                continue
            printed_oneofs.add(index)
            oneof = msg.oneof_decl[index]
            if _options(oneof.options, _join(full, oneof.name)):
                raise GenerationError(f"{full}.{oneof.name}: oneof options are not printed yet")
            yield f"{pad}oneof {oneof.name} {{"
            for member in msg.field:
                if member.HasField("oneof_index") and member.oneof_index == index:
                    yield pad + INDENT + self._field(member, full, entries)
            yield f"{pad}}}"

    def _field(
        self,
        field: descriptor_pb2.FieldDescriptorProto,
        scope: str,
        entries: dict[str, descriptor_pb2.DescriptorProto],
    ) -> str:
        where = _join(scope, field.name)
        if field.label == FDP.LABEL_REQUIRED or field.HasField("default_value"):
            raise GenerationError(f"{where}: required fields and defaults are not proto3")
        entry = entries.get(field.type_name.lstrip("."))
        if entry is not None and field.label == FDP.LABEL_REPEATED:
            key, value = (next(f for f in entry.field if f.number == n) for n in (1, 2))
            entry_scope = _join(scope, entry.name)
            kind = f"map<{self._type(key, entry_scope)}, {self._type(value, entry_scope)}>"
        else:
            label = {FDP.LABEL_REPEATED: "repeated "}.get(field.label, "")
            if field.proto3_optional:
                label = "optional "
            kind = label + self._type(field, scope)
        opts = _options(field.options, where)
        if field.HasField("json_name") and field.json_name != _default_json_name(field.name):
            opts.append(f"json_name = {_quote(field.json_name.encode('utf-8'))}")
        suffix = f" [{', '.join(opts)}]" if opts else ""
        return f"{kind} {field.name} = {field.number}{suffix};"

    def _type(self, field: descriptor_pb2.FieldDescriptorProto, scope: str) -> str:
        if field.type in (FDP.TYPE_MESSAGE, FDP.TYPE_ENUM):
            return self.type_ref(field.type_name, scope)
        if field.type not in SCALAR_TYPES:
            raise GenerationError(f"{_join(scope, field.name)}: field type {field.type} (group?)")
        return SCALAR_TYPES[field.type]


def _join(scope: str, name: str) -> str:
    return f"{scope}.{name}" if scope else name


def render_proto(proto: descriptor_pb2.FileDescriptorProto, tritonclient_version: str) -> str:
    """Readable proto3 source for `proto`, with a do-not-edit header naming its origin."""
    header = [
        "Triton's model configuration schema, printed by `make proto` (tools/gen_proto.py) from the",
        f"descriptor compiled into tritonclient=={tritonclient_version}"
        " (tritonclient/grpc/model_config_pb2.py).",
        "Generated file: do not edit by hand. To change it, move the tritonclient pin and run",
        "`make proto`, which also regenerates tritoncfg/schema/model_config_pb2.py and .pyi.",
    ]
    return _ProtoPrinter(proto).render(header)


# --- compile and write ------------------------------------------------------------------------


def compile_proto(root: Path) -> None:
    """protoc (from grpcio-tools) on root/proto/model_config.proto into root/tritoncfg/schema."""
    require_version("grpcio-tools", GRPCIO_TOOLS_VERSION, "tools/gen_proto.py")
    from grpc_tools import protoc  # type: ignore[import-untyped]  # late: only here is it needed

    out = root / SCHEMA_DIR
    out.mkdir(parents=True, exist_ok=True)
    args = [
        "grpc_tools.protoc",
        f"-I{root / PROTO_FILE.parent}",
        f"--python_out={out}",
        f"--pyi_out={out}",
        str(root / PROTO_FILE),
    ]
    if protoc.main(args) != 0:
        raise GenerationError(f"protoc failed on {root / PROTO_FILE} (its errors are above)")
    pb2 = (out / "model_config_pb2.py").read_text(encoding="utf-8")
    if GENCODE_HEADER not in pb2:
        raise GenerationError(f"protoc wrote unexpected gencode; wanted {GENCODE_HEADER!r}")


def generate(root: Path) -> list[tuple[Path, bool]]:
    """Write the three outputs under `root`; (path, changed) for each."""
    version = pinned_tritonclient_version()
    require_version("tritonclient", version, str(SCHEMA_DIR / "__init__.py"))
    text = render_proto(load_tritonclient_descriptor(), version)
    with tempfile.TemporaryDirectory(prefix="tritoncfg-proto-") as tmp:
        staging = Path(tmp)
        (staging / PROTO_FILE).parent.mkdir(parents=True)
        (staging / PROTO_FILE).write_text(text, encoding="utf-8")
        compile_proto(staging)
        results = []
        for rel in OUTPUTS:
            new = (staging / rel).read_bytes()
            dest = root / rel
            changed = not dest.is_file() or dest.read_bytes() != new
            if changed:
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_bytes(new)
            results.append((dest, changed))
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--root", type=Path, default=REPO, help="where to write (default: repo)")
    args = parser.parse_args(argv)
    try:
        results = generate(args.root.resolve())
    except GenerationError as err:
        print(f"gen_proto: error: {err}", file=sys.stderr)
        return 1
    for path, changed in results:
        shown = path.relative_to(REPO) if path.is_relative_to(REPO) else path
        print(f"{'wrote    ' if changed else 'unchanged'} {shown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
