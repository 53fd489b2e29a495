"""The retransmission timeout: RFC 6298 section 2's formula with 4.4BSD's backoff."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from fcsim.transport.rtt import BACKOFF, RttEstimator


def test_the_first_sample_sets_srtt_and_half_of_it_as_rttvar() -> None:
    rtt = RttEstimator(rto_initial=3.0, rto_min=0.2, rto_max=64.0)
    assert rtt.rto == 3.0  # SRTT 0 + 4 x 3/4: the initial timeout
    rtt.sample(0.5)
    assert rtt.rto == 0.5 + 4 * 0.25  # RFC 6298 2.2: SRTT = R, RTTVAR = R/2


@settings(max_examples=200, derandomize=True)
@given(st.lists(st.floats(1e-6, 5.0), min_size=1, max_size=8), st.integers(0, 14),
       st.floats(0.0, 1.0), st.floats(1.0, 128.0))
def test_the_timeout_is_the_bounded_estimate_times_the_backoff(
        samples: list[float], shift: int, rto_min: float, rto_max: float) -> None:
    """RTO = min(max(SRTT + 4 RTTVAR, min), max) x tcp_backoff[shift], at most max:
    with no backoff (shift 0, factor 1) the bounded estimate itself."""
    rtt = RttEstimator(rto_initial=1.0, rto_min=rto_min, rto_max=rto_max)
    for sample in samples:
        rtt.sample(sample)
    rtt.shift = shift
    base = min(max(rtt.srtt + 4 * rtt.rttvar, rto_min), rto_max)
    assert rtt.rto == min(base * BACKOFF[min(shift, len(BACKOFF) - 1)], rto_max)
