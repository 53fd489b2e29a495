"""Faults that repeat, against closed forms: a cable pulled out every P s
for D s recovers each time as a single pull does (D, then the handshake and
the login); bursts of bit errors at random, a Poisson process of rate r
whose occurrences last d (one coming while the previous lasts is skipped),
occur at the rate of a renewal process of mean interval d + 1/r."""

from __future__ import annotations

import dataclasses
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fcsim.faults.config import FaultConfig
from fcsim.fc0.speed import speed_named
from fcsim.fc2.frame import frame_chars
from fcsim.fc2.port_states import IDLES_ON_ENTRY, LOS_DEASSERT, RECOGNITION_WORDS, SYNC_WORDS
from fcsim.runner import run_once
from fcsim.scenario.workload_model import StreamConfig
from tests.builders import p2p

STEPS, R_RDY_WORDS = 5, 3  # as in test_recovery_time.py


def relink(speed: str, length: float) -> float:
    """Time from a cable put back to the ports Active and logged in again, s."""
    rate = speed_named(speed)
    d, w = length * 5e-9, rate.word_time
    handshake = STEPS * d + LOS_DEASSERT + (SYNC_WORDS + STEPS * RECOGNITION_WORDS) * w
    login = IDLES_ON_ENTRY * w + 4 * frame_chars(116) * rate.char_time + 4 * d + R_RDY_WORDS * w
    return handshake + login


def test_a_flapping_cable_recovers_each_time_as_one_pull() -> None:
    start, every, down, until = 0.002, 0.004, 0.001, 0.0145
    scenario = dataclasses.replace(
        p2p((StreamConfig("w", "a", "b", 8192),), 0.016, length=1000.0),
        faults=(FaultConfig(start, "link-down", link="link", duration=down, every=every,
                            until=until),))
    faults = run_once(scenario, 1)["faults"]
    records = faults["schedule"]
    expected = math.ceil((until - start) / every)
    assert len(records) == expected == faults["processes"][0]["occurrences"]
    for k, record in enumerate(records):
        at = start + k * every
        assert record["at_s"] == pytest.approx(at, abs=1e-12)
        assert record["recovered_s"] == pytest.approx(at + down + relink("1GFC", 1000.0),
                                                      abs=1e-9)


def test_random_bursts_occur_at_the_renewal_rate() -> None:
    """Bursts on an idle link: occurrences in W s number about W / (d + 1/r),
    within four standard deviations of a renewal count (variance
    W Var(X) / E(X)^3, X = d + Exp(r))."""
    rate, burst, window = 2000.0, 200e-6, 0.2
    scenario = dataclasses.replace(
        p2p((), window),
        faults=(FaultConfig(0.0, "bit-error-rate", link="link", bit_error_rate=1e-6,
                            duration=burst, mean_interval=1 / rate),))
    process = run_once(scenario, 7)["faults"]["processes"][0]
    mean_x = burst + 1 / rate
    expected = window / mean_x
    spread = math.sqrt(window * (1 / rate) ** 2 / mean_x ** 3)
    assert abs(process["occurrences"] - expected) < 4 * spread
    # the skipped ones are the arrivals within a burst: r d of each burst on average
    assert process["skipped"] == pytest.approx(expected * rate * burst,
                                               abs=4 * math.sqrt(expected * rate * burst) + 4)


@settings(max_examples=15, deadline=None)
@given(start=st.integers(0, 20), every=st.integers(1, 30), count=st.integers(1, 12))
def test_a_periodic_fault_happens_at_start_plus_multiples_of_its_period(
        start: int, every: int, count: int) -> None:
    unit = 1e-5
    until = (start + every * (count - 1)) * unit + unit / 2
    scenario = dataclasses.replace(
        p2p((), until + unit),
        faults=(FaultConfig(start * unit, "bit-error-rate", link="link", bit_error_rate=1e-9,
                            duration=every * unit / 2, every=every * unit, until=until),))
    records = run_once(scenario, 1)["faults"]["schedule"]
    assert [r["at_s"] for r in records] == pytest.approx(
        [(start + every * k) * unit for k in range(count)], abs=1e-12)
