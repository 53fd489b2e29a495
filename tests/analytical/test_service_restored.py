"""When service is restored after a fault in a fabric, against its closed form.

A switch that fails and powers on is Active again at both ends of its ISLs a
few milliseconds after its power returns (Link Initialization), but traffic
cannot cross it until every switch routes over its ISLs again: its
neighbours reported the loss of those ISLs in their LSRs when they detected
it, and may report them again only Min_LS_Interval later (FC-SW-7 FSPF);
each neighbour routes across the switch once the other's new LSR has been
flooded to it. So on a line of switches e1 - c - e2, c failed at t_f for D,

    restored = t_f + t_LOS + Min_LS_Interval + hop(e2 -> c) + hop(c -> e1)

(when that is after the ports are Active again), each hop an LSU carrying
one link descriptor at the ISL's line rate plus the cable's delay. The same
holds for an ISL pulled out and put back. The stream across c delivers
nothing before it; its first frame arrives after it, once the frames the
host was sending of a sequence whose head was discarded (at most a
sequence) are out, across the path: within

    restored + 2 d_ISL < first <= restored + (n + 4) (F + 6 W) + 2 d_ISL + 2 d + 3 L

for n frames of a sequence of frame time F, fill word time W (six fill
words between frames), cables of delay d_ISL and d, and the switches'
routing latency L."""

from __future__ import annotations

import dataclasses

import pytest

from fcsim.build import build_fabric, build_workloads
from fcsim.engine.simulation import Simulation
from fcsim.fabric.fspf import FspfTimers, lsu_bytes
from fcsim.fabric.switch_model import load_switch_model
from fcsim.faults.config import FaultConfig
from fcsim.faults.injector import install
from fcsim.fc0.cable import DEFAULT_PROPAGATION
from fcsim.fc0.speed import speed_named
from fcsim.fc2.frame import frame_chars
from fcsim.fc2.port import Port
from fcsim.fc2.port_states import LOS_ASSERT
from fcsim.scenario.workload_model import StreamConfig
from tests.builders import fabric

ISL_LENGTH = 2_000.0
"""Metres of each ISL (10 us one way)."""
LENGTH = 5.0
"""Metres of each N_Port's link."""
SIZE, FRAME = 16384, 2048
"""The stream's sequence and each frame's payload, bytes."""
SPEED = "2GFC"
LINE = ("e1:10", "c:0"), ("c:1", "e2:10")
"""e1 - c - e2: the only path from h0 to d0 crosses c."""


def line(faults: tuple[FaultConfig, ...], duration: float, timers: FspfTimers,
         workloads: bool = True):
    """h0 on e1 streams to d0 on e2 across c."""
    streams = (StreamConfig("w", "h0", "d0", SIZE, outstanding=2),) if workloads else ()
    base = fabric({"h0": "e1:0", "d0": "e2:0"}, streams, duration,
                  switches={"e1": "generic-nonblocking", "c": "generic-nonblocking",
                            "e2": "generic-nonblocking"},
                  isls=LINE, speed=SPEED, length=LENGTH, isl_length=ISL_LENGTH)
    return dataclasses.replace(base, faults=faults, fspf=timers)


def hop(links: int = 1) -> float:
    """An LSU of *links* link descriptors over one ISL, s."""
    return lsu_bytes(links) * speed_named(SPEED).char_time + ISL_LENGTH * DEFAULT_PROPAGATION


def run(faults: tuple[FaultConfig, ...], duration: float, timers: FspfTimers,
        workloads: bool = True):
    sim = Simulation(1)
    sc = line(faults, duration, timers, workloads)
    net = build_fabric(sim, sc)
    build_workloads(sim, sc, net)
    return sim, net, install(sim, sc, net)


@pytest.mark.parametrize("kind", ["switch-failure", "link-down"])
def test_service_is_restored_when_the_routes_cross_again(kind: str) -> None:
    timers = FspfTimers(min_ls_interval=0.04, min_ls_arrival=0.0)
    at, duration = 0.005, 0.01
    fault = (FaultConfig(at, kind, switch="c", duration=duration) if kind == "switch-failure"
             else FaultConfig(at, kind, link="isl1", duration=duration))
    sim, net, faults = run((fault,), 0.08, timers)
    restored = at + LOS_ASSERT + timers.min_ls_interval + 2 * hop()
    d0 = net.nodes["d0"]
    sim.run(at + LOS_ASSERT + 1e-4)
    stopped = d0.stats.payload_rx
    sim.run(restored - 1e-9)
    record = faults.incidents.records[0]
    assert record.recovered is None  # the ports are Active since ~20 ms, no route yet
    assert d0.stats.payload_rx == stopped  # and nothing crossed
    sim.run(restored + 1e-9)
    assert record.recovered == pytest.approx(restored, abs=1e-9)
    assert "every switch routes and forwards over every ISL up" in record.recovery
    first = restored
    while d0.stats.payload_rx == stopped and first < restored + 1e-3:
        first += 1e-7
        sim.run(first)
    rate = speed_named(SPEED)
    frame = frame_chars(FRAME) * rate.char_time + Port.GAP_WORDS * rate.word_time
    d_isl, d = ISL_LENGTH * DEFAULT_PROPAGATION, LENGTH * DEFAULT_PROPAGATION
    latency = load_switch_model("generic-nonblocking").routing_latency
    assert restored + 2 * d_isl < first <= (restored + (SIZE // FRAME + 4) * frame + 2 * d_isl
                                            + 2 * d + 3 * latency + 1e-7)  # (the step)


def test_with_fc_sw_timers_service_waits_min_ls_interval() -> None:
    """FC-SW's 5 s Min_LS_Interval: the core is back at the ports after ~10 ms
    but service only about 5 s after the fault (no traffic: FSPF alone)."""
    timers = FspfTimers()
    at = 0.005
    sim, _, faults = run((FaultConfig(at, "switch-failure", switch="c", duration=0.01),),
                         6.0, timers, workloads=False)
    sim.run(6.0)
    record = faults.incidents.records[0]
    assert record.recovered == pytest.approx(
        at + LOS_ASSERT + timers.min_ls_interval + 2 * hop(), abs=1e-9)


def test_a_fault_that_ends_before_the_routes_cross_is_not_recovered() -> None:
    timers = FspfTimers(min_ls_interval=0.04, min_ls_arrival=0.0)
    sim, _, faults = run((FaultConfig(0.005, "switch-failure", switch="c", duration=0.01),),
                         0.03, timers)
    sim.run(0.03)
    assert faults.incidents.records[0].recovered is None


def test_in_order_delivery_restores_service_when_its_pause_ends() -> None:
    """A switch that delivers in order holds the frames towards a domain whose
    next hops changed for its drop latency (docs/faults.md, "In-order
    delivery"): the last route change, at the convergence above, pauses e1's
    forwarding towards d0's domain, so service is restored that much later,
    and the stream's first frame comes after it."""
    timers = FspfTimers(min_ls_interval=0.04, min_ls_arrival=0.0)
    at, drop_latency = 0.005, 0.002
    sim = Simulation(1)
    base = line((FaultConfig(at, "switch-failure", switch="c", duration=0.01),), 0.08, timers)
    sc = dataclasses.replace(base, switches=tuple(
        dataclasses.replace(s, in_order=drop_latency) for s in base.switches))
    net = build_fabric(sim, sc)
    build_workloads(sim, sc, net)
    faults = install(sim, sc, net)
    converged = at + LOS_ASSERT + timers.min_ls_interval + 2 * hop()
    d0 = net.nodes["d0"]
    sim.run(converged - 1e-9)
    held = d0.stats.payload_rx
    sim.run(converged + drop_latency - 1e-9)
    record = faults.incidents.records[0]
    assert record.recovered is None
    sim.run(converged + drop_latency + 1e-9)
    assert record.recovered == pytest.approx(converged + drop_latency, abs=1e-9)
    assert "forwards" in record.recovery
    assert d0.stats.payload_rx == held  # nothing delivered before the pause's end
    sim.run(0.08)
    assert d0.stats.payload_rx > held


@pytest.mark.parametrize("interval", [0.0, 0.04])
def test_service_waits_for_the_later_of_the_logins_and_the_routes(interval: float) -> None:
    """e2 fails, with d0 on it: d0 logs in again (FLOGI, the name server,
    PLOGI to h0 across the fabric) once e2's port is Active, and e1 routes to
    e2 again once FSPF has converged. Without Min_LS_Interval the routes come
    first and service is restored when d0 is logged in (to the step of 0.1 us
    it is found at); with 40 ms it is c's next LSR (c detected the loss of e2
    and may report it back Min_LS_Interval later) flooded one hop, after the
    login."""
    timers = FspfTimers(min_ls_interval=interval, min_ls_arrival=0.0)
    at, step = 0.005, 1e-7
    sim, _, faults = run((FaultConfig(at, "switch-failure", switch="e2", duration=0.01),),
                         0.08, timers)
    d0 = faults.recoveries["d0"]
    now = 0.02  # e2's ports enter Active just after: OLS for 5 ms from its power-on
    sim.run(now)
    while d0.down or d0.held is not None:
        now += step
        sim.run(now)
    logged_in = now
    sim.run(0.08)
    record = faults.incidents.records[0]
    routes = max(c["at_s"] for c in faults.fabric.reroutes)
    assert record.recovered is not None
    if interval:
        # c detects at t_f + t_LOS; its next LSR, of its two ISLs, reaches e1 and
        # e2 in a hop (e1's E_Port never changed: its LSR did not either)
        assert record.recovered == pytest.approx(at + LOS_ASSERT + interval + hop(2),
                                                 abs=1e-9)
        assert record.recovered == routes > logged_in
    else:
        assert logged_in - step < record.recovered <= logged_in
        assert record.recovered > routes
