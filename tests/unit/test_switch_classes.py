"""Classes of service through a switch: F_BSY, dedicated Class 1 paths, hold time,
unknown destinations and the central router."""

from __future__ import annotations

import dataclasses

import pytest

from fcsim.build import build_fabric, build_workloads
from fcsim.engine.simulation import Simulation
from fcsim.fabric.switch_model import load_switch_model
from fcsim.fc2.frame import MAX_DATA_FIELD
from fcsim.runner import run_scenario
from fcsim.scenario.workload_model import StreamConfig
from tests.builders import fabric

BASE = load_switch_model("generic-nonblocking")


def _build(nodes, loads, duration=0.02, model=BASE, **kw):
    scenario = fabric(nodes, tuple(loads), duration=duration, switches={"sw": model}, **kw)
    sim = Simulation(1)
    net = build_fabric(sim, scenario)
    workloads = {w.name: w for w in build_workloads(sim, scenario, net)}
    sim.run(duration)
    return net, workloads


def test_class2_to_a_port_in_a_class1_connection_gets_f_bsy_and_retries() -> None:
    nodes = {"a": "sw:0", "b": "sw:1", "c": "sw:2"}
    loads = [StreamConfig("a-b", "a", "b", 64 * MAX_DATA_FIELD, cls=1, count=2),
             StreamConfig("c-b", "c", "b", 4096, cls=2, count=5, start=20e-6)]
    net, w = _build(nodes, loads)
    assert net.switches["sw"].stats.f_bsy > 0
    assert net.nodes["c"].stats.busy_rx > 0
    assert w["a-b"].stats.sequences == 2 and w["c-b"].stats.sequences == 5


def test_class1_connection_reserves_the_path_across_switches() -> None:
    nodes = {"a": "s1:0", "b": "s2:0", "c": "s1:1"}
    loads = [StreamConfig("a-b", "a", "b", 32 * MAX_DATA_FIELD, cls=1, count=3),
             StreamConfig("c-b", "c", "b", 32 * MAX_DATA_FIELD, cls=1, count=3, start=10e-6)]
    scenario = fabric(nodes, tuple(loads), duration=0.05,
                      switches={"s1": BASE, "s2": BASE}, isls=(("s1:9", "s2:9"),))
    sim = Simulation(1)
    net = build_fabric(sim, scenario)
    workloads = build_workloads(sim, scenario, net)
    sim.run(0.05)
    f_bsy = sum(s.stats.f_bsy for s in net.switches.values())
    assert f_bsy + net.nodes["b"].stats.busy_tx > 0  # the second connect met a busy path
    assert all(w.stats.sequences == 3 for w in workloads)
    for switch in net.switches.values():  # every reservation was given back
        assert all(port.reserved is None for port in switch.ports.values())


def test_class3_past_the_hold_time_is_discarded() -> None:
    slow = dataclasses.replace(BASE, hold_time=20e-6)
    nodes = {"a": "sw:0", "b": "sw:1", "c": "sw:2"}
    loads = [StreamConfig(f"{s}-c", s, "c", 8 * MAX_DATA_FIELD, count=20) for s in ("a", "b")]
    net, w = _build(nodes, loads, model=slow)
    assert net.switches["sw"].stats.discarded > 0
    assert net.nodes["c"].stats.sequences_incomplete > 0


def test_unknown_destination_gets_f_rjt() -> None:
    nodes = {"a": "sw:0", "b": "sw:1"}
    scenario = fabric(nodes, (StreamConfig("a-b", "a", "b", 1024, cls=2, count=1),),
                      duration=0.01, login=False)
    sim = Simulation(1)
    net = build_fabric(sim, scenario)
    switch = net.switches["sw"]
    del switch.local[1]  # as if b had left the fabric
    workloads = build_workloads(sim, scenario, net)
    sim.run(0.01)
    assert switch.stats.f_rjt == 1
    assert workloads[0].stats.rejected == 1


def test_central_router_caps_the_frame_rate() -> None:
    rate = 20_000.0  # frames per second for the whole switch
    limited = dataclasses.replace(BASE, routing_rate=rate)
    nodes = {f"h{i}": f"sw:{i}" for i in range(3)} | {f"d{i}": f"sw:{10 + i}" for i in range(3)}
    loads = tuple(StreamConfig(f"s{i}", f"h{i}", f"d{i}", MAX_DATA_FIELD, outstanding=2)
                  for i in range(3))
    result = run_scenario(fabric(nodes, loads, duration=0.05, warmup=0.005,
                                 switches={"sw": limited}))
    frames = sum(w["frames"] for w in result["repetitions"][0]["workloads"].values())
    assert frames / 0.045 == pytest.approx(rate, rel=0.02)
