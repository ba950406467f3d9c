"""TC001-TC012: PARSE. Whether Triton can read config.pbtxt, and whether the target release knows
each field."""
