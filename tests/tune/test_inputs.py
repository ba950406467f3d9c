"""The simulator's inputs: service curves (interpolated, drawn from the measured spread), trace
files (errors at file:line:col), and the settings read off a config."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tritoncfg.batch_rule import Measured
from tritoncfg.text import parse
from tritoncfg.tune.arrivals import poisson, read_trace
from tritoncfg.tune.batcher import (
    DELAY,
    BatcherConfig,
    QueuePolicy,
    SimulationInputError,
    from_model_config,
    with_overrides,
)
from tritoncfg.tune.service import from_measured, parse_service_ms


def test_service_ms_interpolates_between_sizes_and_extends_past_them() -> None:
    curve = parse_service_ms("1:2.0,8:3.1,32:7.9")
    assert curve.mean_us(1) == pytest.approx(2000)
    assert curve.mean_us(8) == pytest.approx(3100)
    assert curve.mean_us(20) == pytest.approx(3100 + (7900 - 3100) * 12 / 24)
    assert curve.mean_us(40) == pytest.approx(7900 + 8 * (7900 - 3100) / 24)  # last slope on


def test_one_measured_size_serves_every_size() -> None:
    curve = parse_service_ms("4:1.5")
    assert curve.mean_us(1) == curve.mean_us(64) == pytest.approx(1500)


@pytest.mark.parametrize("text", ["1:2,x:3", "1:-2", "0:1", "8", ""])
def test_a_bad_service_ms_is_refused_with_the_form_expected(text: str) -> None:
    with pytest.raises(SimulationInputError, match=r"BATCH:MS|no batch size"):
        parse_service_ms(text)


def test_draws_follow_the_measured_percentiles() -> None:
    spread = ((0.5, 1000.0), (0.9, 1400.0), (0.99, 2000.0))
    curve = from_measured([Measured(4, 3000.0, 2000.0, "p99", spread)], "probe.json")
    sample = curve.sampler(8, random.Random(1))
    draws = sorted(sample(4) for _ in range(100_000))
    assert draws[50_000] == pytest.approx(1000, rel=0.02)
    assert draws[90_000] == pytest.approx(1400, rel=0.02)
    assert draws[99_000] == pytest.approx(2000, rel=0.02)
    assert min(draws) >= 600 and max(draws) <= 2600


def test_a_size_without_latency_takes_batch_over_throughput() -> None:
    curve = from_measured([Measured(8, 4000.0, None)], "perf.csv")
    assert curve.mean_us(8) == pytest.approx(2000)


def test_poisson_arrivals_have_the_rate() -> None:
    arrivals = poisson(1000.0, 50_000, random.Random(3))
    assert len(arrivals) / (arrivals.times[-1] / 1e6) == pytest.approx(1000, rel=0.02)


def test_a_trace_reads_times_sizes_priorities_and_timeouts(tmp_path: Path) -> None:
    path = tmp_path / "trace.txt"
    path.write_text("# ms batch priority timeout_us\n5.0 2\n3.5, 1, 2, 800\n\n4 # one row\n")
    arrivals = read_trace(path)
    assert arrivals.times == [0.0, 500.0, 1500.0]
    assert arrivals.sizes == [1, 1, 2]
    assert arrivals.priorities == [2, 0, 0]
    assert arrivals.timeouts == [800, 0, 0]


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("1\n2 x\n", "trace.txt:2:3: BATCH 'x' is not a whole number"),
        ("1\n  -2\n", "trace.txt:2:3: TIME_MS '-2' is out of range"),
        ("1 0\n", "trace.txt:1:3: BATCH must be >= 1"),
        ("1 1 1 1 1\n", "trace.txt:1:9: at most 4 values"),
        ("# nothing\n", "trace.txt: no requests"),
    ],
)
def test_a_bad_trace_is_refused_at_its_line_and_column(
    tmp_path: Path, text: str, where: str
) -> None:
    path = tmp_path / "trace.txt"
    path.write_text(text)
    with pytest.raises(SimulationInputError) as raised:
        read_trace(path)
    assert str(raised.value).startswith(str(tmp_path / where.split(":")[0]))
    assert where in str(raised.value)


CONFIG = """
name: "m"
max_batch_size: 16
instance_group [ { count: 2 kind: KIND_GPU gpus: [ 0, 1 ] }, { count: 1 kind: KIND_CPU } ]
dynamic_batching {
  preferred_batch_size: [ 8, 4, 8 ]
  max_queue_delay_microseconds: 300
  priority_levels: 2
  default_priority_level: 2
  default_queue_policy { max_queue_size: 7 }
  priority_queue_policy { key: 1 value { timeout_action: DELAY default_timeout_microseconds: 9 } }
}
"""


def test_the_settings_are_read_off_the_config() -> None:
    parsed = parse(CONFIG)
    assert parsed.ok, parsed.errors
    config = from_model_config(parsed.message)
    assert config.instances == 5  # 2 on each of 2 GPUs, 1 on the CPU
    assert config.preferred == (4, 8) and config.delay_us == 300
    assert config.policy_of(2) == QueuePolicy(max_queue_size=7)
    assert config.policy_of(1) == QueuePolicy(DELAY, 9)
    assert not config.prefetching


def test_no_preferred_size_means_max_batch_size_and_none_without_batching() -> None:
    assert BatcherConfig(16).preferred_sizes == {16}
    assert BatcherConfig(0).preferred_sizes == frozenset()
    plain = from_model_config(parse('name: "m"\nmax_batch_size: 4\n').message)
    assert not plain.dynamic and plain.instances == 1


def test_overrides_are_checked_as_triton_validates_them() -> None:
    base = BatcherConfig(8, dynamic=False)
    assert with_overrides(base, preferred=(4,)).dynamic
    with pytest.raises(SimulationInputError, match="<= max_batch_size 8"):
        with_overrides(base, preferred=(16,))
    with pytest.raises(SimulationInputError, match="instance count"):
        with_overrides(base, instances=0)
