"""TC501-TC537: VALIDATE, DEPS and XMODEL: ensemble scheduling, its data flow, its step models."""
