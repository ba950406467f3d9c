"""TC201-TC207: VALIDATE: max_batch_size and dynamic batching."""
