"""Invariants of the FEC line and the credit planner: a frame touches the
codewords its bits span (one more at most than they fill); corrected and
uncorrected codewords never outnumber those touched; the credit planner's rate
grows with the credits and is full from its answer on."""

from __future__ import annotations

from random import Random

from hypothesis import example, given, settings
from hypothesis import strategies as st

from fcsim.fabric.credit_planning import plan
from fcsim.fc0.cable import Cable
from fcsim.fc0.speed import CATALOG
from fcsim.fc1.fec import FecLine

FEC_SPEEDS = ["32GFC", "64GFC", "128GFC"]


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(FEC_SPEEDS), st.floats(0.0, 1e-3), st.integers(1, 2200))
def test_a_frame_touches_the_codewords_its_bits_span(name: str, start: float,
                                                     chars: int) -> None:
    speed = CATALOG[name]
    line = FecLine(speed)
    bits = chars * speed.line_bits_per_byte
    filled = bits / speed.fec.codeword_bits
    touched = line.codewords(start, chars)
    assert filled <= touched <= int(filled) + 2


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(FEC_SPEEDS), st.floats(1e-5, 3e-3), st.integers(0, 2**32),
       st.lists(st.integers(36, 2148), min_size=1, max_size=30))
def test_counted_codewords_never_outnumber_those_touched(name: str, ber: float, seed: int,
                                                        frames: list[int]) -> None:
    speed = CATALOG[name]
    line, rng, touched, lost = FecLine(speed), Random(seed), 0, 0
    for i, chars in enumerate(frames):
        start = i * 1e-6
        touched += line.codewords(start, chars)
        lost += line.frame_lost(start, chars, ber, rng)
    assert line.corrected + line.uncorrected <= touched
    assert lost <= line.uncorrected


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["1GFC", "8GFC", "16GFC", "32GFC", "64GFC", "128GFC"]),
       st.floats(0.0, 100_000.0), st.integers(1, 2112))
@example("32GFC", 0.0, 189)  # a round trip of exactly 6 frame slots, but for rounding
def test_rate_grows_with_credits_and_is_full_from_the_answer(name: str, length: float,
                                                             size: int) -> None:
    answer = plan(CATALOG[name], Cable(length), size)
    rates = [answer.rate(c) for c in range(1, answer.credits + 2)]
    assert rates == sorted(rates)
    assert answer.rate(answer.credits) == answer.full_rate
    if answer.credits > 1:
        assert answer.rate(answer.credits - 1) < answer.full_rate
