"""Lasting faults that overlap on one target each hold it for their own time:
a cable stays out, a receiver out of synchronisation, a port or a switch
failed, until the last fault holding it ends, not the first; after the last
one the link comes back Active."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from fcsim.build import build_workloads
from fcsim.engine.simulation import Simulation
from fcsim.faults.config import FaultConfig
from fcsim.faults.injector import install
from fcsim.fc2.port_states import AC
from fcsim.runner import BUILDERS
from fcsim.scenario.workload_model import StreamConfig
from tests.builders import fabric, p2p

STREAM = (StreamConfig("ab", "a", "b", 2112, outstanding=1),)
MS = 1e-3


def _watch(scenario: Any, times: list[float], read: Any) -> tuple[list[Any], Any]:
    """Run *scenario*; what *read(net)* gives at each of *times* (s), and the net."""
    sim = Simulation(1)
    net = BUILDERS[scenario.topology](sim, scenario)
    build_workloads(sim, scenario, net)
    install(sim, scenario, net)
    seen: list[Any] = []
    for t in times:
        sim.call_later(t, lambda _v: seen.append(read(net)), None)
    sim.run(scenario.run.duration)
    return seen, net


@pytest.mark.parametrize("kind", ["link-down", "loss-of-sync"])
def test_a_link_held_by_two_overlapping_faults_comes_back_after_the_later(kind: str) -> None:
    """1 to 3 ms and 2 to 5 ms: at 4 ms the cable is still out (the receivers
    still out of synchronisation), at 5 ms it is back, and the link is Active
    again by the end."""
    faults = (FaultConfig(1 * MS, kind, link="link", duration=2 * MS),
              FaultConfig(2 * MS, kind, link="link", duration=3 * MS))
    scenario = dataclasses.replace(p2p(STREAM, 0.03), faults=faults)
    flag = "cable" if kind == "link-down" else "sync"
    seen, net = _watch(scenario, [1.5 * MS, 4 * MS, 5.5 * MS],
                       lambda net: [getattr(p.lcf, flag) for p in net.links["link"].ports])
    assert seen == [[False, False], [False, False], [True, True]]
    assert all(p.lcf.state == AC for p in net.links["link"].ports)


def test_a_port_failed_within_a_longer_failure_stays_failed_to_its_end() -> None:
    """Port a failed from 1 to 6 ms and again from 2 to 3 ms: the short one's
    end does not power it on; it is off at 4 ms, on after 6 ms."""
    faults = (FaultConfig(1 * MS, "port-failure", port="a", duration=5 * MS),
              FaultConfig(2 * MS, "port-failure", port="a", duration=1 * MS))
    scenario = dataclasses.replace(p2p(STREAM, 0.03), faults=faults)
    seen, net = _watch(scenario, [4 * MS, 6.5 * MS], lambda net: net.nodes["a"].port.lcf.powered)
    assert seen == [False, True]
    assert net.nodes["a"].port.lcf.state == AC


def test_a_switch_port_failed_past_its_switch_failure_stays_failed() -> None:
    """Switch sw failed from 1 to 3 ms, its port sw:0 from 2 to 5 ms: at 4 ms
    sw:0 is off and the switch's other ports on; after 5 ms every port is on."""
    scenario = fabric({"a": "sw:0", "b": "sw:1"}, STREAM, 0.03)
    scenario = dataclasses.replace(scenario, faults=(
        FaultConfig(1 * MS, "switch-failure", switch="sw", duration=2 * MS),
        FaultConfig(2 * MS, "port-failure", port="sw:0", duration=3 * MS)))

    def powered(net: Any) -> dict[str, bool]:
        return {name: sp.port.lcf.powered for name, sp in net.switches["sw"].ports.items()}

    seen, _net = _watch(scenario, [4 * MS, 5.5 * MS], powered)
    assert [s[0] for s in seen] == [False, True]
    assert all(seen[0][k] for k in seen[0] if k != 0) and all(seen[1].values())
