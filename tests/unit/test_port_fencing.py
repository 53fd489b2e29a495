"""Port fencing: a switch's port monitor disables an F_Port whose TxWait over
a window, or whose transitions to zero credit in it, reach the threshold
(Cisco MDS port-monitor portguard errordisable, Brocade MAPS fencing)."""

from __future__ import annotations

import dataclasses
import math

import pytest

from fcsim.build import BUILDERS, build_workloads
from fcsim.engine.simulation import Simulation
from fcsim.fabric.cures import Cures, Fencing
from fcsim.faults.injector import install
from fcsim.fc2.login import ServiceParameters
from fcsim.fc2.port_states import OFF
from fcsim.fc2.receive_drain import DrainSpec
from fcsim.scenario.workload_model import StreamConfig
from tests.builders import fabric

SATURATING = (StreamConfig("w", "a", "b", 2112, cls=3, max_data_field=2112, outstanding=2),)


def _built(drain: DrainSpec, fencing: Fencing, end: float, buffers: int = 4):
    scenario = fabric({"a": "sw:0", "b": "sw:1"}, SATURATING, duration=end)
    nodes = tuple(dataclasses.replace(n, params=ServiceParameters(bb_credit=buffers,
                                                                  drain=drain))
                  if n.name == "b" else n for n in scenario.nodes)
    scenario = dataclasses.replace(scenario, nodes=nodes, cures=Cures(fencing=fencing))
    sim = Simulation(scenario.run.seed)
    net = BUILDERS[scenario.topology](sim, scenario)
    build_workloads(sim, scenario, net)
    install(sim, scenario, net)
    return sim, net


@pytest.mark.parametrize("share", [0.3, 0.6, 0.9])
def test_fenced_at_the_first_window_whose_txwait_reaches_the_threshold(share: float) -> None:
    """A receiver stuck from s: its F_Port waits for credit from s0 (just
    after s) on, so the window ending at k W holds k W - max(s0, (k - 1) W)
    of TxWait; the port is fenced at the first k W where that is at least
    the threshold's share of W, and not before."""
    window, stuck_at = 1e-3, 2.3e-3
    guard_spec = Fencing(window, txwait=share)
    sim, net = _built(DrainSpec(stuck_at=stuck_at, stuck_for=1.0), guard_spec, 10e-3)
    out = net.switches["sw"].ports[1]
    sim.run(stuck_at + 0.1e-3)
    since = out.port._stall_since
    assert since is not None and stuck_at < since < stuck_at + 0.1e-3
    sim.run(10e-3)
    k = math.ceil(since / window)
    while k * window - max(since, (k - 1) * window) < share * window:
        k += 1
    guard = net.cures[0]
    assert [f["port"] for f in guard.fenced] == ["sw:1"]
    fence = guard.fenced[0]
    assert fence["at_s"] == pytest.approx(k * window, abs=1e-12)
    assert fence["device"] == "b"
    assert fence["txwait_fraction"] >= share
    assert out.port.lcf.state == OFF
    assert net.nodes["b"].port.lcf.state != "AC"  # its N_Port lost light


def test_credit_zero_threshold() -> None:
    """A receiver with one buffer that takes F to take each frame out makes
    its F_Port fall to zero credit once a frame, every frame time on the line
    + 2 x propagation + F + one word (the R_RDY): a threshold a frame under
    a window's count fences it, one three frames over never does."""
    from fcsim.fc2.frame import FRAMING_BYTES

    window, frame_time = 1e-3, 50e-6

    def run(threshold: float):
        sim, net = _built(DrainSpec(frame_time=frame_time),
                          Fencing(window, credit_zero=int(threshold)), 8e-3, buffers=1)
        sim.run(8e-3)
        return net

    probe = run(10**6)
    port = probe.switches["sw"].ports[1].port
    cycle = (2112 + FRAMING_BYTES) * port.char_time + 2 * port.delay + frame_time \
        + port.word_time
    per_window = window / cycle
    low, high = run(per_window - 1), run(per_window + 3)
    assert [f["port"] for f in low.cures[0].fenced] == ["sw:1"]
    assert low.cures[0].fenced[0]["credit_zero"] >= per_window - 1
    assert high.cures[0].fenced == []
    assert probe.cures[0].fenced == []


def test_a_port_under_the_thresholds_is_not_fenced() -> None:
    sim, net = _built(DrainSpec(), Fencing(1e-3, txwait=0.05, credit_zero=10_000), 6e-3)
    sim.run(6e-3)
    assert net.cures[0].fenced == []
    assert net.nodes["b"].port.stats.frames_rx > 100


def test_example_fences_the_slow_host_and_gives_the_victim_half_the_isl() -> None:
    """The example: edge2's port to the slow host is fenced at the first poll;
    the culprit's stream gets nothing; the victim shares the ISLs with the
    culprit's sender, whose frames now go to be discarded at edge2 one for
    each of the victim's (the sources' round robin): half the ISL's rate,
    against the slow drain's rate without the cure."""
    from fcsim.fc2.frame import FRAMING_BYTES
    from fcsim.resources import DATA_ROOT
    from fcsim.runner import run_scenario
    from fcsim.scenario.loader import read_document, scenario_from_document

    path = DATA_ROOT / "scenarios" / "fabric-slow-drain-fencing.toml"
    doc = read_document(path)
    scenario = scenario_from_document(doc, str(path))
    cured = run_scenario(scenario)
    first = cured["repetitions"][0]
    fenced = first["cures"]["fencing"]["fenced"]
    assert [(f["port"], f["device"], f["at_s"]) for f in fenced] == [("edge2:0", "slow", 1e-3)]
    rate = {w: cured["summary"][w]["throughput_bytes_per_s"]["mean"] for w in first["workloads"]}
    isl = next(link for link in scenario.links if link.name == "isl-core-edge2")
    line = isl.speed.baud / 10 * 2112 / (2112 + FRAMING_BYTES + 6 * 4)  # payload B/s, 8b/10b
    assert rate["to-slow"] == 0
    assert rate["to-fast"] == pytest.approx(line / 2, rel=0.01)
    victim_frames = first["workloads"]["to-fast"]["frames"]
    assert abs(first["switches"]["edge2"]["discarded"] - victim_frames) <= 2
    del doc["congestion"]
    plain = run_scenario(scenario_from_document(doc, str(path)))
    assert plain["summary"]["to-fast"]["throughput_bytes_per_s"]["mean"] < rate["to-fast"] / 4
