"""Generate the example repository's model file: classifier/1/model.onnx.

The file is built here rather than committed so the repository holds no binaries. The model is
a linear classifier, probabilities = softmax(features @ weights + bias), with fixed seeded weights,
so every run writes the same bytes. Running it again when the file is current changes nothing.

    python examples/make_models.py [--repository examples/model_repository]
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import onnx

DEFAULT_REPOSITORY = Path(__file__).resolve().parent / "model_repository"
FEATURES = 16
CLASSES = 4
OPSET = 17
IR_VERSION = 9  # Pinned low so ONNX Runtime builds in older Triton containers load it too.
SEED = 20240517


def build_classifier() -> onnx.ModelProto:
    """The classifier graph: [batch, 16] float -> MatMul -> Add -> Softmax -> [batch, 4]."""
    import onnx
    from onnx import TensorProto, helper

    rng = random.Random(SEED)
    weights = [round(rng.uniform(-1.0, 1.0), 4) for _ in range(FEATURES * CLASSES)]
    bias = [round(rng.uniform(-0.1, 0.1), 4) for _ in range(CLASSES)]
    graph = helper.make_graph(
        nodes=[
            helper.make_node("MatMul", ["features", "weights"], ["logits_unbiased"]),
            helper.make_node("Add", ["logits_unbiased", "bias"], ["logits"]),
            helper.make_node("Softmax", ["logits"], ["probabilities"], axis=-1),
        ],
        name="classifier",
        # The first dimension is symbolic so Triton can batch requests (max_batch_size > 0).
        inputs=[helper.make_tensor_value_info("features", TensorProto.FLOAT, ["batch", FEATURES])],
        outputs=[
            helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, ["batch", CLASSES])
        ],
        initializer=[
            helper.make_tensor("weights", TensorProto.FLOAT, [FEATURES, CLASSES], weights),
            helper.make_tensor("bias", TensorProto.FLOAT, [CLASSES], bias),
        ],
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", OPSET)],
        ir_version=IR_VERSION,
        producer_name="tritoncfg-examples",
        doc_string="Linear classifier for the tritoncfg example repository.",
    )
    onnx.checker.check_model(model, full_check=True)
    return model


def write_if_changed(path: Path, data: bytes) -> bool:
    """Write data to path unless it already holds exactly that; True if it wrote."""
    if path.is_file() and path.read_bytes() == data:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_bytes(data)
    partial.replace(path)
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--repository",
        type=Path,
        default=DEFAULT_REPOSITORY,
        help="model repository to write into (default: %(default)s)",
    )
    args = parser.parse_args(argv)
    try:
        model = build_classifier()
    except ImportError:
        print("make_models.py needs onnx: pip install 'tritoncfg[onnx]'", file=sys.stderr)
        return 2
    target: Path = args.repository / "classifier" / "1" / "model.onnx"
    data = model.SerializeToString()
    if write_if_changed(target, data):
        print(f"wrote {target} ({len(data)} bytes)")
    else:
        print(f"{target} is up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
