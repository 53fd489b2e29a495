"""Queue figures: a meter against hand-worked numbers, and a switch output against
Little's law."""

from __future__ import annotations

import math

import pytest

from fcsim.runner import run_scenario
from fcsim.scenario.workload_model import StreamConfig
from fcsim.stats.queue import QueueMeter
from tests.builders import fabric


def test_meter_time_weights_the_length() -> None:
    meter = QueueMeter(0.0)
    meter.enter(1.0)            # length 1 from 1 s
    meter.enter(2.0)            # length 2 from 2 s
    meter.leave(4.0, 3.0)       # length 1 from 4 s (waited 3 s)
    meter.leave(5.0, 3.0)       # empty from 5 s
    figures = meter.results(10.0)
    # 0 for 6 s, 1 for 2 s, 2 for 2 s: mean (2 + 4) / 10; above 1 for 20 % of the time
    assert figures["length"] == {"mean": pytest.approx(0.6), "p99": 2, "max": 2}
    assert figures["frames"] == 2
    assert figures["wait_s"]["mean"] == pytest.approx(3.0, rel=1e-3)


def test_a_wait_at_the_clocks_rounding_is_no_wait() -> None:
    """A frame queued at an arrival time and sent at a transmitter's free time that
    is the same instant reached by another sum of floats waited nothing: the
    meter shows 0, not the units in the last place between the two sums."""
    queued = 0.01 + 3 * 21.25e-9                   # an arrival plus three delays
    sent = 0.01 + 21.25e-9 + 21.25e-9 + 21.25e-9   # the same instant, summed otherwise
    assert sent != queued and abs(sent - queued) < 4 * math.ulp(sent)
    meter = QueueMeter(0.0)
    meter.enter(queued)
    meter.leave(max(sent, queued), abs(sent - queued))
    meter.enter(0.02)
    meter.leave(0.02 + 1e-9, 1e-9)                 # a real wait of 1 ns stays
    wait = meter.results(0.03)["wait_s"]
    assert wait["max"] == pytest.approx(1e-9, rel=1e-2) and wait["mean"] == pytest.approx(
        0.5e-9, rel=1e-2)
    meter = QueueMeter(0.0)
    meter.enter(queued)
    meter.leave(max(sent, queued), abs(sent - queued))
    assert meter.results(0.03)["wait_s"] == {"mean": 0.0, "p99": 0.0, "max": 0.0}


def test_meter_reset_keeps_frames_already_queued() -> None:
    meter = QueueMeter(0.0)
    meter.enter(0.0)
    meter.reset(1.0)
    figures = meter.results(2.0)
    assert figures["length"]["mean"] == pytest.approx(1.0) and figures["length"]["max"] == 1
    assert figures["frames"] == 0 and figures["wait_s"]["mean"] is None


def test_oversubscribed_output_obeys_littles_law() -> None:
    """Two senders into one 1GFC output: the mean queue length equals the frame
    rate through the output times the mean wait (Little's law)."""
    nodes = {"a": "sw:0", "b": "sw:1", "c": "sw:2"}
    loads = (StreamConfig("ac", "a", "c", 8 * 2048, outstanding=4),
             StreamConfig("bc", "b", "c", 8 * 2048, outstanding=4))
    results = run_scenario(fabric(nodes, loads, duration=0.02, warmup=0.005))
    rep = results["repetitions"][0]
    queue = rep["switches"]["sw"]["output_queues"]["2"]
    interval = 0.015
    rate = queue["frames"] / interval
    assert queue["length"]["mean"] > 1  # two inputs share one output: frames wait
    assert queue["length"]["mean"] == pytest.approx(rate * queue["wait_s"]["mean"], rel=0.02)
    assert queue["wait_s"]["max"] >= queue["wait_s"]["p99"] >= queue["wait_s"]["mean"]
