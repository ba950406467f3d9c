"""`tritoncfg probe`: run a model at every shape and batch size its config declares.

Heavy libraries (numpy, onnxruntime, tensorrt, cuda-python) are imported inside the runners only;
nothing here is imported by `lint`. The pieces: `contract` (the data every part shares and the
runner interface), the shape plan, the runners, output comparison and the report.
"""
