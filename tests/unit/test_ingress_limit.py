"""Dynamic ingress rate limiting (Cisco MDS DIRL): an F_Port paces the
R_RDYs it returns to its N_Port, and a loop cuts the pace while the port's
TxWait is over a threshold and recovers it stepwise after; against closed
forms from the model's own parameters."""

from __future__ import annotations

import dataclasses

import pytest

from fcsim.build import BUILDERS, build_workloads
from fcsim.engine.simulation import Simulation
from fcsim.fabric.cures import Cures, IngressLimit
from fcsim.fabric.ingress_limit import FULL_FRAME, PacedPort
from fcsim.fc2.login import ServiceParameters
from fcsim.fc2.receive_drain import DrainSpec
from fcsim.runner import run_scenario
from fcsim.scenario.workload_model import StreamConfig
from tests.builders import fabric

SATURATING = (StreamConfig("w", "a", "b", 2112, cls=3, max_data_field=2112, outstanding=2),)


def _scenario(spec: IngressLimit, drain: DrainSpec | None = None, end: float = 20e-3,
              warmup: float = 0.0):
    scenario = fabric({"a": "sw:0", "b": "sw:1"}, SATURATING, duration=end, warmup=warmup)
    nodes = tuple(dataclasses.replace(n, params=ServiceParameters(drain=drain))
                  if n.name == "b" and drain is not None else n for n in scenario.nodes)
    return dataclasses.replace(scenario, nodes=nodes, cures=Cures(ingress_limit=spec))


@pytest.mark.parametrize("share", [0.1, 0.25, 0.6])
def test_a_limit_holds_a_saturating_sender_to_its_rate(share: float) -> None:
    """Held at a limit L (a threshold never reached), the F_Port returns one
    R_RDY per full-frame time over L, so a sender of full frames sends L
    times the line's full-frame rate: its payload rate is 2112 B per
    (full frame + gap) / L."""
    scenario = _scenario(IngressLimit(window=1.0, txwait=0.99))
    sim = Simulation(scenario.run.seed)
    net = BUILDERS[scenario.topology](sim, scenario)
    build_workloads(sim, scenario, net)
    limiter = net.cures[0]
    port = net.switches["sw"].ports[0].port
    assert isinstance(port, PacedPort)
    limiter.set_limit("sw:0", port, share, 0.0)
    sim.run(5e-3)
    got = net.nodes["b"].port.stats.frames_rx
    sim.run(20e-3)
    got = net.nodes["b"].port.stats.frames_rx - got
    per_frame = (FULL_FRAME * port.char_time + port.gap_time) / share
    assert got == pytest.approx(15e-3 / per_frame, abs=1)


def test_without_a_limit_the_paced_port_is_the_plain_port() -> None:
    """With no port over the threshold the limit stays 1 (no pacing): the
    run's figures are those of the same fabric without the cure, bit for bit."""
    limited = run_scenario(_scenario(IngressLimit(window=1e-3, txwait=0.5), end=5e-3))
    plain = run_scenario(dataclasses.replace(_scenario(IngressLimit(1e-3, 0.5), end=5e-3),
                                             cures=Cures()))
    first = limited["repetitions"][0]
    first.pop("cures")
    assert first == plain["repetitions"][0]


def test_the_loop_halves_while_congested_and_recovers_stepwise() -> None:
    """A receiver stuck from 2.5 ms to 8 ms: its F_Port waits for credit from
    s0 (once the frames its buffers took are in) to 8 ms, so the window
    ending at k W holds k W - max(s0, (k - 1) W) of TxWait up to 8 ms and
    none after; the port's limit is cut, each window over the threshold, to
    1 - reduce of what it was (down to the floor), and raised by recover of
    what it was a window after, back to no limit. Only the stuck receiver's F_Port is
    limited."""
    spec = IngressLimit(window=1e-3, txwait=0.3, reduce=0.5, recover=0.25, floor=0.1)
    scenario = _scenario(spec, DrainSpec(stuck_at=2.5e-3, stuck_for=5.5e-3), end=16e-3)
    sim = Simulation(scenario.run.seed)
    net = BUILDERS[scenario.topology](sim, scenario)
    build_workloads(sim, scenario, net)
    sim.run(3.5e-3)
    since = net.switches["sw"].ports[1].port._stall_since
    assert since is not None and 2.5e-3 < since < 3.5e-3
    sim.run(16e-3)
    changes = [(c["port"], round(c["at_s"] * 1e3), c["limit"]) for c in net.cures[0].changes]
    assert {port for port, _, _ in changes} == {"sw:1"}
    expected, limit = [], 1.0
    for k in range(3, 16):  # the window ending at k ms (the run ends at 16 ms)
        wait = k * spec.window - max(since, (k - 1) * spec.window) if k <= 8 else 0.0
        congested = wait >= spec.txwait * spec.window
        new = (max(spec.floor, limit * (1 - spec.reduce)) if congested
               else min(1.0, limit * (1 + spec.recover)))
        if new != limit:
            expected.append(("sw:1", k, pytest.approx(new)))
        limit = new
    assert changes == expected


def test_example_paces_the_slow_host_and_gives_the_victim_its_rate_back() -> None:
    """The example: the slow host's port is over the threshold from the first
    window, so its limit halves each window to the floor, reached at the
    window k with (1 - reduce)^k <= floor; the victim reads several times
    what it reads without the cure, the culprit less than it drains."""
    import math

    from fcsim.resources import DATA_ROOT
    from fcsim.scenario.loader import read_document, scenario_from_document

    path = DATA_ROOT / "scenarios" / "fabric-slow-drain-dirl.toml"
    doc = read_document(path)
    scenario = scenario_from_document(doc, str(path))
    spec = scenario.cures.ingress_limit
    cured = run_scenario(scenario)
    changes = cured["repetitions"][0]["cures"]["ingress_limit"]["changes"]
    k = math.ceil(math.log(spec.floor) / math.log(1 - spec.reduce))
    first = [(c["port"], c["limit"]) for c in changes[:k]]
    assert first == [("edge2:0", max(spec.floor, (1 - spec.reduce) ** j))
                     for j in range(1, k + 1)]
    assert changes[k - 1]["at_s"] == pytest.approx(k * spec.window)
    del doc["congestion"]
    plain = run_scenario(scenario_from_document(doc, str(path)))
    culprits = plain["repetitions"][0]["congestion"]["culprits"]
    assert [(c["device"], [v["flow"] for v in c["victims"]]) for c in culprits] == [
        ("slow", ["ram2->fast"])]  # the read data, traced back from its target
    jobs = {name: {job: r["summary"][job]["throughput_bytes_per_s"]["mean"]
                   for job in ("slow-reads", "fast-reads")}
            for name, r in (("cured", cured), ("plain", plain))}
    drain = next(n for n in scenario.nodes if n.name == "slow").params.drain.rate
    assert jobs["plain"]["fast-reads"] == pytest.approx(drain, rel=0.01)  # head-of-line
    assert jobs["cured"]["fast-reads"] > 5 * jobs["plain"]["fast-reads"]
    assert 0 < jobs["cured"]["slow-reads"] < drain
