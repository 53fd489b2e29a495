"""Throughput and latency of simple point-to-point cases against closed forms."""

from __future__ import annotations

import pytest

from fcsim.fc0.speed import CATALOG
from fcsim.fc2.frame import FRAMING_BYTES, MAX_DATA_FIELD, frame_chars
from fcsim.fc2.login import ServiceParameters
from fcsim.fc2.port import MIN_FILL_WORDS
from fcsim.runner import run_scenario
from fcsim.scenario.workload_model import StreamConfig
from tests.builders import p2p

GAP_CHARS = 4 * MIN_FILL_WORDS


def _throughput(result: dict, name: str) -> float:
    return result["repetitions"][0]["workloads"][name]["throughput_bytes_per_s"]


@pytest.mark.parametrize("speed_name", sorted(CATALOG))
def test_class3_full_frames_reach_framing_limit(speed_name: str) -> None:
    speed = CATALOG[speed_name]
    expected = speed.char_rate * MAX_DATA_FIELD / (MAX_DATA_FIELD + FRAMING_BYTES + GAP_CHARS)
    frame_time = (MAX_DATA_FIELD + FRAMING_BYTES + GAP_CHARS) * speed.char_time
    stream = StreamConfig("s", "a", "b", MAX_DATA_FIELD, cls=3, outstanding=2)
    result = run_scenario(p2p((stream,), duration=2100 * frame_time, warmup=100 * frame_time,
                              speed=speed))
    assert _throughput(result, "s") == pytest.approx(expected, rel=0.005)


@pytest.mark.parametrize(("credit", "length"), [(1, 1_000.0), (4, 20_000.0), (8, 50_000.0)])
def test_credit_limited_long_link(credit: int, length: float) -> None:
    speed = CATALOG["2GFC"]
    delay = length * 5e-9
    frame_time = frame_chars(MAX_DATA_FIELD) * speed.char_time
    r_rdy_time = speed.word_time
    cycle = frame_time + delay + r_rdy_time + delay  # a credit's round trip
    expected = credit * MAX_DATA_FIELD / cycle
    assert expected < 0.9 * speed.char_rate  # really credit-limited
    few = ServiceParameters(bb_credit=credit)
    stream = StreamConfig("s", "a", "b", MAX_DATA_FIELD, cls=3, outstanding=2)
    result = run_scenario(p2p((stream,), duration=0.02, warmup=0.002, speed=speed,
                              length=length, a=few, b=few))
    assert _throughput(result, "s") == pytest.approx(expected, rel=0.02)
    direction = result["repetitions"][0]["links"]["link"]["directions"]["a->b"]
    assert direction["credit_wait_fraction"] > 0.1


def test_class2_costs_its_acks() -> None:
    """Both ways at once: each direction also carries the other's ACK_1 frames."""
    speed = CATALOG["1GFC"]
    payload = 1024
    per_frame = payload + FRAMING_BYTES + GAP_CHARS
    per_ack = FRAMING_BYTES + GAP_CHARS
    class3 = speed.char_rate * payload / per_frame
    class2 = speed.char_rate * payload / (per_frame + per_ack)
    rates = {}
    for cls in (2, 3):
        both = (StreamConfig("ab", "a", "b", payload, cls=cls, outstanding=4),
                StreamConfig("ba", "b", "a", payload, cls=cls, outstanding=4))
        result = run_scenario(p2p(both, duration=0.01, warmup=0.001, speed=speed))
        rates[cls] = (_throughput(result, "ab"), _throughput(result, "ba"))
    for measured in rates[3]:
        assert measured == pytest.approx(class3, rel=0.005)
    for measured in rates[2]:
        assert measured == pytest.approx(class2, rel=0.005)


def test_class1_connect_costs_one_round_trip() -> None:
    speed = CATALOG["1GFC"]
    length = 10_000.0
    delay = length * 5e-9
    ack_time = frame_chars(0) * speed.char_time
    latencies = {}
    for cls in (1, 2):
        one = StreamConfig("s", "a", "b", 8 * MAX_DATA_FIELD, cls=cls, count=1)
        result = run_scenario(p2p((one,), duration=0.01, speed=speed, length=length))
        latencies[cls] = result["repetitions"][0]["workloads"]["s"]["latency_s"]["max"]
    round_trip = 2 * delay + ack_time
    assert latencies[1] - latencies[2] == pytest.approx(round_trip, rel=0.02)


def test_single_frame_latency_is_serialisation_plus_propagation() -> None:
    speed = CATALOG["4GFC"]
    length = 2_000.0
    one = StreamConfig("s", "a", "b", 512, cls=3, count=1)
    result = run_scenario(p2p((one,), duration=0.001, speed=speed, length=length))
    latency = result["repetitions"][0]["workloads"]["s"]["latency_s"]["max"]
    expected = frame_chars(512) * speed.char_time + length * 5e-9
    assert latency == pytest.approx(expected, rel=1e-3)
