"""TensorRT for probe: the adapter over `tensorrt` / `tensorrt_rtx`, profile derivation, the
build, engine checks and GPU execution. Imported only by the TensorRT runner."""
