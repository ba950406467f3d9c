"""The vendored schema: same as tritonclient's, up to date with `make proto`, cheap to import."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from google.protobuf import descriptor_pb2, text_format

import tritoncfg.schema
from tritoncfg.schema import DataType, ModelConfig, ModelInstanceGroup, model_config_pb2
from tritoncfg.schema.lookup import enum_value_names, field_names, suggest

REPO = Path(__file__).resolve().parents[2]
GEN_PROTO = REPO / "tools" / "gen_proto.py"
FDP = descriptor_pb2.FieldDescriptorProto
STALE = "the committed schema is stale: run `make proto`"


def _gen_proto() -> ModuleType:
    spec = importlib.util.spec_from_file_location("_gen_proto", GEN_PROTO)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _pinned_descriptor() -> descriptor_pb2.FileDescriptorProto:
    """tritonclient's descriptor, loaded in a child process: both copies are named
    model_config.proto, and protobuf's default pool refuses a second, different one."""
    pytest.importorskip("tritonclient")
    code = (
        "import importlib.util, sys; "
        f"spec = importlib.util.spec_from_file_location('g', {str(GEN_PROTO)!r}); "
        "g = importlib.util.module_from_spec(spec); spec.loader.exec_module(g); "
        "sys.stdout.buffer.write(g.load_tritonclient_descriptor().SerializeToString())"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, check=False)
    assert run.returncode == 0, run.stderr.decode()
    return descriptor_pb2.FileDescriptorProto.FromString(run.stdout)


def _elements(proto: descriptor_pb2.FileDescriptorProto) -> dict[str, tuple[object, ...]]:
    """Every message, field and enum value, keyed by a readable name, with what defines it."""
    out: dict[str, tuple[object, ...]] = {}

    def enums(scope: str, items: list[descriptor_pb2.EnumDescriptorProto]) -> None:
        for enum in items:
            out[f"enum {scope}.{enum.name}"] = ()
            for value in enum.value:
                out[f"enum value {scope}.{enum.name}.{value.name}"] = (value.number,)

    def messages(scope: str, items: list[descriptor_pb2.DescriptorProto]) -> None:
        for msg in items:
            full = f"{scope}.{msg.name}"
            out[f"message {full}"] = (msg.options.map_entry,)
            for field in msg.field:
                oneof = (
                    msg.oneof_decl[field.oneof_index].name
                    if field.HasField("oneof_index")
                    else None
                )
                out[f"field {full}.{field.name}"] = (
                    f"number={field.number}",
                    f"type={FDP.Type.Name(field.type)}",
                    f"label={FDP.Label.Name(field.label)}",
                    f"type_name={field.type_name}",
                    f"oneof={oneof}",
                    f"proto3_optional={field.proto3_optional}",
                )
            enums(full, list(msg.enum_type))
            messages(full, list(msg.nested_type))

    enums(proto.package, list(proto.enum_type))
    messages(proto.package, list(proto.message_type))
    return out


def test_committed_schema_matches_tritonclient_descriptor() -> None:
    pinned = _elements(_pinned_descriptor())
    ours_proto = descriptor_pb2.FileDescriptorProto()
    model_config_pb2.DESCRIPTOR.CopyToProto(ours_proto)
    ours = _elements(ours_proto)
    problems = [f"missing {key}" for key in pinned.keys() - ours.keys()]
    problems += [f"unexpected {key}" for key in ours.keys() - pinned.keys()]
    problems += [
        f"{key}: ours {ours[key]} vs tritonclient {pinned[key]}"
        for key in pinned.keys() & ours.keys()
        if ours[key] != pinned[key]
    ]
    assert not problems, f"{STALE}\n" + "\n".join(sorted(problems))
    # The walk reaches nested types and map entries.
    assert (
        "field inference.ModelOptimizationPolicy.Cuda.GraphSpec.LowerBound.InputEntry.value"
        in pinned
    )


def test_committed_files_are_what_make_proto_writes(tmp_path: Path) -> None:
    pytest.importorskip("tritonclient")
    pytest.importorskip("grpc_tools")
    run = subprocess.run(
        [sys.executable, str(GEN_PROTO), "--root", str(tmp_path)], capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    for rel in (
        "proto/model_config.proto",
        "tritoncfg/schema/model_config_pb2.py",
        "tritoncfg/schema/model_config_pb2.pyi",
    ):
        fresh = (tmp_path / rel).read_text(encoding="utf-8")
        committed = (REPO / rel).read_text(encoding="utf-8")
        assert fresh == committed, f"{rel} differs from what tools/gen_proto.py prints: {STALE}"


def test_printed_proto_uses_map_oneof_and_header() -> None:
    text = (REPO / "proto" / "model_config.proto").read_text(encoding="utf-8")
    assert f"tritonclient=={tritoncfg.schema.TRITONCLIENT_VERSION}" in text.split("syntax")[0]
    assert "do not edit by hand" in text
    assert "map<string, ModelParameter> parameters = 14;" in text
    assert "oneof scheduling_choice {" in text
    assert "Entry" not in text  # map entries print as map<K, V>, not as nested messages


def test_pins_agree_with_pyproject() -> None:
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert f'"tritonclient=={tritoncfg.schema.TRITONCLIENT_VERSION}"' in pyproject
    assert f'"grpcio-tools=={_gen_proto().GRPCIO_TOOLS_VERSION}"' in pyproject


def test_every_top_level_type_is_exported() -> None:
    top = [
        *model_config_pb2.DESCRIPTOR.message_types_by_name,
        *model_config_pb2.DESCRIPTOR.enum_types_by_name,
    ]
    missing = [name for name in top if name not in tritoncfg.schema.__all__]
    assert not missing, f"add to tritoncfg/schema/__init__.py: {missing}"


def test_import_loads_neither_tritonclient_grpc_nor_numpy() -> None:
    code = (
        "import sys, tritoncfg.schema, tritoncfg.schema.lookup; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'tritonclient', 'grpc', 'numpy'}))"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"


def test_coexists_with_tritonclient_in_one_process() -> None:
    # Both register model_config.proto in protobuf's default pool; that works only while the
    # two serialized descriptors are byte-identical (the probe imports tritonclient.grpc).
    # Not importorskip: importing tritonclient.grpc here would load the second copy in-process.
    if not all(importlib.util.find_spec(name) for name in ("tritonclient", "grpc", "numpy")):
        pytest.skip("needs tritonclient[grpc]")
    code = (
        "import tritoncfg.schema as s, tritonclient.grpc.model_config_pb2 as t; "
        "assert s.model_config_pb2.DESCRIPTOR.serialized_pb == t.DESCRIPTOR.serialized_pb"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert run.returncode == 0, f"{STALE}\n{run.stderr}"


def test_generated_code_is_gencode_6_33_5() -> None:
    # 6.33.5 gencode loads under protobuf 6.33+ and 7.x (see tools/gen_proto.py).
    source = Path(model_config_pb2.__file__).read_text(encoding="utf-8")
    assert "# Protobuf Python Version: 6.33.5\n" in source
    assert re.search(r"ValidateProtobufRuntimeVersion\(\s*\S+,\s*6,\s*33,\s*5,", source)


def test_text_format_parses_into_model_config() -> None:
    config = text_format.Parse(
        """
        name: "resnet"
        platform: "onnxruntime_onnx"
        max_batch_size: 8
        input [ { name: "x" data_type: TYPE_FP32 dims: [ 3, 224, 224 ] } ]
        instance_group [ { kind: KIND_GPU count: 2 } ]
        dynamic_batching { preferred_batch_size: [ 4, 8 ] }
        parameters { key: "k" value: { string_value: "v" } }
        """,
        ModelConfig(),
    )
    assert config.max_batch_size == 8
    assert config.input[0].data_type == DataType.TYPE_FP32
    assert list(config.input[0].dims) == [3, 224, 224]
    assert config.instance_group[0].kind == ModelInstanceGroup.KIND_GPU
    assert config.WhichOneof("scheduling_choice") == "dynamic_batching"
    assert config.parameters["k"].string_value == "v"


def test_field_and_enum_value_names() -> None:
    assert field_names(model_config_pb2.ModelInput.DESCRIPTOR)[:4] == [
        "name",
        "data_type",
        "format",
        "dims",
    ]
    assert enum_value_names(ModelInstanceGroup.Kind.DESCRIPTOR) == [
        "KIND_AUTO",
        "KIND_GPU",
        "KIND_CPU",
        "KIND_MODEL",
    ]


DATA_TYPES = enum_value_names(DataType.DESCRIPTOR)


@pytest.mark.parametrize(
    ("name", "candidates", "enum_type", "expected"),
    [
        ("max_batch_sise", field_names(ModelConfig.DESCRIPTOR), None, "max_batch_size"),
        ("Max_Batch_Size", field_names(ModelConfig.DESCRIPTOR), None, "max_batch_size"),
        ("KIND_GPUS", enum_value_names(ModelInstanceGroup.Kind.DESCRIPTOR), None, "KIND_GPU"),
        ("kind_cpu", enum_value_names(ModelInstanceGroup.Kind.DESCRIPTOR), None, "KIND_CPU"),
        ("TYPE_FLOAT32", DATA_TYPES, "inference.DataType", "TYPE_FP32"),
        ("float16", DATA_TYPES, "inference.DataType", "TYPE_FP16"),
        ("TYPE_HALF", DATA_TYPES, "inference.DataType", "TYPE_FP16"),
        ("BYTES", DATA_TYPES, "inference.DataType", "TYPE_STRING"),
        ("TYPE_BFLOAT16", DATA_TYPES, "inference.DataType", "TYPE_BF16"),
        ("FP32", DATA_TYPES, "inference.DataType", "TYPE_FP32"),
        ("TYPE_FP23", DATA_TYPES, "inference.DataType", "TYPE_FP32"),
        ("LONG", DATA_TYPES, "inference.DataType", "TYPE_INT64"),
        ("LONG", DATA_TYPES, None, None),  # aliases apply only to inference.DataType
        ("completely_unrelated", field_names(ModelConfig.DESCRIPTOR), None, None),
        ("anything", [], None, None),
    ],
)
def test_suggest(
    name: str, candidates: list[str], enum_type: str | None, expected: str | None
) -> None:
    assert suggest(name, candidates, enum_type=enum_type) == expected


TRICKY_PROTO = """
syntax = "proto3";
package demo.v1;
import "google/protobuf/duration.proto";
option java_package = "org.example.demo";
option optimize_for = LITE_RUNTIME;
enum Color {
  option allow_alias = true;
  RED = 0;
  CRIMSON = 0;
  BLUE = 1 [deprecated = true];
  reserved 5, 7 to 9, 100 to max;
  reserved "GREEN";
}
message Outer {
  option deprecated = true;
  message Inner {
    enum Color { INNER_RED = 0; }
    Color own = 1;
    demo.v1.Color top = 2;
    map<int32, Inner> children = 3;
  }
  reserved 4, 6 to 8, 1000 to max;
  reserved "old";
  repeated int32 packed_ints = 1 [packed = false];
  optional string maybe = 2;
  oneof choice {
    Inner inner = 3;
    bytes raw = 5 [deprecated = true];
  }
  map<string, Inner.Color> colors = 9;
  google.protobuf.Duration timeout = 10;
  string renamed = 11 [json_name = "other"];
}
message Empty {}
"""


def test_printer_round_trips_a_tricky_proto(tmp_path: Path) -> None:
    """What the printer writes compiles back to the same descriptor (options, reserved,
    aliases, proto3 optional, oneofs, maps, imports, names that need qualifying)."""
    pytest.importorskip("grpc_tools")
    from grpc_tools import protoc  # type: ignore[import-untyped]

    include = str(Path(protoc.__file__).parent / "_proto")

    def compile_(source: str, name: str) -> descriptor_pb2.FileDescriptorProto:
        (tmp_path / name).write_text(source, encoding="utf-8")
        out = tmp_path / f"{name}.pb"
        args = ["protoc", f"-I{tmp_path}", f"-I{include}", f"-o{out}", str(tmp_path / name)]
        assert protoc.main(args) == 0, f"protoc rejected {name}:\n{source}"
        return descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes()).file[0]

    original = compile_(TRICKY_PROTO, "tricky.proto")
    printed = _gen_proto().render_proto(original, "0.0")
    again = compile_(printed, "tricky.proto")
    assert again == original, printed
