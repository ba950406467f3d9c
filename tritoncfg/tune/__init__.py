"""A simulator of Triton's dynamic batcher and instance scheduler, and the search `tritoncfg tune`
runs with it (docs/tune.md).

- batcher.py: what the simulator reads off a config (`dynamic_batching`, instance count, queue
  policies), with the overrides `simulate` takes;
- service.py: service time per batch size, from a measured curve;
- arrivals.py: the requests (Poisson, constant rate, or a trace file);
- engine.py: the event loop (Triton core's `dynamic_batch_scheduler.cc` and the rate limiter's
  payload queue); forming.py: how one batch is formed (`GetDynamicBatch`);
- summary.py: throughput, latency percentiles, batch sizes, utilisation;
- search.py: the configurations `tune` tries, ranked against a p99 objective;
- advice.py: that search's pick for a latency budget, which `probe --suggest` and `gen
  dynamic-batching --from-perf` make too.

Pure Python, no server and no heavy import: `gen` and `probe` may use it.
"""
