"""The switch's declared extension points: the routing step for addresses
outside its tables (FC-3's alias groups) and the crossing it tells that step
of, and the queueing step a switch of a run with faults is built with."""

from __future__ import annotations

import dataclasses

import pytest

from fcsim.build import build_fabric, build_workloads
from fcsim.engine.simulation import Simulation
from fcsim.fabric.recovering_switch import RecoveringSwitch
from fcsim.fabric.switch import Switch
from fcsim.fabric.switch_port import SwitchPort
from fcsim.faults.config import FaultConfig
from fcsim.faults.fabric_recovery import FabricRecovery
from fcsim.fc2.frame import MAX_DATA_FIELD, Frame
from fcsim.scenario.workload_model import StreamConfig
from tests.builders import fabric


class _Recorder:
    """An alias routing step that routes nothing and records every frame it is
    told crossed a switch."""

    def __init__(self) -> None:
        self.crossed_frames: list[Frame] = []

    def route(self, switch: Switch, inp: SwitchPort, frame: Frame) -> SwitchPort | None:
        raise AssertionError("no frame here is addressed outside the switches' tables")

    def crossed(self, frame: Frame) -> None:
        self.crossed_frames.append(frame)


def _two_switches(login: bool, faults: tuple[FaultConfig, ...] = ()):  # type: ignore[no-untyped-def]
    nodes = {"a": "s1:0", "b": "s2:0"}
    loads = (StreamConfig("a-b", "a", "b", 8 * MAX_DATA_FIELD, count=5),)
    scenario = fabric(nodes, loads, duration=0.01, switches={"s1": "generic-nonblocking",
                                                            "s2": "generic-nonblocking"},
                      isls=(("s1:9", "s2:9"),), login=login)
    return dataclasses.replace(scenario, faults=faults)


@pytest.mark.parametrize("login", [False, True])
def test_the_routing_step_hears_of_every_data_frame_that_crosses(login: bool) -> None:
    """Every frame that crosses a crossbar, from an input or sent by the switch
    itself (a login's answer), is counted once in `forwarded`; the plugged-in
    step hears of each one that is not a link-control frame, once."""
    scenario = _two_switches(login)
    sim = Simulation(1)
    net = build_fabric(sim, scenario)
    recorder = _Recorder()
    for switch in net.switches.values():
        switch.aliases = recorder
    workloads = build_workloads(sim, scenario, net)
    sim.run(0.01)
    assert workloads[0].stats.sequences == 5
    forwarded = sum(switch.stats.forwarded for switch in net.switches.values())
    data = [f for f in recorder.crossed_frames if not f.is_link_control]
    assert len(data) == len(recorder.crossed_frames)
    # Class 3 carries no link-control frame: every frame forwarded is heard of;
    # the stream's 5 x 8 frames cross both switches
    assert len(recorder.crossed_frames) == forwarded >= 2 * 5 * 8


def test_a_fabric_without_faults_is_built_of_plain_switches() -> None:
    net = build_fabric(Simulation(1), _two_switches(login=False))
    assert all(type(switch) is Switch for switch in net.switches.values())


def test_a_fabric_with_faults_is_built_of_recovering_switches_sharing_its_losses() -> None:
    faults = (FaultConfig(0.005, "link-down", link="isl0"),)
    net = build_fabric(Simulation(1), _two_switches(login=False, faults=faults))
    assert all(isinstance(switch, RecoveringSwitch) and switch.losses is net.losses
               for switch in net.switches.values())


def test_fabric_recovery_refuses_switches_not_built_to_recover() -> None:
    net = build_fabric(Simulation(1), _two_switches(login=False))
    with pytest.raises(TypeError, match="not built to recover"):
        FabricRecovery(Simulation(1), net, lambda text: None)
