"""TC701-TC751: INSTANCE and MODEL_INIT: model warmup, response cache, metrics, rate limiter and the
parameters core reads."""
