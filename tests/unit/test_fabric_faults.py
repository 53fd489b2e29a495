"""Faults in a fabric: a failed ISL or switch makes FSPF route around it and
traffic moves to the paths left; an N_Port that leaves or comes back is
announced by RSCN to the N_Ports registered for it; zones limit what the
name server shows."""

from __future__ import annotations

import dataclasses
import tomllib
from typing import Any

import pytest

from fcsim.build import build_fabric, build_workloads
from fcsim.engine.simulation import Simulation
from fcsim.fabric.addressing import NAME_SERVER
from fcsim.fabric.fspf import DEFAULT_TIMERS, FspfTimers
from fcsim.fabric.switch_model import load_switch_model
from fcsim.faults.config import FaultConfig
from fcsim.faults.injector import install
from fcsim.fc2 import els
from fcsim.fc2 import header as h
from fcsim.fc2.els_payload import gid_ft_ports, port_wwn
from fcsim.fc2.port_states import LOS_ASSERT
from fcsim.runner import run_once
from fcsim.scenario.loader import ScenarioError, scenario_from_document
from fcsim.scenario.workload_model import StreamConfig
from tests.builders import fabric
from tests.property.test_fabric_invariants import CreditReturnChecker

NODES = {"h0": "e1:0", "h1": "e1:1", "d0": "e2:0", "d1": "e2:1"}
STREAMS = (StreamConfig("w0", "h0", "d0", 16384, outstanding=2),
           StreamConfig("w1", "h1", "d1", 16384, outstanding=2))
PORT_BASED = dataclasses.replace(load_switch_model("generic-nonblocking"), routing="port-based")
"""Port-based routing sends h0 (port 0) by c1 and h1 (port 1) by c2: a core each."""
SWITCHES = {"e1": PORT_BASED, "e2": PORT_BASED, "c1": PORT_BASED, "c2": PORT_BASED}
ISLS = (("e1:10", "c1:0"), ("c1:1", "e2:10"), ("e1:11", "c2:0"), ("c2:1", "e2:11"))


def scenario(faults: tuple[FaultConfig, ...], duration: float = 0.03,
             fspf: FspfTimers = DEFAULT_TIMERS):
    """Two edge switches joined through two cores, two streams across."""
    base = fabric(NODES, STREAMS, duration, switches=SWITCHES, isls=ISLS, speed="2GFC",
                  length=100.0)
    return dataclasses.replace(base, faults=faults, fspf=fspf)


def crossing(result: dict[str, Any], core: str) -> int:
    return result["switches"][core]["frames_forwarded"]


def test_a_failed_isl_makes_fspf_route_around_it() -> None:
    result = run_once(scenario((FaultConfig(0.005, "link-down", link="isl0"),)), 1)
    fabric_faults = result["faults"]["fabric"]
    reroute = fabric_faults["reroutes"][0]
    assert reroute["at_s"] == pytest.approx(0.005 + LOS_ASSERT)  # loss of signal asserted
    assert reroute["isls_in_use"] == 3
    record = result["faults"]["schedule"][0]
    assert record["detection"] == "e1:10: loss of signal"
    assert "routes recomputed (FSPF): 3 of 4 ISLs in use" in record["events"][-1]
    # before, each stream had a core to itself; after, both share c2's ISLs: half as much
    rates = record["throughput_bytes_per_s"]
    assert rates["during"] == pytest.approx(rates["before"] / 2, rel=0.05)
    assert all(w["throughput_bytes_per_s"] > 50e6 for w in result["workloads"].values())


@pytest.mark.parametrize("min_ls_interval", [0.001, 5.0])
def test_traffic_moves_off_a_failed_switch_and_back(min_ls_interval: float) -> None:
    """The edges reported the core's loss in their LSRs at 5 ms; they report
    its return no sooner than Min_LS_Interval after (and the others take it
    no sooner than Min_LS_Arrival after the previous instance): 1 ms (and 0),
    within the run; FC-SW's 5 s (and 1 s), after it, so the traffic stays on
    c2 and service over c1 is not restored by the end of the run."""
    sim = Simulation(1)
    sc = scenario((FaultConfig(0.005, "switch-failure", switch="c1", duration=0.01),),
                  duration=0.04, fspf=FspfTimers(
                      min_ls_interval=min_ls_interval,
                      min_ls_arrival=0.0 if min_ls_interval < 1 else 1.0))
    net = build_fabric(sim, sc)
    build_workloads(sim, sc, net)
    run = install(sim, sc, net)
    c1, c2 = net.switches["c1"], net.switches["c2"]
    sim.run(0.006)
    before = c1.stats.forwarded, c2.stats.forwarded
    sim.run(0.014)
    assert c1.stats.forwarded == before[0]  # nothing through the failed core
    assert c2.stats.forwarded > before[1] + 500
    sim.run(0.04)
    record = run.incidents.records[0]
    assert run.fabric.reroutes[-1]["isls_in_use"] == (4 if min_ls_interval < 0.01 else 2)
    if min_ls_interval < 0.01:  # restored when the last switch routes over c1 again
        assert record.recovered == run.fabric.reroutes[-1]["at_s"] > 0.015 + 5e-3  # OLS 5 ms
    else:
        assert record.recovered is None
    assert (c1.stats.forwarded > before[0]) == (min_ls_interval < 0.01)
    assert run.fabric.stats.frames_lost + sum(p.lcf.stats.frames_lost
                                              for p in run.ports.values()) > 0


class Requests:
    """Trace sink keeping (time, S_ID, D_ID, command) of every ELS request sent
    by an N_Port (as its first frame leaves)."""

    def __init__(self) -> None:
        self.seen: list[tuple[float, int, int, int]] = []

    def frame(self, time: float, port: Any, frame: Any, start: float, end: float) -> None:
        if (frame.r_ctl == h.R_CTL_ELS_REQUEST and frame.seq_cnt == 0
                and port.name in NODES):
            self.seen.append((time, frame.s_id, frame.d_id, frame.sequence.ulp[0]))

    def primitive(self, time: float, port: Any, name: str, start: float) -> None:
        """Not needed."""

    def state(self, time: float, port: Any, change: str) -> None:
        """Not needed."""


def test_an_n_port_that_leaves_and_returns_is_announced_by_rscn() -> None:
    requests = Requests()
    result = run_once(scenario((FaultConfig(0.005, "link-down", link="l-d0"),
                                FaultConfig(0.008, "link-up", link="l-d0"))), 1, [requests])
    d0 = int(result["nodes"]["d0"]["port_id"], 16)
    h0 = int(result["nodes"]["h0"]["port_id"], 16)
    later = [(s, d, c) for t, s, d, c in requests.seen if t > 0.008]
    assert (0, 0xFFFFFE, els.ELS_FLOGI) in later  # d0 logs in again (S_ID 0, FC-LS)
    assert (d0, 0xFFFFFD, els.ELS_SCR) in later  # and registers for state changes
    assert (h0, d0, els.ELS_PLOGI) in later  # and h0, told by RSCN, logs in with it
    fabric_faults = result["faults"]["fabric"]
    assert fabric_faults["rscn_sent"] == 2 * 3  # left, then back: to the three others
    events = result["faults"]["schedule"][0]["events"]
    assert any("RSCN for 020000 (e2:0 left the fabric) to 3 N_Ports" in e for e in events)
    assert any("RSCN for 020000 (d0 logged in again) to 3 N_Ports" in e for e in events)
    assert result["faults"]["schedule"][1]["recovered_s"] is not None
    assert result["workloads"]["w0"]["throughput_bytes_per_s"] > 50e6


def test_payload_is_conserved_with_the_fabric_s_losses() -> None:
    sim = Simulation(1)
    sc = scenario((FaultConfig(0.003, "link-down", link="isl0"),
                   FaultConfig(0.004, "link-down", link="l-d1"),
                   FaultConfig(0.006, "link-up", link="l-d1"),
                   FaultConfig(0.007, "switch-failure", switch="c2", duration=0.002)))
    sc = dataclasses.replace(sc, workloads=tuple(dataclasses.replace(w, count=150)
                                                 for w in sc.workloads))
    net = build_fabric(sim, sc)
    build_workloads(sim, sc, net)
    run = install(sim, sc, net)
    sim.run(0.1)
    sent = sum(n.stats.payload_tx for n in net.nodes.values())
    received = sum(n.stats.payload_rx + n.stats.dropped_payload + n.stats.discarded_payload
                   + n.stats.refused_payload for n in net.nodes.values())
    lost = run.fabric.stats.payload_lost + sum(p.lcf.stats.payload_lost
                                               for p in run.ports.values())
    discarded = sum(s.stats.discarded_payload + s.stats.refused_payload
                    for s in net.switches.values())
    services = sum(s.stats.service_payload_in - s.stats.service_payload_out
                   for s in net.switches.values())
    assert sent == received + lost + discarded + services


ZONED = """\
topology = "fabric"
[run]
duration = "5 ms"
[[switches]]
name = "sw"
model = "generic-nonblocking"
[[nodes]]
name = "host"
[[nodes]]
name = "disk"
[[nodes]]
name = "tape"
[[links]]
ends = ["host", "sw:0"]
speed = "2GFC"
[[links]]
ends = ["disk", "sw:1"]
speed = "2GFC"
[[links]]
ends = ["tape", "sw:2"]
speed = "2GFC"
[[workloads]]
type = "stream"
from = "host"
to = "disk"
size = "8 KiB"
"""


def zoned(zones: list[dict[str, Any]]) -> Any:
    document = tomllib.loads(ZONED)
    document["zones"] = zones
    return scenario_from_document(document, "zoned.toml")


class NameServerAnswers:
    """Trace sink keeping the port lists of the GID_FT accepts switches send."""

    def __init__(self) -> None:
        self.seen: dict[int, list[int]] = {}

    def frame(self, time: float, port: Any, frame: Any, start: float, end: float) -> None:
        if frame.s_id == NAME_SERVER and frame.type == h.TYPE_CT:
            self.seen[frame.d_id] = gid_ft_ports(frame.sequence.ulp)

    def primitive(self, time: float, port: Any, name: str, start: float) -> None:
        """Not needed."""

    def state(self, time: float, port: Any, change: str) -> None:
        """Not needed."""


def test_zones_limit_what_the_name_server_shows() -> None:
    sc = zoned([{"name": "storage", "members": ["host", port_wwn("disk")]},
                {"name": "backup", "members": ["tape"]}])
    assert sc.zones == (("storage", ("host", "disk")), ("backup", ("tape",)))
    answers = NameServerAnswers()
    result = run_once(sc, 1, [answers])
    host, disk, tape = (result["nodes"][n]["port_id"] for n in ("host", "disk", "tape"))
    assert answers.seen == {int(host, 16): [int(host, 16), int(disk, 16)],
                            int(disk, 16): [int(host, 16), int(disk, 16)],
                            int(tape, 16): [int(tape, 16)]}
    assert result["zoning"] == {"zones": {"storage": ["host", "disk"], "backup": ["tape"]},
                                "visible": {"host": ["disk"], "disk": ["host"], "tape": []}}


@pytest.mark.parametrize(("zones", "line"), [
    ([{"name": "z", "members": ["host", "tape"]}],
     "zoned.toml: workloads[0]: from 'host' to 'disk'; two N_Ports that share a zone (the "
     "name server shows an N_Port only those)"),
    ([{"name": "z", "members": ["host", "disk", "printer"]}],
     "zoned.toml: zones[0].members[2]: given 'printer'; an N_Port name or its port WWN: "
     f"'host' ({port_wwn('host')}), 'disk' ({port_wwn('disk')}), 'tape' ({port_wwn('tape')})"),
    ([{"name": "z", "members": ["host", "disk"]}, {"name": "z", "members": ["tape"]}],
     "zoned.toml: zones[1].name: given 'z'; a name not used by zones[0]"),
])
def test_bad_zones_are_refused_in_one_line(zones: list[dict[str, Any]], line: str) -> None:
    with pytest.raises(ScenarioError) as info:
        zoned(zones)
    assert str(info.value).splitlines() == [line]


def test_no_r_rdy_before_its_frame_is_in_across_faults() -> None:
    """Through ISL and N_Port link failures and a switch failure, cut-through
    switches (buffers emptied by a reset, R_RDYs of a port not Active
    dropped) still return no credit before the frame that held it is in."""
    sim = Simulation(1)
    checker = CreditReturnChecker()
    sim.sinks.append(checker)
    sc = scenario((FaultConfig(0.003, "link-down", link="isl0"),
                   FaultConfig(0.004, "link-down", link="l-d1"),
                   FaultConfig(0.006, "link-up", link="l-d1"),
                   FaultConfig(0.007, "switch-failure", switch="c2", duration=0.002)))
    net = build_fabric(sim, sc)
    build_workloads(sim, sc, net)
    install(sim, sc, net)
    sim.run(0.012)
    assert sum(len(sent) for sent in checker.r_rdys.values()) > 1000
    assert checker.early() == []
