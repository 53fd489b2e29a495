"""Steady-state stopping: Student's t against printed tables, the batch-means
rule on known series, and the scenario key's errors."""

from __future__ import annotations

import math
import random
from pathlib import Path
from statistics import stdev

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fcsim.stats.steady import (
    Settled,
    SteadyState,
    central_t,
    cycle_length,
    mser_truncation,
    t_quantile,
)
from tests.unit.test_scenario_loader import error_of, write

# Two-sided quantiles t such that P(|T| <= t) = confidence (NIST/SEMATECH
# e-Handbook of Statistical Methods, table 1.3.6.7.2, upper critical values).
TABLE = [(0.90, 1, 6.314), (0.95, 1, 12.706), (0.95, 2, 4.303), (0.99, 2, 9.925),
         (0.95, 9, 2.262), (0.99, 9, 3.250), (0.99, 19, 2.861), (0.95, 30, 2.042),
         (0.99, 100, 2.626)]


@pytest.mark.parametrize(("confidence", "df", "printed"), TABLE)
def test_t_quantile_matches_the_table(confidence: float, df: int, printed: float) -> None:
    assert t_quantile(confidence, df) == pytest.approx(printed, abs=5e-4)


@given(st.floats(0.01, 50.0), st.integers(1, 200))
def test_quantile_inverts_the_distribution(t: float, df: int) -> None:
    p = central_t(t, df)
    assert 0 < p <= 1
    if p < 0.9999:  # beyond, the distribution is too flat to invert in floating point
        assert t_quantile(p, df) == pytest.approx(t, rel=1e-6)


@given(st.floats(0.0, 20.0), st.floats(0.0, 20.0), st.integers(1, 60))
def test_distribution_grows_with_t(a: float, b: float, df: int) -> None:
    low, high = sorted((a, b))
    assert central_t(low, df) <= central_t(high, df) + 1e-15


def test_large_df_approaches_the_normal() -> None:
    assert t_quantile(0.95, 10_000) == pytest.approx(1.95996, abs=1e-3)


def test_rule_waits_for_enough_batches_and_leaves_the_first_out() -> None:
    rule = SteadyState(confidence=0.99, precision=0.01, batch=0.5, batches=4)
    assert rule.settled([0, 10, 10, 10]) is None  # three counted batches only
    assert rule.settled([0, 10, 10, 10, 10]) == Settled(20.0, 0.0, 1, 1)  # the 0 left out


def test_rule_settles_when_the_interval_is_narrow_enough() -> None:
    rule = SteadyState(confidence=0.95, precision=0.06, batch=1.0, batches=4)
    counts = [0, 100, 104, 96, 100]
    mean, width = rule.interval(counts[1:])
    assert mean == 100.0
    # sd of (100, 104, 96, 100) = 3.266; t(0.95, 3) = 3.182
    assert width == pytest.approx(3.182 * 3.266 / math.sqrt(4) / 100, rel=1e-3)
    assert rule.settled(counts) == Settled(mean, width, 1, 1)
    assert SteadyState(0.95, 0.06, 1.0, 4).settled([0, 100, 130, 70, 100]) is None


def test_one_step_in_the_total_widens_the_interval() -> None:
    # 19.5 transactions a second counted in 0.2 s batches: 4 in each of ten
    # (the 3 is a batch away), so the batches agree while the rate is 2.5 % off
    rule = SteadyState(confidence=0.99, precision=0.01, batch=0.2, batches=10)
    counts = [3] + [4] * 10
    assert rule.settled(counts) == Settled(20.0, 0.0, 1, 1)
    assert rule.interval(counts[1:], step=1) == (20.0, pytest.approx(1 / 40))
    assert rule.settled(counts, step=1) is None
    found = rule.settled([3] + [400] * 10, step=1)
    assert found == Settled(2000.0, pytest.approx(1 / 4000), 1, 1)


def test_mser_finds_the_start_up_transient() -> None:
    steady = [528, 528, 522, 520, 522, 522, 528, 526] * 3
    assert mser_truncation([63, 0, 0, 63, 440] + steady) == 5
    assert mser_truncation(steady) == 0
    assert mser_truncation([0] * 8 + [5] * 2) == 0  # a late change is no transient
    assert mser_truncation([]) == 0


def test_a_transient_after_the_first_batch_does_not_hold_the_rule_back() -> None:
    rule = SteadyState(confidence=0.99, precision=0.01, batch=0.05, batches=10, views=3)
    counts = [63, 0, 0, 63, 440] + [528, 522] * 5
    found = rule.settled(counts)
    assert found is not None and found.half_width < 0.01
    assert (found.rate, found.width, found.left_out) == (525 / 0.05, 1, 5)
    assert rule.settled(counts[:-1]) is None  # nine batches after the transient


def test_wider_views_judge_what_short_batches_cannot() -> None:
    # a stream that delivers once per 0.2 s stall cycle, counted in 0.05 s batches
    rule = SteadyState(confidence=0.99, precision=0.01, batch=0.05, batches=10, views=3)
    assert rule.skip == 4  # one batch of the widest view (0.2 s) left out
    cycles = [0, 0, 0, 0] + [1000, 0, 0, 0] * 10
    judged = cycles[4:]
    assert rule.interval(judged, width=1)[1] > 0.01  # the 0.05 s batches disagree
    pairs = [a + b for a, b in zip(judged[::2], judged[1::2], strict=True)]
    assert rule.interval(pairs, width=2)[1] > 0.01
    assert rule.settled(cycles[:-1]) is None  # nine whole 0.2 s batches only
    assert rule.settled(cycles) == Settled(5000.0, 0.0, 4, 4)
    smooth = [0, 0, 0, 0] + [250] * 10
    assert rule.settled(smooth) == Settled(5000.0, 0.0, 1, 4)  # the shortest precise view


def test_each_view_takes_an_even_share_of_the_error() -> None:
    judged = [100, 104, 96, 100]
    one = SteadyState(confidence=0.95, precision=0.5, batch=1.0, batches=4, views=1)
    two = SteadyState(confidence=0.95, precision=0.5, batch=1.0, batches=2, views=2)
    sd = stdev(judged) / 2
    assert one.interval(judged) == (100.0, pytest.approx(t_quantile(0.95, 3) * sd / 100))
    assert two.interval(judged) == (100.0, pytest.approx(t_quantile(0.975, 3) * sd / 100))


@given(st.lists(st.integers(0, 10_000), min_size=1, max_size=80), st.integers(1, 4),
       st.floats(0.001, 0.5), st.sampled_from([0, 3, 4]))
def test_a_settled_rate_is_the_mean_of_the_whole_batches_it_judged(
        counts: list[int], views: int, precision: float, cycles: int) -> None:
    rule = SteadyState(precision=precision, batch=0.05, batches=2, views=views, cycles=cycles)
    found = rule.settled(counts, step=1)
    if found is not None:
        judged = counts[found.left_out:]
        whole = len(judged) // found.width * found.width
        assert found.rate == pytest.approx(sum(judged[:whole]) / (whole * 0.05))
        assert found.half_width <= precision
        widths = (1, 2, 4, 8)[:views]
        if found.width in widths:
            assert whole // found.width >= rule.batches
        else:  # a cycle's batches
            assert cycles and found.width == cycle_length(counts[rule.skip:], cycles)
            assert whole // found.width >= cycles
        assert rule.skip <= found.left_out <= rule.skip + (len(counts) - rule.skip) // 2


# A stream that loses packets and recovers on a timer, counted in 0.05 s
# batches: 12 batches a cycle (0.6 s, which no batch of 0.05 x 2^k s divides),
# a burst in one batch, a smaller one half a cycle later
CYCLE = [528, 528, 528, 528, 528, 634, 528, 528, 528, 528, 528, 558]


def test_cycle_length_is_where_the_autocorrelation_peaks() -> None:
    assert cycle_length(CYCLE * 5, 4) == 12
    assert cycle_length(CYCLE * 3, 4) is None  # four cycles are needed to look
    assert cycle_length([528] * 60, 4) is None  # nothing repeats: all alike
    drift = [500 + k for k in range(60)]  # correlation falls from lag 1 on
    assert cycle_length(drift, 4) is None
    sawtooth = [528 + (37 * k) % 11 for k in range(60)]  # an 11-batch cycle, not 2 or 5
    assert cycle_length(sawtooth, 4) == 11
    rng = random.Random(3)
    for _ in range(10):  # independent counts: no lag reaches the threshold
        assert cycle_length([528 + rng.gauss(0, 5) for _ in range(80)], 4) is None


def test_batches_of_one_cycle_settle_what_no_power_of_two_batch_can() -> None:
    plain = SteadyState(confidence=0.99, precision=0.001, batch=0.05, batches=10, views=3)
    cyclic = SteadyState(confidence=0.99, precision=0.001, batch=0.05, batches=10, views=3,
                         cycles=4)
    assert cyclic.judged_views == 4
    counts = [0, 0, 0, 0] + CYCLE * 6
    assert plain.settled(counts) is None
    found = cyclic.settled(counts)
    assert found == Settled(pytest.approx(sum(CYCLE) / 0.6), 0.0, 12, 4)
    assert cyclic.settled(counts[:4 + 12 * 4 - 1]) is None  # not yet four whole cycles


def test_the_cycle_view_takes_its_share_of_the_error() -> None:
    judged = [100, 104, 96, 100]
    sd = stdev(judged) / 2
    rule = SteadyState(confidence=0.95, precision=0.5, batch=1.0, batches=4, views=1,
                       cycles=3)
    assert rule.interval(judged) == (100.0, pytest.approx(t_quantile(0.975, 3) * sd / 100))


def test_rule_refuses_meaningless_settings() -> None:
    for bad in ({"confidence": 1.0}, {"precision": 0.0}, {"batch": 0.0}, {"batches": 1},
                {"views": 0}, {"cycles": 2}):
        with pytest.raises(ValueError):
            SteadyState(**bad)


NETPERF = """\
topology = "point-to-point"

[run]
duration = "1 s"

[run.steady_state]
{steady}

[[nodes]]
name = "a"
host = "hp-c110"

[[nodes]]
name = "b"
host = "hp-c110"

[[links]]
ends = ["a", "b"]
speed = "266M"

[[workloads]]
name = "t"
type = "netperf"
from = "a"
to = "b"
test = "{test}"
length = "0.9 s"
"""


def test_steady_state_key_errors_are_one_line(tmp_path: Path) -> None:
    line = error_of(write(tmp_path, NETPERF.format(steady="precision = 0", test="TCP_RR")))
    assert "run.steady_state.precision: given 0" in line and "(0, 1)" in line
    line = error_of(write(tmp_path, NETPERF.format(steady="", test="UDP_STREAM")))
    assert "run.steady_state: given with UDP_STREAM 't'" in line
    assert "only files whose workloads are all netperf TCP_STREAM or TCP_RR" in line
    line = error_of(write(tmp_path, NETPERF.format(steady="batchs = 3", test="TCP_RR")))
    assert "run.steady_state.batchs" in line and "batches" in line
