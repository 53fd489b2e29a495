"""BB credit recovery (FC-FS-5 BB_SC_N; docs/faults.md, "BB credit
recovery"): negotiation, the login payload's field, and the closed forms of
when a lost R_RDY's and a lost frame's credit comes back."""

from __future__ import annotations

import dataclasses

import pytest

from fcsim.fc2 import els
from fcsim.fc2.credit_recovery import (
    BB_SCR,
    BB_SCS,
    CreditRecoveringPort,
    negotiated_bb_sc_n,
)
from fcsim.fc2.els_payload import login_bb_credit, login_bb_sc_n, login_of
from fcsim.fc2.login import ServiceParameters
from fcsim.fc2.recovering_port import RecoveringPort
from fcsim.runner import run_once
from fcsim.scenario.loader import read_document, scenario_from_document
from tests.credit_link import EXAMPLE, credit_link
from tests.fabric_text import SWITCH_MODEL, nodes, run, star, stream, table


def test_a_link_uses_the_larger_bb_sc_n_and_none_if_either_offers_none() -> None:
    assert negotiated_bb_sc_n(3, 5) == 5
    assert negotiated_bb_sc_n(0, 5) == negotiated_bb_sc_n(4, 0) == 0
    with pytest.raises(ValueError, match="0..15"):
        negotiated_bb_sc_n(16, 1)


def test_the_login_payload_carries_bb_sc_n_above_the_receive_data_field_size() -> None:
    params = dataclasses.replace(ServiceParameters(), bb_sc_n=5, rx_data_field=1024)
    payload = login_of(els.ELS_FLOGI, "host", params)
    assert login_bb_sc_n(payload) == 5
    assert int.from_bytes(payload[10:12], "big") & 0x0FFF == 1024
    assert login_bb_credit(payload) == params.bb_credit
    assert login_bb_sc_n(login_of(els.ELS_FLOGI, "host", ServiceParameters())) == 0


def test_ports_recover_credit_only_on_a_link_both_ends_offer_it_to() -> None:
    _, net, _ = credit_link(3)
    assert all(isinstance(n.port, CreditRecoveringPort) and n.port.modulus == 8
               for n in net.nodes.values())
    _, net, _ = credit_link(0)
    assert not any(isinstance(n.port, CreditRecoveringPort) for n in net.nodes.values())
    assert all(isinstance(n.port, RecoveringPort) for n in net.nodes.values())


@pytest.mark.parametrize("n", [1, 3, 5])
def test_a_lost_r_rdy_comes_back_at_the_bb_scr_after_its_checkpoint_interval(n: int) -> None:
    """The R_RDY of index i (from 0) is lost: the host's credit comes back when
    the BB_SCr the disk sends after its R_RDY number 2^n (floor(i / 2^n) + 1)
    arrives, and only then."""
    sim, net, line = credit_link(n)
    host, disk = net.nodes["host"].port, net.nodes["disk"].port
    m = 1 << n
    sim.run(0.3e-3)
    arrival = next(a for a in host._r_rdys if a > sim.now)  # the next R_RDY to arrive
    host.lose_r_rdys(arrival, arrival)
    sim.run(0.3e-3 + 4 * m * 5e-6 + 50e-6)
    sent = line.primitives["disk"]
    r_rdys = [start for name, start in sent if name == "R_RDY"]
    lost = min(range(len(r_rdys)),
               key=lambda i: abs(r_rdys[i] + host.word_time + host.delay - arrival))
    last = r_rdys[m * (lost // m + 1) - 1]  # the R_RDY that ends the checkpoint interval
    bb_scr = next(start for name, start in sent if name == BB_SCR and start >= last)
    assert host.recovered_at == [pytest.approx(bb_scr + host.word_time + host.delay,
                                               abs=1e-12)]
    assert host.recovery.credit_recovered == 1 and disk.recovery.frames_recovered == 0


@pytest.mark.parametrize("n", [1, 3, 5])
def test_a_lost_frames_credit_comes_back_at_the_bb_scs_after_its_checkpoint_interval(
        n: int) -> None:
    """The frame of index i (from 0) is lost (its SOF corrupted): the disk
    returns its R_RDY when the BB_SCs the host sends after its frame number
    2^n (floor(i / 2^n) + 1) arrives."""
    sim, net, line = credit_link(n)
    host, disk = net.nodes["host"].port, net.nodes["disk"].port
    m = 1 << n
    sim.run(0.3e-3)
    start, _ = line.frames["host"][-1]  # on its way: the cable takes 10 us
    lost = len(line.frames["host"]) - 1
    sim.call_later(start + host.delay - sim.now, lambda _: disk.lcf.corrupt(4))
    sim.run(0.3e-3 + 4 * m * 5e-6 + 50e-6)
    assert disk.lcf.stats.frames_lost == 1
    _, end = line.frames["host"][m * (lost // m + 1) - 1]
    bb_scs = next(s for name, s in line.primitives["host"] if name == BB_SCS and s >= end)
    assert disk.recovered_at == [pytest.approx(bb_scs + disk.word_time + disk.delay,
                                               abs=1e-12)]
    assert disk.recovery.frames_recovered == 1 and host.recovery.credit_recovered == 0


def test_without_recovery_the_lost_credit_stays_lost() -> None:
    """The same R_RDY lost on a link without BB_SC_N: the host's credit stays
    one short (until a Link Reset, E_D_TOV later)."""
    sim, net, _ = credit_link(0, count=100)
    host = net.nodes["host"].port
    sim.run(0.1e-3)
    arrival = next(a for a in host._r_rdys if a > sim.now)
    host.lose_r_rdys(arrival, arrival)
    sim.run(2e-3)
    assert host.current_credit() == host.credit_login - 1
    sim, net, _ = credit_link(3, count=100)
    host = net.nodes["host"].port
    sim.run(0.1e-3)
    arrival = next(a for a in host._r_rdys if a > sim.now)
    host.lose_r_rdys(arrival, arrival)
    sim.run(2e-3)
    assert host.current_credit() == host.credit_login


def test_the_example_recovers_every_credit_its_bursts_lose() -> None:
    """Every frame and R_RDY the bursts lost is recovered (but any lost after
    the last checkpoint), no link is reset, and the stream carries the line's
    rate less the payload of the frames lost; without BB_SC_N the host's
    credit runs out and the link stalls."""
    doc = read_document(EXAMPLE)
    result = run_once(scenario_from_document(doc, EXAMPLE), 1)
    ports = result["faults"]["ports"]
    host, disk = ports["host"], ports["disk"]
    assert host["resets"] == disk["resets"] == 0
    assert 0 <= host["r_rdy_lost"] - host["bb_credit_recovery"]["credit_recovered"] <= 1
    assert 0 <= disk["frames_lost"] - disk["bb_credit_recovery"]["frames_recovered"] <= 1
    from fcsim.fc0.speed import speed_named
    line = speed_named("4GFC").char_rate * 2048 / (2048 + 36 + 24)
    interval = 19e-3
    expected = line - disk["frames_lost"] * 2048 / interval
    assert result["workloads"]["write"]["throughput_bytes_per_s"] == pytest.approx(
        expected, rel=0.01)
    for node in doc["nodes"]:
        node["bb_sc_n"] = 0
    stalled = run_once(scenario_from_document(doc, EXAMPLE), 1)
    assert stalled["workloads"]["write"]["throughput_bytes_per_s"] < 0.5 * expected


FABRIC = ('topology = "fabric"\n' + run("0.3 ms")
          + table("[[switches]]", {"name": "sw", "model": SWITCH_MODEL, "bb_sc_n": 4})
          + table("[[nodes]]", {"name": "host", "bb_sc_n": 2}) + nodes("disk")
          + star("sw", ("host", "disk"), "4GFC") + stream("w", "host", "disk", size="8 KiB")
          + table("[[faults]]", {"at": "0.29 ms", "kind": "link-down", "link": "link1"}))


class Logins:
    """Trace sink keeping the login payloads (FLOGI, PLOGI, their LS_ACC) by sending port."""

    def __init__(self) -> None:
        self.payloads: list[tuple[str, bytes]] = []

    def frame(self, time, port, frame, start, end) -> None:  # noqa: ANN001
        ulp = frame.sequence.ulp if frame.sequence is not None else None
        if isinstance(ulp, bytes) and len(ulp) == els.LOGIN_PAYLOAD:
            self.payloads.append((port.name, ulp))

    def primitive(self, time, port, name, start) -> None:  # noqa: ANN001
        """Primitives are not needed here."""

    def state(self, time, port, change) -> None:  # noqa: ANN001
        """Nor are state changes."""


def test_a_fabric_negotiates_bb_sc_n_per_link_and_its_logins_carry_it() -> None:
    """The switch offers 4 (FLOGI's LS_ACC), host 2 (its FLOGI and PLOGI),
    disk 0: host's link recovers credit every 16 frames, disk's not at all."""
    import tomllib

    from fcsim.build import BUILDERS

    scenario = scenario_from_document(tomllib.loads(FABRIC), "fabric.toml")
    sink = Logins()
    result = run_once(scenario, 1, [sink])
    offers: dict[tuple[str, int], list[int]] = {}
    for name, ulp in sink.payloads:
        offers.setdefault((name, ulp[0]), []).append(login_bb_sc_n(ulp))
    assert offers[("host", els.ELS_FLOGI)] == [2]
    assert set(offers[("host", els.ELS_PLOGI)]) == {2}  # to the name server and the disk
    assert offers[("disk", els.ELS_FLOGI)] == [0]
    # each F_Port answers its N_Port's FLOGI first (4), then the name server's
    # PLOGI (no link login: 0), and passes on the peer's PLOGI LS_ACC
    assert offers[("sw:0", els.ELS_ACC)][:2] == offers[("sw:1", els.ELS_ACC)][:2] == [4, 0]
    ports = result["faults"]["ports"]
    assert ports["host"]["bb_credit_recovery"]["bb_sc_n"] == 4
    assert ports["sw:0"]["bb_credit_recovery"]["bb_scr_tx"] > 0
    assert "bb_credit_recovery" not in ports["disk"] and "bb_credit_recovery" not in ports["sw:1"]
    from fcsim.engine.simulation import Simulation
    net = BUILDERS["fabric"](Simulation(1), scenario)
    assert isinstance(net.nodes["host"].port, CreditRecoveringPort)
    assert not isinstance(net.nodes["disk"].port, CreditRecoveringPort)


def test_bb_sc_n_out_of_range_or_on_a_loop_is_refused_in_one_line() -> None:
    import copy

    from fcsim.schema.errors import ScenarioError

    doc = read_document(EXAMPLE)
    bad = copy.deepcopy(doc)
    bad["nodes"][0]["bb_sc_n"] = 16
    with pytest.raises(ScenarioError, match=r"nodes\[0\]\.bb_sc_n: given 16; an integer 0\.\.15"):
        scenario_from_document(bad, EXAMPLE)
    loop = read_document("scenarios/loop-fairness.toml")
    loop["nodes"][0]["bb_sc_n"] = 3
    with pytest.raises(ScenarioError, match=r"bb_sc_n.*not on a loop"):
        scenario_from_document(loop, "loop.toml")


@pytest.mark.parametrize("n", [0, 3])
def test_a_credit_limited_link_loses_one_credits_share_until_its_checkpoint(n: int) -> None:
    """50 km with 8 credits: the host sends 8 frames per round trip. One R_RDY
    lost leaves 7 per round trip, 7/8 of the rate, for good without BB_SC_N;
    with BB_SC_N = 3 only until the next BB_SCr (8 R_RDYs later, within a
    round trip and a half), then the full rate again."""
    credit = 8
    sim, net, _ = credit_link(n, length="50 km", credit=credit)
    host, disk = net.nodes["host"].port, net.nodes["disk"].port

    def rate(start: float, end: float) -> float:
        sim.run(start)
        before = disk.stats.frames_rx
        sim.run(end)
        return (disk.stats.frames_rx - before) / (end - start)

    full = rate(2e-3, 6e-3)
    arrival = next(a for a in host._r_rdys if a > sim.now)
    host.lose_r_rdys(arrival, arrival)
    after = rate(8e-3, 16e-3)
    if n:
        assert after == pytest.approx(full, rel=0.01)
        # 8 R_RDYs come back per round trip: the interval's last within one
        assert len(host.recovered_at) == 1
        assert host.recovered_at[0] - arrival < 2 * host.delay + 8 * 5e-6
    else:
        assert after == pytest.approx(full * (credit - 1) / credit, rel=0.01)


def test_a_generated_fabric_gives_every_switch_its_bb_sc_n() -> None:
    import tomllib

    from tests.unit.test_isl_trunk import GENERATED

    doc = tomllib.loads(GENERATED)
    doc["fabric"]["bb_sc_n"] = 6
    scenario = scenario_from_document(doc, "gen.toml")
    assert [s.bb_sc_n for s in scenario.switches] == [6, 6]


def test_the_ladder_names_each_checkpoint() -> None:
    """`fcsim explain` of the example shows the first BB_SCs after 8 frames and
    the first BB_SCr after 8 R_RDYs, each with what it counts."""
    import contextlib
    import io

    from fcsim.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["explain", EXAMPLE]) == 0
    lines = out.getvalue().splitlines()
    scs = next(i for i, line in enumerate(lines) if "BB_SCs: 8 frames sent since the last" in line)
    assert sum("host ---> disk" in line and "data" in line for line in lines[:scs]) == 8
    assert any("disk ---> host" in line and "BB_SCr: 8 R_RDYs sent since the last" in line
               for line in lines)
