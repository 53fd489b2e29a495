"""Credit loss recovery: a switch port at zero transmit credit with a frame
waiting for the stated time resets its link (FC-FS-5 Link Reset; Cisco MDS's
1 s on an F_Port, 1.5 s on an E_Port), and the reset discards the frames a
stuck receiver holds; against closed forms from the model's own parameters."""

from __future__ import annotations

import dataclasses

import pytest

from fcsim.build import BUILDERS, build_workloads
from fcsim.engine.simulation import Simulation
from fcsim.fabric.congestion import port_counters
from fcsim.fabric.cures import (
    CREDIT_LOSS_E_PORT,
    CREDIT_LOSS_F_PORT,
    CreditLossRecovery,
    Cures,
)
from fcsim.faults.injector import install
from fcsim.fc2.login import ServiceParameters
from fcsim.fc2.port_states import AC, LR1
from fcsim.fc2.receive_drain import DrainSpec
from fcsim.scenario.workload_model import StreamConfig
from tests.builders import fabric

SATURATING = (StreamConfig("w", "a", "b", 2112, cls=3, max_data_field=2112, outstanding=2),)


def _stuck(timeout: float, stuck_at: float, stuck_for: float, end: float, buffers: int = 4):
    """a -> sw -> b, b stuck from *stuck_at* for *stuck_for*; credit loss
    recovery after *timeout* s at zero credit."""
    scenario = fabric({"a": "sw:0", "b": "sw:1"}, SATURATING, duration=end)
    nodes = tuple(dataclasses.replace(n, params=ServiceParameters(
        bb_credit=buffers, drain=DrainSpec(stuck_at=stuck_at, stuck_for=stuck_for)))
        if n.name == "b" else n for n in scenario.nodes)
    scenario = dataclasses.replace(scenario, nodes=nodes, cures=Cures(
        credit_loss=CreditLossRecovery(timeout, timeout)))
    sim = Simulation(scenario.run.seed)
    net = BUILDERS[scenario.topology](sim, scenario)
    build_workloads(sim, scenario, net)
    install(sim, scenario, net)
    return sim, net


def test_defaults_are_cisco_mds() -> None:
    loss = CreditLossRecovery()
    assert (loss.f_port, loss.e_port) == (CREDIT_LOSS_F_PORT, CREDIT_LOSS_E_PORT) == (1.0, 1.5)


def test_link_reset_after_exactly_the_time_at_zero_credit() -> None:
    """The F_Port to a receiver that stops returning R_RDY waits for credit
    from its last frame's gap on; exactly T later it sends LR, and each reset
    discards the receiver's buffers' worth of frames (B) it held: after the
    reset the F_Port has its B credits again, sends B frames into the still
    stuck receiver and, T after its next wait began, resets again."""
    timeout, stuck_at, buffers = 2e-3, 1e-3, 4
    sim, net = _stuck(timeout, stuck_at, 1.0, 12e-3, buffers)
    out = net.switches["sw"].ports[1]
    port = out.port
    changes: list[tuple[float, str, str]] = []
    port.lcf.listeners.append(lambda lcf, old, new, why: changes.append((sim.now, old, new)))
    sim.run(stuck_at + 0.5e-3)
    waiting_since = port._stall_since  # the wait for credit that the reset ends
    assert waiting_since is not None and port.current_credit() == 0
    sim.run(waiting_since + timeout * 0.999)
    assert port.lcf.stats.resets == 0
    sim.run(12e-3)
    resets = [t for t, old, new in changes if new == LR1 and old == AC]
    assert resets[0] == pytest.approx(waiting_since + timeout, abs=1e-12)
    assert len(resets) >= 3
    back = [t for t, old, new in changes if new == AC]
    for reset, after in zip(resets[1:], back, strict=False):
        assert reset > after + timeout  # a whole timeout after it was Active again
    b = net.nodes["b"].port
    assert b.lcf.stats.frames_lost == buffers * len(resets)
    counters = port_counters(out, sim.now)["tx"]
    assert counters["link_resets"] == len(resets)
    assert counters["frames_lost"] == buffers * len(resets)
    assert net.switches["sw"].ports[0].port.lcf.stats.resets == 0


def test_a_receiver_that_recovers_in_time_is_not_reset() -> None:
    """Stuck for less than the timeout: no reset, nothing lost."""
    sim, net = _stuck(2e-3, 1e-3, 1.5e-3, 6e-3)
    sim.run(6e-3)
    assert net.switches["sw"].ports[1].port.lcf.stats.resets == 0
    assert net.nodes["b"].port.lcf.stats.frames_lost == 0
    assert net.nodes["b"].port.stats.frames_rx > 100


def test_example_resets_the_stuck_hosts_link_and_helps_its_victim() -> None:
    """The example: seven resets of edge2's port to the stuck host, each
    discarding its buffers, and the victim's stream faster than without the
    cure; the culprit's stream gets nothing either way."""
    from fcsim.resources import DATA_ROOT
    from fcsim.runner import run_scenario
    from fcsim.scenario.loader import read_document, scenario_from_document

    path = DATA_ROOT / "scenarios" / "fabric-slow-drain-credit-loss.toml"
    doc = read_document(path)
    cured = run_scenario(scenario_from_document(doc, str(path)))
    del doc["congestion"]
    plain = run_scenario(scenario_from_document(doc, str(path)))
    port = cured["repetitions"][0]["switches"]["edge2"]["ports"]["0"]["tx"]
    buffers = next(n for n in scenario_from_document(doc, str(path)).nodes
                   if n.name == "slow").params.bb_credit
    assert port["link_resets"] == 7
    assert port["frames_lost"] == 7 * buffers
    rate = {name: (r["summary"]["to-fast"]["throughput_bytes_per_s"]["mean"],
                   r["summary"]["to-slow"]["throughput_bytes_per_s"]["mean"])
            for name, r in (("cured", cured), ("plain", plain))}
    assert rate["cured"][0] > 3 * rate["plain"][0]
    assert rate["cured"][1] == rate["plain"][1] == 0
