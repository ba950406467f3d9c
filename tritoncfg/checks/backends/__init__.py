"""TC120-TC126: BACKEND_CREATE and MODEL_INIT: the backend library, Python-based backends and the
model files a backend loads."""
