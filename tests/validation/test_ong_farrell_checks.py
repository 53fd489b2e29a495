"""The Ong & Farrell throughput checks judge the paper's words: the peak over
every message size that can hold it, every pair, both large sockets."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from fcsim.validation.checks import CHECKS
from fcsim.validation.checks.ong_farrell import (
    GRID_FLOOR,
    PAIRS,
    SENDERS_735,
    peak_sizes,
    send_bound,
)
from fcsim.validation.checks.ong_farrell_pairs import MB2, stream_file
from fcsim.validation.points import Point, run_point, scenario_file


def _results(claim: str, rate: Callable[[Point], float]) -> dict[Point, dict]:
    """Made-up throughput *rate(point)* at every point of *claim*."""
    return {p: {"netperf": {"stream": {"throughput_mbit_s": rate(p)}}}
            for p in CHECKS[claim].points()}


def _curve(point: Point) -> float:
    """A curve the paper's words allow: low below 1 KB, 82 Mbit/s from 4 KB on for
    senders other than the 735, 67 for the 735, within the repetitions' spread."""
    peak = 67.0 if "stream-735-" in point.scenario else 82.0
    level = peak if point.size >= 4096 else peak * point.size / 4096
    return level * (1 + 0.002 * point.repetition)


def test_the_send_bound_is_one_send_per_call() -> None:
    pair = ("c110", "c110")
    scenario = scenario_file(stream_file(pair))
    syscall = scenario.nodes[0].host.syscall
    assert send_bound(pair, 64) == pytest.approx(8 * 64 * (10 / syscall + 1) / 10)
    for pair in PAIRS:
        kept = peak_sizes(pair)
        assert all(send_bound(pair, s) >= GRID_FLOOR for s in kept)
        assert all(send_bound(pair, s) < GRID_FLOOR
                   for s in (1, 4, 16, 64, 256, 512) if s not in kept)
        assert {4096, MB2} <= set(kept)


def test_the_simulation_stays_below_the_send_bound() -> None:
    """A short 64-byte stream: what arrives is at most one message per send() call."""
    pair = ("c110", "c110")
    length = 0.5
    result = run_point(Point(stream_file(pair), 262143, 64, length=length))
    syscall = scenario_file(stream_file(pair)).nodes[0].host.syscall
    got = result["netperf"]["stream"]["throughput_mbit_s"] * 1e6
    assert 0 < got <= 8 * 64 * (length / syscall + 1) / length


def test_the_paper_s_curve_passes() -> None:
    for claim in ("ONG-PEAK", "ONG-735", "ONG-SMALLMSG", "ONG-4K"):
        verdict = CHECKS[claim].judge(_results(claim, _curve))
        assert verdict.status == "passes", (claim, verdict.detail)


def test_a_peak_above_90_at_any_message_size_fails_ong_peak() -> None:
    def hump(point: Point) -> float:
        return 91.0 if point.size == 16384 and "c180-to-j210" in point.scenario else \
            _curve(point)
    verdict = CHECKS["ONG-PEAK"].judge(_results("ONG-PEAK", hump))
    assert verdict.status == "fails"
    assert "above 90 Mbit/s: C180->J210" in verdict.detail


def test_the_735_maximum_is_over_every_message_size() -> None:
    def hump(point: Point) -> float:
        sender_735 = any(point.scenario == stream_file(p) for p in SENDERS_735)
        return 80.0 if sender_735 and point.size == 8192 else _curve(point)
    verdict = CHECKS["ONG-735"].judge(_results("ONG-735", hump))
    assert verdict.status == "fails"
    assert "735->C110 80.0 at 8192 B" in verdict.detail


def test_small_messages_are_judged_on_every_pair_and_large_socket() -> None:
    def flat(point: Point) -> float:
        one = "c180-to-c180" in point.scenario and point.socket == 245760
        return 5.0 if one and point.size in (256, 1024) else _curve(point)
    verdict = CHECKS["ONG-SMALLMSG"].judge(_results("ONG-SMALLMSG", flat))
    assert verdict.status == "fails"
    assert "not met by C180->C180 245760 B (1.00)" in verdict.detail
    assert verdict.simulated.endswith("over 14 pairs x 2 sockets")
