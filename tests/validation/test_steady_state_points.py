"""Steady-state stopping against full-length runs: on a sample of the Ong &
Farrell points, a test that settles early reports its full length's figure
within the rule's stated precision, and one that does not settle is the
full-length run itself."""

from __future__ import annotations

from dataclasses import replace

import pytest

from fcsim.runner import run_once
from fcsim.validation.points import Point, narrow

FIGS = "scenarios/ong-farrell/"
STALLS_AT_START = Point(FIGS + "fig15-stream-j210-to-735.toml", 262143, 4096, length=3.0)
"""A stream that stalls for 0.1 s near its start: the rule leaves more than its
first 0.2 s out, as start-up transient."""
CYCLES = Point(FIGS + "fig10-stream-c180-to-c110.toml", 245760, 256, 1)
"""256-byte messages from a C180 overrun the C110's IP input queue; the stream
repeats a 0.6 s cycle of losses and recovery that no batch of 0.05 x 2^k s
divides, and settles on batches of one cycle."""
SAMPLE = [  # (point, whether it settles early)
    (Point(FIGS + "fig20-rr-c110-to-c110.toml", 32768, 1), True),  # TCP_RR, the full 10 s
    (Point(FIGS + "fig06-stream-c110-to-c110.toml", 32768, 4096), True),  # 10 s
    (Point(FIGS + "fig19-stream-c180-to-c180.toml", 262143, 1024, length=4.0), True),
    (Point(FIGS + "fig30-rr-735-to-c110.toml", 32768, 1, length=3.0), True),  # loaded
    (STALLS_AT_START, True),
    # a 1-byte stream in receive livelock: its reader's batches never agree
    (Point(FIGS + "fig06-stream-c110-to-c110.toml", 32768, 1, length=2.6), False),
    # 256 KB transactions, 19.5 a second: whole transactions counted four in
    # every 0.2 s batch agreed exactly while the rate was 2.5 % off; counted in
    # proportion to their time in each batch they settle on the right rate
    (Point(FIGS + "fig20-rr-c110-to-c110.toml", 65536, 262144, length=3.0, sized=True), True),
    (CYCLES, True),  # the full 10 s
]


def _figure(result: dict) -> float:
    test = next(iter(result["netperf"].values()))
    return test["throughput_mbit_s"] if test["test"] == "TCP_STREAM" else test["round_trip_s"]


@pytest.mark.parametrize(("point", "settles"), SAMPLE, ids=[p.label() for p, _ in SAMPLE])
def test_settled_figure_is_within_precision_of_the_full_run(point: Point, settles: bool) -> None:
    scenario = narrow(point)
    rule = scenario.run.steady_state
    assert rule is not None
    seed = scenario.run.seed
    early = run_once(scenario, seed)
    full = run_once(replace(scenario, run=replace(scenario.run, steady_state=None)), seed)
    test = next(iter(early["netperf"].values()))
    assert ("steady_state" in test) == settles
    if "steady_state" in test:
        assert early["ended_s"] < scenario.run.duration
        assert test["steady_state"]["relative_half_width"] <= rule.precision
        left_out = test["steady_state"]["left_out_s"]
        assert left_out >= rule.skip * rule.batch
        if point == STALLS_AT_START:
            assert left_out > rule.skip * rule.batch
        if point == CYCLES:
            assert test["steady_state"]["batch_s"] == pytest.approx(0.6)
        assert _figure(early) == pytest.approx(_figure(full), rel=rule.precision)
    else:  # it ran its whole length: the very same simulation
        assert early["ended_s"] == pytest.approx(scenario.run.duration)
        assert _figure(early) == _figure(full)

