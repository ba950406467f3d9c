"""TC301-TC341: VALIDATE_IO and MODEL_INIT: inputs and outputs, batch inputs/outputs, label files,
and the checks the PyTorch and DALI backends make of them."""
