"""The flow model's links credit-bound both ways, whose trains cross or
lock by how they started, followed from the start the scenario sets
(:func:`fcsim.flow.model._from_start`), against the packet model: two
switches, one N_Port each streaming to the other over one ISL, no login,
the second stream offered up to 150 us after the first."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from fcsim.flow.fabric import flow_fabric
from fcsim.flow.model import solve
from fcsim.scenario.model import Scenario
from tests.unit.test_flow_arbitration import _packet
from tests.unit.test_flow_credit import _both_ways

TOLERANCE = 0.02
"""Stream throughput, packet against flow: relative (the oracle's)."""


@st.composite
def both_ways(draw: st.DrawFn) -> tuple[Scenario, str]:
    """Two switches, one ISL carrying a stream each way, the second offered
    later; and the drawn figures."""
    drawn = (draw(st.sampled_from(("1GFC", "2GFC", "4GFC", "8GFC"))),
             draw(st.sampled_from(("5 km", "10 km", "20 km"))),
             draw(st.sampled_from((3, 2, 4, 8))),
             draw(st.sampled_from((5e-6, 0.0, 0.7e-6))), draw(st.booleans()),
             draw(st.sampled_from(("64 KiB", "8 KiB", "16 KiB"))))
    scenario = _both_ways(*drawn)
    start = draw(st.floats(0.0, 150e-6))
    first, second = scenario.workloads
    return replace(scenario, workloads=(first, replace(second, start=start))), (
        f"speed, ISL, credits, latency, cut-through, size: {drawn}, "
        f"second stream at {start * 1e6:.3f} us")


@settings(max_examples=6, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(both_ways())
def test_a_link_followed_from_its_start_carries_what_the_packet_model_does(
        case: tuple[Scenario, str]) -> None:
    scenario, described = case
    flow = solve(flow_fabric(scenario))
    isl = {n for n, d in flow.fabric.directions.items() if d.isl}
    assume(isl <= flow.locked.keys())  # both ways credit-bound: followed from its start
    event("locked" if any(flow.locked[n] for n in isl) else "crossing")
    packet = _packet(scenario, 3e-3, 3e-3 + 400 / min(flow.rates))
    for name, rate in flow.stream_rates.items():
        assert abs(packet[name] - rate) <= TOLERANCE * rate, (
            f"{described}: {name}: packet {packet[name] / 1e6:.3f} MB/s, "
            f"flow {rate / 1e6:.3f} MB/s")
