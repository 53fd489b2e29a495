"""The streaming quantile estimator (fcsim.stats.histogram.LogHistogram)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fcsim.stats.histogram import LogHistogram

SLACK = 1 + 1e-9  # float rounding at bucket boundaries
QS = [0.0, 0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 1.0]


def filled(values, accuracy=1e-3):
    hist = LogHistogram(accuracy)
    for x in values:
        hist.add(float(x))
    return hist


def nearest_rank(values, q):
    ordered = sorted(values)
    return ordered[max(1, math.ceil(q * len(ordered))) - 1]


def assert_within(result, true, accuracy):
    assert abs(result - true) <= accuracy * true * SLACK, (result, true)


@pytest.mark.parametrize("accuracy", [1e-3, 1e-2])
@pytest.mark.parametrize("draw", [
    lambda rng: rng.lognormal(mean=-10, sigma=2, size=20_000),
    lambda rng: rng.exponential(scale=5e-6, size=20_000),
    lambda rng: rng.uniform(1e-9, 1e3, size=20_000),
    lambda rng: rng.pareto(1.5, size=20_000) * 1e-6 + 1e-6,
])
def test_quantiles_of_known_distributions(draw, accuracy):
    values = draw(np.random.default_rng(7))
    hist = filled(values, accuracy)
    for q in QS:
        true = np.quantile(values, q, method="inverted_cdf")  # nearest rank
        assert_within(hist.quantile(q), true, accuracy)


@given(values=st.lists(st.floats(min_value=1e-9, max_value=1e3), min_size=1, max_size=300),
       q=st.floats(min_value=0, max_value=1))
def test_every_quantile_within_relative_accuracy(values, q):
    hist = filled(values)
    assert_within(hist.quantile(q), nearest_rank(values, q), hist.relative_accuracy)


@given(values=st.lists(st.one_of(st.just(0.0), st.floats(min_value=1e-9, max_value=1e3)),
                       min_size=1, max_size=200))
def test_zeros_are_exact_and_extremes_are_exact(values):
    hist = filled(values)
    assert hist.quantile(0) == min(values)
    assert hist.quantile(1) == max(values)
    for q in QS:
        true = nearest_rank(values, q)
        result = hist.quantile(q)
        if true == 0:
            assert result == 0.0
        else:
            assert_within(result, true, hist.relative_accuracy)


@given(values=st.lists(st.floats(min_value=0, max_value=1e3), min_size=1, max_size=300))
def test_count_mean_min_max_are_exact(values):
    hist = filled(values)
    assert hist.count == len(values)
    assert hist.mean == pytest.approx(math.fsum(values) / len(values), rel=1e-12, abs=1e-300)
    assert hist.min == min(values)
    assert hist.max == max(values)


def test_single_value():
    hist = filled([3.7e-6])
    assert all(hist.quantile(q) == 3.7e-6 for q in QS)


def test_reset_forgets_everything():
    hist = filled([1.0, 2.0, 0.0])
    hist.reset()
    assert hist.count == 0
    assert hist.bucket_count == 0
    with pytest.raises(ValueError):
        hist.quantile(0.5)
    hist.add(5.0)
    assert (hist.count, hist.mean, hist.min, hist.max) == (1, 5.0, 5.0, 5.0)


@given(a=st.lists(st.floats(min_value=0, max_value=1e3), max_size=100),
       b=st.lists(st.floats(min_value=0, max_value=1e3), max_size=100))
def test_merge_equals_adding_all(a, b):
    merged = filled(a)
    merged.merge(filled(b))
    together = filled(a + b)
    assert merged.count == together.count
    assert merged.bucket_count == together.bucket_count
    if together.count:
        assert merged.mean == pytest.approx(together.mean, rel=1e-12, abs=1e-300)
        assert (merged.min, merged.max) == (together.min, together.max)
        assert [merged.quantile(q) for q in QS] == [together.quantile(q) for q in QS]


def test_merge_with_itself_doubles():
    hist = filled([1.0, 2.0, 3.0])
    hist.merge(hist)
    assert hist.count == 6
    assert hist.quantile(0.5) == pytest.approx(2.0, rel=1e-3)


def test_merge_refuses_other_accuracy():
    with pytest.raises(ValueError, match="relative accuracy"):
        LogHistogram(1e-3).merge(LogHistogram(1e-2))


def test_memory_bounded_by_value_range_not_sample_count():
    hist = LogHistogram()
    values = np.random.default_rng(1).uniform(1e-6, 2e-6, size=1_000_000).tolist()
    for x in values:
        hist.add(x)
    assert hist.count == 1_000_000
    gamma = (1 + 1e-3) / (1 - 1e-3)
    assert hist.bucket_count <= math.log(2) / math.log(gamma) + 2  # about 348


def test_full_latency_range_fits_in_bounded_buckets():
    hist = filled(np.logspace(-9, 3, 200_000))
    assert hist.bucket_count < 14_000


@pytest.mark.parametrize("bad", [-1e-9, -1.0, math.nan, math.inf, -math.inf])
def test_refuses_values_it_cannot_hold(bad):
    hist = filled([1.0])
    with pytest.raises(ValueError):
        hist.add(bad)
    assert (hist.count, hist.mean, hist.min, hist.max) == (1, 1.0, 1.0, 1.0)


@pytest.mark.parametrize("q", [-0.1, 1.1, math.nan])
def test_refuses_quantile_outside_unit_interval(q):
    with pytest.raises(ValueError, match="quantile"):
        filled([1.0]).quantile(q)


@pytest.mark.parametrize("attribute", ["mean", "min", "max"])
def test_empty_histogram_has_no_statistics(attribute):
    with pytest.raises(ValueError, match="empty"):
        getattr(LogHistogram(), attribute)


@pytest.mark.parametrize("accuracy", [0, 1, -0.1, math.nan])
def test_refuses_bad_accuracy(accuracy):
    with pytest.raises(ValueError, match="relative_accuracy"):
        LogHistogram(accuracy)
