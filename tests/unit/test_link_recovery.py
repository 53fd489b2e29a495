"""Link-level recovery on a point-to-point link: the port state machine, the
primitive sequence protocols a cable pull, a failed port, a loss of
synchronisation, a burst of corrupted characters and a link timeout set off,
what is lost, and the login that follows."""

from __future__ import annotations

import dataclasses
import io
import json

import pytest

from fcsim.build import BUILDERS, build_workloads
from fcsim.engine.simulation import Simulation
from fcsim.faults.config import FaultConfig
from fcsim.faults.injector import install
from fcsim.fc2.login import ServiceParameters
from fcsim.fc2.port import Port
from fcsim.fc2.port_states import (
    AC,
    LF1,
    LF2,
    LOS_ASSERT,
    LR1,
    LR2,
    LR3,
    OL1,
    OL2,
    OL3,
    OLS_MINIMUM,
    R_T_TOV,
    next_state,
)
from fcsim.fc2.recovering_port import CORRUPTED, LOST, RECEIVED, RecoveringPort
from fcsim.runner import run_once
from fcsim.scenario.workload_model import StreamConfig
from fcsim.topology.point_to_point import build_point_to_point
from fcsim.trace.timeline import Timeline
from tests.builders import p2p

STREAM = (StreamConfig("write", "a", "b", 21120, outstanding=2),)


@pytest.mark.parametrize(("state", "received", "after"), [
    (AC, "NOS", LF1), (LF2, "NOS", LF1), (AC, "OLS", OL2), (LF1, "OLS", OL2),
    (AC, "LR", LR2), (LF1, "LR", LR2), (OL2, "LR", LR2), (LF2, "LR", LF2), (OL3, "LR", LF2),
    (LR1, "LRR", LR3), (LR2, "LRR", LR3), (AC, "LRR", LR3), (LF1, "LRR", LF1),
    (OL1, "LRR", OL1), (OL3, "LRR", LF2), (LR2, "IDLE", AC), (LR3, "IDLE", AC),
    (LR1, "IDLE", LR1), (LF1, "IDLE", LF1), (OL1, "IDLE", OL1), (AC, "IDLE", AC),
])
def test_the_port_state_machine_follows_fc_fs_table_22(state: str, received: str,
                                                        after: str) -> None:
    assert next_state(state, received) == after


def built(faults: tuple[FaultConfig, ...], duration: float = 0.03, length: float = 1000.0,
          a: ServiceParameters | None = None, b: ServiceParameters | None = None):
    scenario = dataclasses.replace(p2p(STREAM, duration, length=length, a=a, b=b),
                                   faults=faults)
    sim = Simulation(1)
    out = io.StringIO()
    sim.sinks.append(Timeline(out))
    net = build_point_to_point(sim, scenario.nodes, scenario.links, recovering=True)
    build_workloads(sim, scenario, net)
    run = install(sim, scenario, net)
    return sim, net, run, out


def changes(out: io.StringIO, port: str) -> list[tuple[float, str]]:
    """(time in us, 'OLD -> NEW') of every state line of *port* in a timeline."""
    found = []
    for line in out.getvalue().splitlines():
        parts = line.split(None, 3)
        if len(parts) == 4 and parts[1] == port and parts[2] == "state":
            found.append((float(parts[0]), parts[3].split(":")[0]))
    return found


def test_a_run_without_faults_keeps_plain_ports() -> None:
    sim = Simulation(1)
    scenario = p2p(STREAM, 0.001)
    net = build_point_to_point(sim, scenario.nodes, scenario.links)
    assert install(sim, scenario, net) is None
    assert all(type(port) is Port for port in net.ports())


def test_the_builder_makes_recovering_ports_for_a_scenario_with_faults() -> None:
    scenario = dataclasses.replace(p2p(STREAM, 0.01),
                                   faults=(FaultConfig(0.005, "link-down", link="link"),))
    net = BUILDERS[scenario.topology](Simulation(1), scenario)
    assert all(type(port) is RecoveringPort for port in net.ports())
    assert [port.e_d_tov for port in net.ports()] == [
        node.params.e_d_tov for node in net.nodes.values()]


def test_faults_on_a_network_built_without_recovery_are_refused() -> None:
    scenario = dataclasses.replace(p2p(STREAM, 0.01),
                                   faults=(FaultConfig(0.005, "link-down", link="link"),))
    sim = Simulation(1)
    net = build_point_to_point(sim, scenario.nodes, scenario.links)
    with pytest.raises(ValueError, match="port a was built without link recovery"):
        install(sim, scenario, net)


def test_a_pulled_cable_fails_the_link_and_it_recovers_once_put_back() -> None:
    sim, net, run, out = built((FaultConfig(0.005, "link-down", link="link"),
                                FaultConfig(0.015, "link-up", link="link")))
    a, b = net.nodes["a"], net.nodes["b"]
    sim.run(0.0149)
    assert a.port.lcf.state == b.port.lcf.state == LF2
    assert changes(out, "a")[0] == (pytest.approx((0.005 + LOS_ASSERT) * 1e6), "AC -> LF2")
    sent = b.stats.payload_rx
    sim.run(0.03)
    assert [c for _, c in changes(out, "a")] == [
        "AC -> LF2", "LF2 -> LF1", "LF1 -> OL2", "OL2 -> LR2", "LR2 -> LR3", "LR3 -> AC"]
    text = out.getvalue()
    for name in ("NOS", "OLS", "LR", "LRR", "IDLE"):
        assert f" a->b             {name} " in text
    assert b.stats.payload_rx > sent + 10 * 2112  # traffic resumed
    assert b.port.lcf.stats.frames_lost > 0
    assert a.port.lcf.stats.failures == b.port.lcf.stats.failures == 1
    assert a.port.credit <= a.port.credit_login
    assert run.recoveries["a"].held is None and run.recoveries["b"].held is None


def test_the_higher_port_name_sends_plogi_after_flogi_both_ways() -> None:
    sim, net, _, out = built((FaultConfig(0.005, "link-down", link="link"),
                              FaultConfig(0.006, "link-up", link="link")))
    sim.run(0.0075)
    logins = [line for line in out.getvalue().splitlines()
              if " 116 EOFt" in line and float(line.split()[0]) > 6000]
    assert len(logins) == 4 + 2  # FLOGI both ways and their ACCs; PLOGI and its ACC


def test_a_failed_port_powers_on_into_link_initialization() -> None:
    sim, _, _, out = built((FaultConfig(0.005, "port-failure", port="b", duration=0.003),))
    sim.run(0.03)
    b = changes(out, "b")
    assert [c for _, c in b] == ["AC -> off", "off -> OL1", "OL1 -> LR2", "LR2 -> AC"]
    assert b[2][0] == pytest.approx((0.008 + OLS_MINIMUM) * 1e6)  # OLS for 5 ms first
    assert [c for _, c in changes(out, "a")] == ["AC -> LF2", "LF2 -> OL2", "OL2 -> LR3",
                                                 "LR3 -> AC"]


def test_a_short_loss_of_sync_loses_frames_but_not_the_link() -> None:
    sim, net, _, out = built((FaultConfig(0.005, "loss-of-sync", port="b", duration=50e-6),))
    sim.run(0.03)
    assert changes(out, "b") == []
    assert net.nodes["b"].port.lcf.stats.frames_lost >= 2


def test_a_loss_of_sync_longer_than_r_t_tov_is_a_link_failure() -> None:
    sim, _, _, out = built((FaultConfig(0.005, "loss-of-sync", port="b", duration=0.12),),
                           duration=0.2)
    sim.run(0.2)
    first = changes(out, "b")[0]
    assert first == (pytest.approx((0.005 + R_T_TOV) * 1e6), "AC -> LF2")
    assert changes(out, "b")[-1][1] == "LR3 -> AC"


def test_a_burst_over_a_start_of_frame_loses_the_frame_and_its_credit() -> None:
    sim, net, _, _ = built((), length=1.0)
    port = net.nodes["b"].port
    assert isinstance(port, RecoveringPort) and isinstance(net.nodes["a"].port, RecoveringPort)
    port.lcf.impairments.append((1e-6, 1e-6 + 2 * port.char_time, False))
    assert port.fate(1e-6 - 1e-9, 5e-6) == LOST  # the SOF is hit: not even seen
    assert port.fate(0.5e-6, 5e-6) == CORRUPTED  # hit further in: received with an error
    assert port.fate(2e-6, 5e-6) == RECEIVED


def test_corrupted_characters_damage_frames_and_cost_sync_past_four_words() -> None:
    sim, net, _, _ = built((FaultConfig(0.005, "corrupted-characters", port="b",
                                        characters=200),))
    sim.run(0.005001)
    assert not net.nodes["b"].port.lcf.sync  # 200 characters: synchronisation lost
    sim.run(0.03)
    b = net.nodes["b"]
    assert b.port.lcf.sync and b.port.lcf.state == AC
    assert b.port.lcf.stats.frames_lost + b.stats.dropped_frames >= 1


def test_a_link_timeout_resets_the_link_and_restores_credit() -> None:
    fast = ServiceParameters(bb_credit=2, e_d_tov=1e-3)
    sim, net, _, out = built((FaultConfig(0.002, "loss-of-sync", port="a", duration=40e-6),),
                             a=fast, b=fast, length=2000.0)
    a = net.nodes["a"]
    sim.run(0.03)
    assert a.port.lcf.stats.resets == 1 and a.port.lcf.stats.r_rdy_lost >= 2
    assert [c for _, c in changes(out, "a")] == ["AC -> LR1", "LR1 -> LR3", "LR3 -> AC"]
    assert [c for _, c in changes(out, "b")] == ["AC -> LR2", "LR2 -> AC"]
    assert a.port.current_credit() <= a.port.credit_login == 2
    assert net.nodes["b"].stats.payload_rx > 100 * 2112


def test_the_same_seed_and_faults_give_the_same_results() -> None:
    scenario = dataclasses.replace(
        p2p(STREAM, 0.02, length=1000.0, bit_error_rate=1e-7),
        faults=(FaultConfig(0.003, "corrupted-characters", link="link", characters=50),
                FaultConfig(0.005, "link-down", link="link"),
                FaultConfig(0.007, "link-up", link="link")))
    first, second = run_once(scenario, 3), run_once(scenario, 3)
    assert json.dumps(first, sort_keys=True) == json.dumps(second, sort_keys=True)
    assert first["faults"]["schedule"][1]["recovered_s"] is not None


def test_a_loss_of_sync_that_loses_an_r_rdy_in_flight_leaves_the_credit_lost() -> None:
    """The R_RDY on its way to the port that loses synchronisation is lost with
    the port's sync: its BB credit comes back only with a Link Reset, so the
    fault is not over when the port is synchronised again."""
    params = ServiceParameters(bb_credit=2)
    scenario = dataclasses.replace(
        p2p((StreamConfig("w", "a", "b", 21120, outstanding=2),), 0.01, length=2000.0,
            a=params, b=params),
        faults=(FaultConfig(0.002, "loss-of-sync", port="a", duration=3e-6),))
    result = run_once(scenario, 1)
    record = result["faults"]["schedule"][0]
    assert result["faults"]["ports"]["a"]["r_rdy_lost"] == 1
    assert record["recovery"] is None and record["recovered_s"] is None  # E_D_TOV is 2 s
    assert "lost with their BB credit" in record["events"][0]
