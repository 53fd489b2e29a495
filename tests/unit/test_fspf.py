"""FSPF's timers (FC-SW): after an ISL fails the switch at its end routes
around it at once and the others when its Link State Update reaches them;
a change within Min_LS_Interval of a switch's previous LSR waits for it, and
an LSR instance within Min_LS_Arrival of the previous is discarded and sent
again after Rxmt_Interval. Each time is checked against its closed form,
computed from the model's own parameters."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from fcsim.build import build_fabric, build_workloads
from fcsim.engine.simulation import Simulation
from fcsim.fabric.fspf import (
    DEAD_INTERVAL,
    HELLO_INTERVAL,
    MIN_LS_ARRIVAL,
    MIN_LS_INTERVAL,
    RXMT_INTERVAL,
    FspfTimers,
    lsu_bytes,
)
from fcsim.faults.config import FaultConfig
from fcsim.faults.injector import install
from fcsim.fc2.port_states import LOS_ASSERT
from fcsim.scenario.loader import ScenarioError, scenario_from_document
from fcsim.scenario.workload_model import StreamConfig
from tests.builders import fabric

NODES = {"h0": "e1:0", "d0": "e2:0"}
STREAMS = (StreamConfig("w0", "h0", "d0", 16384, outstanding=2),)
SWITCHES = {"e1": "generic-nonblocking", "e2": "generic-nonblocking",
            "c1": "generic-nonblocking", "c2": "generic-nonblocking"}
# isl0 e1-c1, isl1 c1-e2, isl2 e1-c2, isl3 c2-e2
ISLS = (("e1:10", "c1:0"), ("c1:1", "e2:10"), ("e1:11", "c2:0"), ("c2:1", "e2:11"))


def simulate(faults: tuple[FaultConfig, ...], timers: FspfTimers, until: float) -> Any:
    sim = Simulation(1)
    sc = dataclasses.replace(fabric(NODES, STREAMS, until, switches=SWITCHES, isls=ISLS,
                                    speed="2GFC", length=100.0), faults=faults, fspf=timers)
    net = build_fabric(sim, sc)
    build_workloads(sim, sc, net)
    run = install(sim, sc, net)
    sim.run(until)
    return net, run


def hop(net: Any, key: str, switch: str, links: int) -> float:
    """An LSU's time over ISL *key* from *switch*: its frame, then the cable."""
    port = net.isl_ends[key][switch].port
    return lsu_bytes(links) * port.char_time + port.delay


def computations(run: Any, switch: str) -> list[dict[str, Any]]:
    return [c for c in run.fabric.reroutes if c["switch"] == switch]


def test_fc_sw_timer_values() -> None:
    assert (HELLO_INTERVAL, DEAD_INTERVAL) == (20.0, 80.0)
    assert (MIN_LS_INTERVAL, MIN_LS_ARRIVAL, RXMT_INTERVAL) == (5.0, 1.0, 5.0)
    assert FspfTimers() == FspfTimers(5.0, 1.0, 5.0, 0.0)


def test_the_far_switch_reroutes_when_the_lsu_arrives() -> None:
    t0 = 0.005
    net, run = simulate((FaultConfig(t0, "link-down", link="isl0"),), FspfTimers(), 0.008)
    detected = t0 + LOS_ASSERT
    # the ends of the pulled ISL route around it as they detect it
    assert computations(run, "e1")[0]["at_s"] == pytest.approx(detected, abs=1e-12)
    assert computations(run, "c1")[0]["at_s"] == pytest.approx(detected, abs=1e-12)
    # e2 hears first from c1 (its LSR now lists isl1 alone), one hop away
    far = computations(run, "e2")[0]
    assert far["at_s"] == pytest.approx(detected + hop(net, "isl1", "c1", 1), abs=1e-12)
    assert far["isls_in_use"] == 3
    # c2 hears from e1 (its LSR lists isl2 alone), one hop away
    assert computations(run, "c2")[0]["at_s"] == pytest.approx(
        detected + hop(net, "isl2", "e1", 1), abs=1e-12)
    assert run.fabric.fspf.lsus_discarded == 0


def test_a_change_within_min_ls_interval_waits_for_it() -> None:
    """The ISL comes back within Min_LS_Interval of its ends' last LSRs: they
    report it at last origination + Min_LS_Interval, and e2 routes over it
    again when e1's LSR, two hops away, reaches it."""
    interval, t0, back = 0.003, 0.005, 0.006
    timers = FspfTimers(min_ls_interval=interval, min_ls_arrival=0.0)
    net, run = simulate((FaultConfig(t0, "link-down", link="isl0"),
                         FaultConfig(back, "link-up", link="isl0")), timers, 0.012)
    detected = t0 + LOS_ASSERT
    both = [c for c in computations(run, "e2") if c["isls_in_use"] == 4]
    assert both, "e2 never routed over isl0 again"
    # e1's LSR (isl0 and isl2) takes two hops either way; c1's (isl0, isl1) one
    via_c1 = hop(net, "isl0", "e1", 2) + hop(net, "isl1", "c1", 2)
    via_c2 = hop(net, "isl2", "e1", 2) + hop(net, "isl3", "c2", 2)
    assert both[0]["at_s"] == pytest.approx(detected + interval + min(via_c1, via_c2),
                                            abs=1e-12)
    # e1 saw isl0 Active again well before, but had to wait to report it
    assert any(back < c["at_s"] < detected + interval for c in computations(run, "e1"))


def test_an_lsr_within_min_ls_arrival_is_sent_again_after_rxmt_interval() -> None:
    """As above, Min_LS_Arrival longer than the outage: e2 discards the second
    instance of c1's LSR (one hop) and each copy c1 sends again Rxmt_Interval
    after the previous, until one comes Min_LS_Arrival after the first."""
    interval, arrival, rxmt, t0, back = 0.003, 0.01, 0.004, 0.005, 0.006
    timers = FspfTimers(min_ls_interval=interval, min_ls_arrival=arrival, rxmt_interval=rxmt)
    net, run = simulate((FaultConfig(t0, "link-down", link="isl0"),
                         FaultConfig(back, "link-up", link="isl0")), timers, 0.03)
    detected = t0 + LOS_ASSERT
    first = detected + hop(net, "isl1", "c1", 1)  # c1's LSR without isl0
    second = detected + interval + hop(net, "isl1", "c1", 2)  # with it again
    copies = 0
    while second + copies * rxmt - first < arrival:
        copies += 1
    assert copies > 0 and run.fabric.fspf.lsus_discarded >= copies
    assert run.fabric.fspf.accepted("e2", "c1") == pytest.approx(second + copies * rxmt,
                                                                abs=1e-12)


def test_the_spf_hold_time_spaces_a_switch_s_computations() -> None:
    hold = 0.002
    net, run = simulate((FaultConfig(0.005, "link-down", link="isl0"),
                         FaultConfig(0.0055, "link-down", link="isl3")),
                        FspfTimers(spf_hold_time=hold), 0.012)
    for switch in ("e1", "e2", "c1", "c2"):
        times = [c["at_s"] for c in computations(run, switch)]
        assert all(b - a >= hold - 1e-12 for a, b in zip(times, times[1:], strict=False))
    assert len(computations(run, "e2")) >= 2


def test_fspf_outside_a_fabric_is_refused() -> None:
    doc = {"name": "x", "topology": "point-to-point", "fspf": {},
           "nodes": [{"name": "a"}, {"name": "b"}], "links": [{"ends": ["a", "b"]}],
           "run": {"duration": "1 ms"}}
    with pytest.raises(ScenarioError, match=r"fspf.*topology = 'fabric'"):
        scenario_from_document(doc, "case.toml")


def test_a_negative_timer_is_refused() -> None:
    doc = {"name": "x", "topology": "fabric", "fspf": {"min_ls_interval": "-1 s"},
           "switches": [{"name": "s", "model": "generic-nonblocking"}],
           "run": {"duration": "1 ms"}}
    with pytest.raises(ScenarioError, match=r"fspf.min_ls_interval"):
        scenario_from_document(doc, "case.toml")
