"""How fast the batcher simulator runs: simulated requests per second of CPU time, one core.

Each case serves 200,000 Poisson requests (service curve 1:2.0,8:3.1,32:7.9 ms) and prints its
rate; `tritoncfg tune` runs one such simulation per configuration it tries. The time is the
process's CPU time, so other work on a shared machine does not count. On the shared 2-core
development machine (Python 3.11) the cases ran at about 400,000 (preferred [8, 16] with a
500 µs delay on 2 instances, the slowest: the most hand-overs per request) to
1,000,000 (no batching) simulated requests per second. Timings are only reported, never asserted.

    python bench/simulate_bench.py [--requests 200000]
"""

from __future__ import annotations

import argparse
import random
import time

from tritoncfg.tune.arrivals import poisson
from tritoncfg.tune.batcher import BatcherConfig
from tritoncfg.tune.engine import simulate
from tritoncfg.tune.service import parse_service_ms

CASES = {
    "no dynamic_batching, 1 instance, load 0.8": (BatcherConfig(0, dynamic=False), 400.0),
    "dynamic_batching {}, max 32, 1 instance": (BatcherConfig(32), 4000.0),
    "preferred [8, 16], delay 500 us, 2 instances": (
        BatcherConfig(32, instances=2, preferred=(8, 16), delay_us=500),
        4000.0,
    ),
    "delay 1,000 us, 2 instances": (BatcherConfig(32, instances=2, delay_us=1000), 4000.0),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200_000)
    args = parser.parse_args()
    curve = parse_service_ms("1:2.0,8:3.1,32:7.9")
    for name, (config, rate) in CASES.items():
        arrivals = poisson(rate, args.requests, random.Random(1))
        start = time.process_time()
        simulate(config, curve, arrivals, seed=1)
        elapsed = time.process_time() - start
        print(f"{name:<48} {args.requests / elapsed:>12,.0f} requests/s")


if __name__ == "__main__":
    main()
