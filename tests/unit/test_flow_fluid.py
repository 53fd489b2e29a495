"""The fluid dynamics of a fabric's queues (:mod:`fcsim.flow.fluid`): closed
forms of the round robin of a switch output over its inputs and of the
backpressure of shared input buffers, computed from the model's own
parameters, and an invariant over random fan-ins."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fcsim.fc0.speed import speed_named
from fcsim.fc2.frame import frame_chars
from fcsim.fc2.port import MIN_FILL_WORDS
from fcsim.flow import fluid, model
from fcsim.flow.fabric import Direction, Exchange, FlowFabric, StreamFlow, flow_fabric
from fcsim.flow.fluid import STEADY, FluidQueues, steady_rates
from fcsim.flow.model import solve
from fcsim.flow.summary import flow_run, flow_summary
from fcsim.scenario.loader import load_scenario
from tests.property.test_flow_oracle import fabrics
from tests.unit.test_flow_arbitration import _chain
from tests.unit.test_flow_model import EXAMPLES

DATA = 2048
"""Data field of every frame of the hand-built fabrics, bytes."""


def _line_time(speed: str) -> float:
    """Line seconds of one full frame and its fill words at *speed*."""
    return (frame_chars(DATA) + 4 * MIN_FILL_WORDS) * speed_named(speed).char_time


def _fan_in(speeds: list[str], out: str, credit: int = 8) -> FlowFabric:
    """N_Ports n0, n1, ... at *speeds* each streaming to N_Port t through one
    switch s (virtual output queues, *credit* buffers an input), t's link at
    *out*; one exchange each, full frames."""
    directions = {}
    streams = []
    for i, speed in enumerate(speeds):
        name = f"n{i}->s:{i}"
        directions[name] = Direction(name, f"l{i}", speed_named(speed), 1e-8, credit, 0.0,
                                     "s", None)
    last = f"s:{len(speeds)}->t"
    directions[last] = Direction(last, "lt", speed_named(out), 1e-8, 64, 0.0, None, "s")
    for i in range(len(speeds)):
        streams.append(StreamFlow(f"n{i}-t", f"n{i}", "t", 8 * DATA, DATA,
                                  (Exchange(1, (f"n{i}->s:{i}", last)),)))
    return FlowFabric(directions, tuple(streams), {}, {}, {})


def test_two_inputs_into_one_output_get_half_its_frames_each() -> None:
    """Two 4GFC N_Ports into one 4GFC output: the output takes its two
    inputs in turn, a frame each, so each sender gets half its line's
    frame rate."""
    fabric = _fan_in(["4GFC", "4GFC"], "4GFC")
    found = steady_rates(fabric, ["n0", "n1"])
    assert found.steady
    half = 1 / (2 * _line_time("4GFC"))
    for rate in found.rates:
        assert math.isclose(rate, half, rel_tol=STEADY)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from(["1GFC", "2GFC", "4GFC", "8GFC"]), min_size=1, max_size=4),
       st.sampled_from(["1GFC", "2GFC", "4GFC", "8GFC"]), st.integers(1, 16))
def test_an_output_water_fills_its_inputs(speeds: list[str], out: str, credit: int) -> None:
    """Processor sharing by frame: every input gets min(its own line's frame
    rate, the level) with the level where the output's line is full, or all
    its line if the output has room for every input (water-filling computed
    here from the lines' frame times)."""
    fabric = _fan_in(speeds, out, credit)
    found = steady_rates(fabric, [f"n{i}" for i in range(len(speeds))])
    own = [1 / _line_time(s) for s in speeds]
    unit = _line_time(out)
    level = math.inf
    if sum(own) * unit > 1:
        lo, hi = 0.0, max(own)
        for _ in range(200):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if sum(min(r, mid) for r in own) * unit < 1 else (lo, mid)
        level = lo
    assert found.steady
    for rate, mine in zip(found.rates, own, strict=True):
        assert math.isclose(rate, min(mine, level), rel_tol=2 * STEADY)


def test_a_held_output_fills_the_buffers_before_it_and_paces_the_link() -> None:
    """The fan-in of tests/unit/test_flow_arbitration.py (``_chain``): e1's
    output to e1n2 takes four inputs in turn; fanin2's frames wait at the
    core for the ISL held at that output, fill the core's input buffers,
    and the e0 ISL they share with fanin0 carries frames at their pace,
    e0 taking the two in turn: fanin0 = fanin1 = fanin2 = x, the local two
    2x, x = a seventh of the output's frame rate."""
    fabric = flow_fabric(_chain())
    senders = sorted({s.source for s in fabric.streams})
    found = steady_rates(fabric, senders)
    assert found.steady
    streams = {s.source: s for s in fabric.streams}
    out = streams[senders[0]].exchanges[0].path[-1]
    payloads = streams[senders[0]].frame_payloads
    chars = sum(frame_chars(d) + 4 * MIN_FILL_WORDS for d in payloads) / len(payloads)
    x = 1 / (7 * chars * fabric.directions[out].speed.char_time)
    share = {"fanin0": 1, "fanin1": 1, "fanin2": 1, "fanin3": 2, "fanin4": 2}
    for sender, rate in zip(senders, found.rates, strict=True):
        assert math.isclose(rate, share[streams[sender].name] * x, rel_tol=STEADY), sender


def test_the_fluid_stands_in_where_the_levels_do_not_settle(monkeypatch) -> None:
    """With no solutions for the levels to rise, fabric-core-edge-isls.toml
    gets the fluid's steady rates, the round robin's closed form (a third
    of the busy ISL's frames for host0, host1 and host2, two for host3:
    tests/unit/test_flow_arbitration.py), unflagged, where plain max-min
    would give every stream 2.5 senders' share."""
    scenario = load_scenario(EXAMPLES / "fabric-core-edge-isls.toml")
    settled = solve(flow_fabric(scenario))
    monkeypatch.setattr(model, "RISES", 0)
    flow = solve(flow_fabric(scenario))
    assert not flow.settled and flow.fluid
    assert not any(flow.caveats.values())
    for name, rate in flow.stream_rates.items():
        assert math.isclose(rate, settled.stream_rates[name], rel_tol=STEADY), name


def test_a_fabric_too_large_for_the_steps_is_not_stepped(monkeypatch) -> None:
    """Past :data:`fcsim.flow.fluid.WORK` item-steps the fluid gives up at
    once (not steady), leaving plain max-min flagged to the caller."""
    monkeypatch.setattr(fluid, "WORK", 100)
    found = steady_rates(_fan_in(["4GFC", "4GFC"], "4GFC"), ["n0", "n1"])
    assert not found.steady and found.steps == 0


def test_a_switch_with_a_central_router_limit_is_not_stepped() -> None:
    """A router's frames per second are one limit over all of a switch's
    outputs, which the outputs' steps do not share: not stepped."""
    fabric = _fan_in(["4GFC", "4GFC"], "4GFC")
    limited = FlowFabric(fabric.directions, fabric.streams, {"s": 1e5}, {}, {})
    found = steady_rates(limited, ["n0", "n1"])
    assert not found.steady and found.steps == 0


def test_the_figures_say_where_the_rates_come_from(monkeypatch) -> None:
    """The run's figures and summary name the fluid queues where they stand
    in for the levels, and plain max-min where neither settles."""
    scenario = load_scenario(EXAMPLES / "fabric-core-edge-isls.toml")
    assert flow_run(scenario)["rates"] == "round-robin levels"
    monkeypatch.setattr(model, "RISES", 0)
    figures = flow_run(scenario)
    assert figures["rates"] == "fluid queues" and figures["exact"]
    assert "queues stepped in time" in flow_summary(figures)
    monkeypatch.setattr(fluid, "WORK", 0)
    figures = flow_run(scenario)
    assert figures["rates"] == "plain max-min" and not figures["exact"]
    assert "plain max-min" in flow_summary(figures)


def _water(group: np.ndarray, offered: np.ndarray, costs: list[np.ndarray],
           budgets: list[np.ndarray], groups: int) -> np.ndarray:
    """Per group (output), the level *rho* (frames a queue a step) such that
    sum over its queues of min(offered, rho) x cost stays within the budget
    for every constraint, inf where everything offered fits: the detailed
    water-filling, a sort and every constraint each time it is called."""
    order = np.lexsort((offered, group))
    g = group[order]
    c = offered[order]
    starts = np.searchsorted(g, np.arange(groups))
    ends = np.append(starts[1:], len(g))
    level = np.full(groups, np.inf)
    for cost, budget in zip(costs, budgets, strict=True):
        a = cost[order]
        ca = np.cumsum(c * a)
        ta = np.cumsum(a)
        before = np.concatenate(([0.0], ca))  # sum of c a over entries < p
        total_a = np.concatenate(([0.0], ta))
        first = starts[g]
        prefix = before[np.arange(len(g))] - before[first]
        suffix = total_a[ends[g]] - total_a[np.arange(len(g))]
        filled = prefix + c * suffix
        over = np.flatnonzero(filled > budget[g])
        if not len(over):
            continue
        groups_over, at = np.unique(g[over], return_index=True)
        p = over[at]
        rho = (budget[groups_over] - prefix[p]) / np.maximum(suffix[p], 1e-300)
        level[groups_over] = np.minimum(level[groups_over], np.maximum(rho, 0.0))
    return level


def _detailed_step(q: FluidQueues, content: np.ndarray,
                   drained: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One step of *q*'s rule from *content* and *drained*, as it was
    written before the fast step: the queues sorted and every constraint
    water-filled in each of the step's two serves, the processing's too
    where no N_Port has any. The new content, drained and each sender's
    frames delivered."""
    nv, outputs = q.voqs, q.outputs
    offered = np.bincount(q.voq_of, content, nv)
    safe = np.where(offered > 0, offered, 1.0)
    costs = [np.bincount(q.voq_of, content * c, nv) / safe for c in (q.line, q.credit, q.proc)]
    in_buffer = q.buffer_of >= 0
    held = np.bincount(q.buffer_of[in_buffer], content[in_buffer], outputs)
    for _ in range(2):
        free = np.maximum(q.room - held + drained, 0.0)
        level = _water(q.voq_out, offered, costs + [np.ones(nv)], q.budgets + [free], outputs)
        served = np.minimum(offered, level[q.voq_out])
        out = served[q.voq_of] * content / safe[q.voq_of]
        drained = np.bincount(q.buffer_of[in_buffer], out[in_buffer], outputs)
    has_prev = q.prev >= 0
    arrive = np.where(has_prev, out[np.maximum(q.prev, 0)], 0.0)
    content = np.where(q.first, content, content - out + arrive)
    return content, drained, np.bincount(q.sender_last, out[q.last], q.senders)


SUMS = 1e-9
"""Relative tolerance between the fast step's states and the detailed
step's. The fast step water-fills one budget in frames where every item at
an output costs the same per frame (budget / cost instead of the costs'
sums over the queues, :meth:`FluidQueues._frame_budget`): the same levels
in exact arithmetic, summed in another order, so apart by rounding (a few
units in the last place, 1e-16 relative, a step), which the steps carry
forward; 1e-9 leaves room for that drift over the steps compared and is
far below what any rate rule moves (:data:`fcsim.flow.fluid.STEADY`,
1e-3)."""


def _close(fast: np.ndarray, detailed: np.ndarray) -> bool:
    """*fast* equals *detailed* to :data:`SUMS` relative (of the larger
    of each pair, or of the largest element where a value is near 0)."""
    scale = SUMS * np.maximum(np.abs(detailed), np.abs(detailed).max(initial=0.0) * 1e-3)
    return bool(np.all(np.abs(fast - detailed) <= scale))


def _same_steps(fabric: FlowFabric, steps: int = 300) -> None:
    """The fast step of *fabric*'s queues and the detailed one, from the
    same start, give the same state and deliveries step after step, to
    :data:`SUMS`."""
    senders = sorted({s.source for s in fabric.streams})
    q = FluidQueues(fabric, senders)
    content, drained = q.content.copy(), q.drained.copy()
    for k in range(steps):
        content, drained, delivered = _detailed_step(q, content, drained)
        fast = q.step()
        assert _close(fast, delivered), k
        assert _close(q.content, content), k
        assert _close(q.drained, drained), k


def test_the_fast_step_is_the_detailed_step() -> None:
    """The fast step (the queues sorted once a step, the levels the
    buffers' room does not move water-filled once for both serves, index
    arrays computed once, one budget in frames where an output carries one
    frame size) equals the rule as first written, to :data:`SUMS`, on the
    fluid tests' fabrics: fan-ins (one with an N_Port's processing
    time, which the fast step water-fills; without, it leaves that
    constraint out), the five-stream fan-in and the example's core-edge
    fabric."""
    fan = _fan_in(["1GFC", "4GFC", "8GFC"], "2GFC", 3)
    _same_steps(fan)
    _same_steps(FlowFabric(fan.directions, fan.streams, {}, {}, {"t": 2e-6}))
    _same_steps(flow_fabric(_chain()))
    _same_steps(flow_fabric(load_scenario(EXAMPLES / "fabric-core-edge-isls.toml")))


def test_one_frame_size_an_output_gives_one_budget_in_frames() -> None:
    """Where every frame at an output has one size, the step's budget in
    frames is, per output, the smallest of its line's, credit's and
    processing's seconds a step over their seconds a frame (the fan-in's
    2GFC output: the line's step over its full frame's line time); where
    two frame sizes share an output there is none, and the step
    water-fills each constraint apart: the same steps either way."""
    fan = _fan_in(["4GFC", "8GFC"], "2GFC", 3)
    q = FluidQueues(fan, ["n0", "n1"])
    hops = [n for s in fan.streams for e in s.exchanges for n in e.path]
    out = list(dict.fromkeys(hops)).index("s:2->t")  # outputs in order of first use
    assert q._frames is not None
    assert math.isclose(q._frames[out], q.dt / _line_time("2GFC"), rel_tol=1e-12)
    mixed = FlowFabric(fan.directions, (fan.streams[0], StreamFlow(
        "n1-t", "n1", "t", 8 * 512, 512, fan.streams[1].exchanges)), {}, {}, {})
    assert FluidQueues(mixed, ["n0", "n1"])._frames is None
    _same_steps(fan)
    _same_steps(mixed)


@settings(max_examples=20, deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(fabrics())
def test_the_fast_step_is_the_detailed_step_on_random_fabrics(case) -> None:
    """The oracle's random fabrics: the same steps, to :data:`SUMS`."""
    _same_steps(flow_fabric(case[0]), 100)



def test_a_pause_between_events_is_not_taken_for_the_steady_state(monkeypatch) -> None:
    """The rates hold still between two events and then jump (the
    dynamics are piecewise linear): a sender delivering one frame a step
    for seven windows and two from then on is steady only once every
    window over :data:`fcsim.flow.fluid.HELD` steps after the jump has
    agreed, at two frames a step."""
    fabric = _fan_in(["4GFC"], "4GFC")
    jump = 7 * fluid.WINDOW
    taken = []

    def scripted(self: FluidQueues) -> np.ndarray:
        taken.append(1)
        return np.array([1.0 if len(taken) <= jump else 2.0])

    monkeypatch.setattr(FluidQueues, "step", scripted)
    found = steady_rates(fabric, ["n0"])
    dt = FluidQueues(fabric, ["n0"]).dt
    assert found.steady
    assert found.steps == jump + fluid.WINDOW + fluid.HELD
    assert math.isclose(found.rates[0], 2.0 / dt, rel_tol=1e-12)
