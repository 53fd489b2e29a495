"""FSPF converges: after any schedule of ISL pulls and put-backs, once the
updates have had time to flood, every switch routes over exactly the ISLs
whose two ends are up, and no switch computes routes around a failure
before it could have heard of it (its own detection, or a neighbour's plus
at least one hop)."""

from __future__ import annotations

import dataclasses
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from fcsim.build import build_fabric, build_workloads
from fcsim.engine.simulation import Simulation
from fcsim.fabric.fspf import FspfTimers
from fcsim.faults.config import FaultConfig
from fcsim.faults.injector import install
from fcsim.fc2.port_states import LOS_ASSERT
from tests.builders import fabric

SWITCHES = {"e1": "generic-nonblocking", "e2": "generic-nonblocking",
            "c1": "generic-nonblocking", "c2": "generic-nonblocking"}
ISLS = (("e1:10", "c1:0"), ("c1:1", "e2:10"), ("e1:11", "c2:0"), ("c2:1", "e2:11"),
        ("c1:2", "c2:2"))

pulls = st.lists(st.tuples(st.integers(0, len(ISLS) - 1), st.integers(1, 20),
                           st.integers(1, 20)), min_size=1, max_size=4)


def _pulled(schedule: list[tuple[int, int, int]]) -> tuple[list[FaultConfig], float]:
    """The link-down faults of *schedule* ((ISL, start ms, length ms) each; a
    pull while that cable is still out, or within 1 ms of its return, is
    left out) and when the last cable is back, plus 1 ms, s."""
    faults, out_until = [], {}
    for isl, start, length in schedule:
        at = start * 1e-3
        if at <= out_until.get(isl, -1.0):
            continue  # the cable is already out then
        faults.append(FaultConfig(at, "link-down", link=f"isl{isl}", duration=length * 1e-3))
        out_until[isl] = at + length * 1e-3 + 1e-3
    return faults, max(out_until.values())


def _run(faults: list[FaultConfig], interval: float, end: float) -> tuple[Any, Any]:
    """The fabric run with *faults* under Min_LS_Interval *interval* s until
    *end* s: its network and its run (FSPF, incidents)."""
    sim = Simulation(1)
    sc = dataclasses.replace(
        fabric({"h": "e1:0", "d": "e2:0"}, (), end, switches=SWITCHES, isls=ISLS,
               speed="2GFC", length=100.0),
        faults=tuple(sorted(faults, key=lambda f: f.at)),
        fspf=FspfTimers(min_ls_interval=interval, min_ls_arrival=0.0))
    net = build_fabric(sim, sc)
    build_workloads(sim, sc, net)
    run = install(sim, sc, net)
    sim.run(end)
    return net, run


@settings(max_examples=12, deadline=None)
@given(schedule=pulls, interval=st.sampled_from([0.0, 0.002]))
def test_every_switch_ends_routing_over_the_isls_that_are_up(
        schedule: list[tuple[int, int, int]], interval: float) -> None:
    faults, _ = _pulled(schedule)
    net, run = _run(faults, interval, 0.06)
    fspf = run.fabric.fspf
    up = {key for key, ends in net.isl_ends.items()
          if all(sp.port.lcf.state == "AC" for sp in ends.values())}
    for switch in net.switches:
        assert {isl.key for isl in fspf.usable(switch)} == up
    first_fault = min(f.at for f in faults)
    for computation in fspf.computations:
        assert computation["at_s"] >= first_fault + LOS_ASSERT - 1e-12


@settings(max_examples=12, deadline=None)
@given(schedule=pulls, interval=st.sampled_from([0.0, 0.002, 0.01]))
def test_service_is_restored_only_on_routes_that_stand(
        schedule: list[tuple[int, int, int]], interval: float) -> None:
    """A fault of an ISL is over only when every switch routes over every ISL
    up: when every cable is back (and Active), each switch's last route
    computation up to the fault's recovery used all of them, and none after
    it uses fewer before the next pull."""
    faults, back = _pulled(schedule)
    end = back + interval + 0.02
    net, run = _run(faults, interval, end)
    computations = run.fabric.fspf.computations
    for record in run.incidents.records:
        restored = record.recovered
        assert restored is not None  # the run lasts past every convergence
        assert record.links_back is not None and record.links_back <= restored
        assert restored >= record.fault.at + record.fault.duration  # type: ignore[operator]
        if any(f.at < restored < f.at + f.duration + 1e-3  # type: ignore[operator]
               for f in faults if f is not record.fault):
            continue  # another cable out or coming back then: not every ISL up
        pulled = min((f.at for f in faults if f.at > restored), default=end)
        for switch in net.switches:
            last = [c for c in computations if c["switch"] == switch and c["at_s"] <= restored]
            assert not last or last[-1]["isls_in_use"] == len(ISLS)
        assert all(c["isls_in_use"] == len(ISLS) for c in computations
                   if restored < c["at_s"] < pulled)
