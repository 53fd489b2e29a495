"""Switched fabrics against closed forms: rates, sharing, blocking, latency."""

from __future__ import annotations

import dataclasses

import pytest

from fcsim.fabric.long_distance import long_distance_buffers
from fcsim.fabric.switch_model import load_switch_model
from fcsim.fabric.switch_port import HEADER_CHARS
from fcsim.fc0.cable import Cable
from fcsim.fc0.speed import speed_named
from fcsim.fc2.frame import FRAMING_BYTES, MAX_DATA_FIELD, frame_chars
from fcsim.runner import run_scenario
from fcsim.scenario.workload_model import StreamConfig
from tests.builders import fabric

SPEED = speed_named("1GFC")
FULL_RATE = SPEED.char_rate * MAX_DATA_FIELD / (MAX_DATA_FIELD + FRAMING_BYTES + 24)
NONBLOCKING = load_switch_model("generic-nonblocking")


def _rates(result: dict) -> dict[str, float]:
    return {name: w["throughput_bytes_per_s"]
            for name, w in result["repetitions"][0]["workloads"].items()}


def test_disjoint_pairs_each_reach_the_point_to_point_rate() -> None:
    nodes = {f"h{i}": f"sw:{i}" for i in range(4)} | {f"d{i}": f"sw:{10 + i}" for i in range(4)}
    streams = tuple(StreamConfig(f"s{i}", f"h{i}", f"d{i}", MAX_DATA_FIELD, outstanding=2)
                    for i in range(4))
    rates = _rates(run_scenario(fabric(nodes, streams, duration=0.02, warmup=0.002)))
    for rate in rates.values():
        assert rate == pytest.approx(FULL_RATE, rel=0.005)


def test_senders_to_one_receiver_share_its_link() -> None:
    k = 3
    nodes = {f"h{i}": f"sw:{i}" for i in range(k)} | {"d": "sw:9"}
    streams = tuple(StreamConfig(f"s{i}", f"h{i}", "d", MAX_DATA_FIELD, outstanding=2)
                    for i in range(k))
    rates = _rates(run_scenario(fabric(nodes, streams, duration=0.03, warmup=0.003)))
    assert sum(rates.values()) == pytest.approx(FULL_RATE, rel=0.005)
    for rate in rates.values():
        assert rate == pytest.approx(FULL_RATE / k, rel=0.05)


def _two_by_two(voq: bool) -> float:
    """Two inputs each saturating two outputs: total delivered, in link rates."""
    model = dataclasses.replace(NONBLOCKING, virtual_output_queues=voq, cut_through=False,
                                crossbar_speedup=1.0)
    nodes = {"h1": "sw:0", "h2": "sw:1", "a": "sw:2", "b": "sw:3"}
    loads = tuple(StreamConfig(f"{h}-{o}", h, o, MAX_DATA_FIELD, outstanding=2)
                  for h in ("h1", "h2") for o in ("a", "b"))
    rates = _rates(run_scenario(fabric(nodes, loads, duration=0.03, warmup=0.003,
                                       switches={"sw": model})))
    return sum(rates.values()) / FULL_RATE


def test_head_of_line_blocking_and_virtual_output_queues() -> None:
    """The classic two-input case: with one FIFO per input a head frame whose
    output is taken holds up the frame behind it for the idle output."""
    assert _two_by_two(voq=False) < 0.8 * 2
    assert _two_by_two(voq=True) == pytest.approx(2.0, rel=0.01)


@pytest.mark.parametrize("cut_through", [False, True])
def test_latency_through_a_switch(cut_through: bool) -> None:
    model = dataclasses.replace(NONBLOCKING, cut_through=cut_through)
    length = 100.0
    one = StreamConfig("s", "h", "d", 1024, count=1)
    result = run_scenario(fabric({"h": "sw:0", "d": "sw:1"}, (one,), duration=1e-3,
                                 switches={"sw": model}, length=length, login=False))
    latency = result["repetitions"][0]["workloads"]["s"]["latency_s"]["max"]
    frame_time = frame_chars(1024) * SPEED.char_time
    start_out = HEADER_CHARS * SPEED.char_time if cut_through else frame_time
    expected = start_out + model.routing_latency + frame_time + 2 * length * 5e-9
    assert latency == pytest.approx(expected, rel=1e-3)


def test_cut_through_saves_one_frame_time_less_the_header() -> None:
    latencies = {}
    for cut_through in (False, True):
        model = dataclasses.replace(NONBLOCKING, cut_through=cut_through)
        one = StreamConfig("s", "h", "d", MAX_DATA_FIELD, count=1)
        result = run_scenario(fabric({"h": "sw:0", "d": "sw:1"}, (one,), duration=1e-3,
                                     switches={"sw": model}, login=False))
        latencies[cut_through] = result["repetitions"][0]["workloads"]["s"]["latency_s"]["max"]
    saved = (frame_chars(MAX_DATA_FIELD) - HEADER_CHARS) * SPEED.char_time
    assert latencies[False] - latencies[True] == pytest.approx(saved, rel=1e-3)


def test_parallel_isls_under_port_based_routing() -> None:
    """Port-based routing gives input port i the i-th of the two parallel ISLs
    in turn: h0 and h2 (ports 0 and 2) share ISL 0, h1 and h3 ISL 1; each ISL
    carries two streams at half its rate, so the four carry two links' worth."""
    nodes = {f"h{i}": f"s1:{i}" for i in range(4)} | {f"d{i}": f"s2:{i}" for i in range(4)}
    streams = tuple(StreamConfig(f"w{i}", f"h{i}", f"d{i}", MAX_DATA_FIELD, outstanding=2)
                    for i in range(4))
    model = dataclasses.replace(NONBLOCKING, routing="port-based")
    scenario = fabric(nodes, streams, duration=0.02, warmup=0.002,
                      switches={"s1": model, "s2": model},
                      isls=(("s1:20", "s2:20"), ("s1:21", "s2:21")))
    result = run_scenario(scenario)
    rates = _rates(result)
    for rate in rates.values():
        assert rate == pytest.approx(FULL_RATE / 2, rel=0.01)
    links = result["repetitions"][0]["links"]
    for isl in ("isl0", "isl1"):
        forward = next(d for name, d in links[isl]["directions"].items()
                       if name.startswith("s1"))
        assert forward["utilisation"] > 0.98


def test_parallel_isls_spread_exchanges() -> None:
    """Exchange-based routing hashes each exchange (here one frame each) to one
    of the two ISLs: both carry frames, and together more than one link's
    worth, but less than two (a hash sends two exchanges to one ISL while the
    other idles; the round-robin bound 2 is port-based routing's above)."""
    nodes = {f"h{i}": f"s1:{i}" for i in range(4)} | {f"d{i}": f"s2:{i}" for i in range(4)}
    streams = tuple(StreamConfig(f"w{i}", f"h{i}", f"d{i}", MAX_DATA_FIELD, outstanding=2)
                    for i in range(4))
    scenario = fabric(nodes, streams, duration=0.02, warmup=0.002,
                      switches={"s1": NONBLOCKING, "s2": NONBLOCKING},
                      isls=(("s1:20", "s2:20"), ("s1:21", "s2:21")))
    result = run_scenario(scenario)
    total = sum(_rates(result).values())
    assert FULL_RATE * 1.5 < total < 2 * FULL_RATE * 0.99
    links = result["repetitions"][0]["links"]
    for isl in ("isl0", "isl1"):
        forward = next(d for name, d in links[isl]["directions"].items()
                       if name.startswith("s1"))
        assert forward["utilisation"] > 0.75


def _long_isl(model, credit: int | None = None, length: float = 8500.0) -> float:
    """Throughput of one stream from switch a to switch b over a 4GFC ISL of
    *length* m whose ports offer *credit* buffers (None: the model's)."""
    nodes = {"h": "a:0", "d": "b:0"}
    stream = (StreamConfig("s", "h", "d", 32 * MAX_DATA_FIELD, outstanding=2),)
    scenario = fabric(nodes, stream, duration=0.006, warmup=0.001, speed="4GFC",
                      switches={"a": model, "b": model}, isls=(("a:20", "b:20"),),
                      isl_length=length, isl_bb_credit=credit, login=False)
    return _rates(run_scenario(scenario))["s"]


def _credit_cycle(model, length: float) -> float:
    """How long after a full frame starts on a 4GFC ISL of *length* m its
    credit is back, s: one round trip, one frame time (its EOF must be in),
    the routing latency (the frame's last word leaves the input buffer that
    long after it arrived) and the R_RDY's own word."""
    speed = speed_named("4GFC")
    return (2 * Cable(length).delay + frame_chars(MAX_DATA_FIELD) * speed.char_time
            + model.routing_latency + speed.word_time)


@pytest.mark.parametrize("cut_through", [True, False])
def test_credit_limited_isl_returns_each_credit_after_the_frame_is_in(cut_through: bool) -> None:
    """A long 4GFC ISL with 16 credits between two switches carries credits x
    payload per credit cycle, cut-through or not."""
    model = dataclasses.replace(NONBLOCKING, cut_through=cut_through)
    speed = speed_named("4GFC")
    cycle = _credit_cycle(model, 8500.0)
    frame_slot = (frame_chars(MAX_DATA_FIELD) + 24) * speed.char_time
    assert model.bb_credit * frame_slot < cycle  # credit-limited
    assert _long_isl(model) == pytest.approx(model.bb_credit * MAX_DATA_FIELD / cycle,
                                             rel=0.005)


def test_isl_ports_with_their_own_credit() -> None:
    """The ISL's ports given 12 buffers (the F_Ports keep the model's 16): the
    same closed form with 12 credits; configured for 50 km by Brocade's
    formula, a 50 km ISL runs at the line's full data rate, where the model's
    16 would not."""
    speed = speed_named("4GFC")
    cycle = _credit_cycle(NONBLOCKING, 8500.0)
    assert _long_isl(NONBLOCKING, 12) == pytest.approx(12 * MAX_DATA_FIELD / cycle, rel=0.005)
    full = speed.char_rate * MAX_DATA_FIELD / (frame_chars(MAX_DATA_FIELD) + 24)
    credit = long_distance_buffers(50_000.0, speed)
    assert credit * MAX_DATA_FIELD / _credit_cycle(NONBLOCKING, 50_000.0) > full
    assert NONBLOCKING.bb_credit * MAX_DATA_FIELD / _credit_cycle(NONBLOCKING, 50_000.0) < full
    assert _long_isl(NONBLOCKING, credit, 50_000.0) == pytest.approx(full, rel=0.005)
