"""Test support: a real TensorRT engine, where TensorRT and a GPU are (tests skip elsewhere)."""

from __future__ import annotations

from pathlib import Path


def why_not() -> str | None:
    """Why a real engine cannot be built or read here; None when it can."""
    try:
        import tensorrt  # noqa: F401
    except Exception as error:
        return f"tensorrt is not importable here ({error})"
    from tritoncfg.models.tensorrt import _gpu_problem

    return _gpu_problem()


def build_engine(path: Path) -> Path:  # pragma: no cover - needs TensorRT and a GPU
    """`y = Relu(x)`, x [N, 16] FP32, one profile N in 1..8 (opt 4), serialized to `path`."""
    import tensorrt as trt
    from models.onnxkit import make_runnable

    onnx_path = make_runnable(
        path.with_suffix(".onnx"), input_shape=["N", 16], output_shape=["N", 16]
    )
    logger = trt.Logger(trt.Logger.WARNING)
    builder = trt.Builder(logger)
    network = builder.create_network(0)
    parser = trt.OnnxParser(network, logger)
    assert parser.parse_from_file(str(onnx_path))
    config = builder.create_builder_config()
    profile = builder.create_optimization_profile()
    profile.set_shape("x", (1, 16), (4, 16), (8, 16))
    config.add_optimization_profile(profile)
    path.write_bytes(bytes(builder.build_serialized_network(network, config)))
    return path
