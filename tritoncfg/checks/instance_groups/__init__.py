"""TC401-TC408: BACKEND_CREATE: instance groups."""
