"""TC801-TC874: the ONNX Runtime, TensorRT and OpenVINO backends' checks of the config against the
model file."""
