"""A stream over a long ISL with virtual channels is held by its channel's
credit, not the link's: the closed form of a credit-limited link with the
channel's credit."""

from __future__ import annotations

import dataclasses

import pytest

from fcsim.fabric.switch_model import load_switch_model
from fcsim.fc0.speed import CATALOG
from fcsim.fc2.frame import MAX_DATA_FIELD, frame_chars
from fcsim.runner import run_scenario
from fcsim.scenario.workload_model import StreamConfig
from tests.builders import fabric


@pytest.mark.parametrize(("credit", "length"), [(2, 10_000.0), (4, 30_000.0)])
def test_one_channel_credit_limits_a_stream(credit: int, length: float) -> None:
    """One stream from sw1 to sw2 over an ISL of 4 channels with *credit*
    buffers each: its frames all take one channel, whose credit comes back
    one frame, a propagation delay, an ER_RDY word and a delay after it was
    spent (the switches store-and-forward with no routing latency, so the
    frame leaves sw2's buffer as its EOF arrives): credit x payload per
    cycle, as a plain link with that credit, although the port has four
    times as many buffers."""
    speed = CATALOG["2GFC"]
    model = dataclasses.replace(load_switch_model("generic-nonblocking"), cut_through=False,
                                routing_latency=0.0)
    stream = StreamConfig("s", "a", "b", 8 * MAX_DATA_FIELD, cls=3, outstanding=4)
    scenario = fabric({"a": "sw1:0", "b": "sw2:0"}, (stream,), duration=0.02, warmup=0.004,
                      switches={"sw1": model, "sw2": model}, isls=(("sw1:10", "sw2:10"),),
                      speed=speed, length=1.0, isl_length=length)
    links = tuple(dataclasses.replace(link, virtual_channels=4, vc_credit=credit)
                  if link.name.startswith("isl") else link for link in scenario.links)
    result = run_scenario(dataclasses.replace(scenario, links=links))
    delay = length * 5e-9
    cycle = frame_chars(MAX_DATA_FIELD) * speed.char_time + delay + speed.word_time + delay
    expected = credit * MAX_DATA_FIELD / cycle
    assert expected < 0.9 * speed.char_rate  # really credit-limited
    first = result["repetitions"][0]
    assert first["workloads"]["s"]["throughput_bytes_per_s"] == pytest.approx(expected,
                                                                              rel=0.02)
    channels = first["switches"]["sw1"]["ports"]["10"]["tx"]["virtual_channels"]
    used = [c for c in channels if c["frames"]]
    assert len(used) == 1 and used[0]["credit_login"] == credit
    assert used[0]["txwait_fraction"] > 0.1  # it waits for its own channel's credit
