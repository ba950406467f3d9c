"""TC120-TC127: BACKEND_CREATE and MODEL_INIT: the backend library, Python-based backends, the
model files a backend loads, and a python model's auto_complete_config against its config."""
