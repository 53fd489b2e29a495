"""The flow model's fast paths equal their detailed definitions: progressive
filling that takes each stopped sender's entries out once
(:func:`fcsim.flow.fairness.max_min`) against the textbook loop that sums
every moving sender's load again at each level, and the rising round-robin
levels computed over arrays (:func:`fcsim.flow.model._levels`) against the
same rule output by output. The detailed versions are kept here, as they
were before the fast ones replaced them. A settling of the levels that
gives up when thrown back again and again (:data:`fcsim.flow.model.THROWS`)
gives the answers of one that runs its full rounds. A settling that computes
again only the round robins of the outputs whose inputs moved
(:class:`fcsim.flow.model._RoundRobinInputs`) gives the answers of one that
computes every output's each round, and a credit-wait loop that stops
when the waits it finds are those it solved under
(:func:`fcsim.flow.model._same_waits`), give the answers of the detailed
ones."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fcsim.flow import model
from fcsim.flow.arbitration import held, resources_of, round_robin
from fcsim.flow.fabric import flow_fabric
from fcsim.flow.fairness import TOLERANCE, Filling, max_min
from fcsim.scenario.loader import load_scenario, scenario_from_document
from tests.property.test_flow_fixed_points import one_core
from tests.unit.test_flow_model import EXAMPLES


def _filling(rows, cols, values, capacity, senders) -> Filling:
    """Progressive filling as Bertsekas and Gallager state it: at each level
    the growth of every resource is summed again over the moving senders."""
    resources = len(capacity)
    rate = np.zeros(senders)
    bottleneck = np.full(senders, -1)
    frozen = np.zeros(senders, dtype=bool)
    bounded = np.isfinite(capacity[rows])
    r, c, v = rows[bounded], cols[bounded], values[bounded]
    settled_load = np.zeros(resources)
    level = 0.0
    while True:
        growth = np.bincount(r, weights=v, minlength=resources)
        load = settled_load + growth * level
        grows = growth > 0
        if not grows.any():
            break
        room = np.full(resources, np.inf)
        room[grows] = (capacity[grows] - load[grows]) / growth[grows]
        step = max(float(room.min()), 0.0)
        level += step
        full = grows & (room <= step + TOLERANCE * np.maximum(1.0, level))
        on_full = full[r]
        hit = np.unique(c[on_full])
        first = np.full(senders, resources)
        np.minimum.at(first, c[on_full], r[on_full])
        bottleneck[hit] = first[hit]
        frozen[hit] = True
        rate[hit] = level
        stays = ~frozen[c]
        settled_load += np.bincount(r[~stays], weights=v[~stays] * level, minlength=resources)
        r, c, v = r[stays], c[stays], v[stays]
        if not len(r):
            break
    load = np.bincount(rows, weights=values * rate[cols], minlength=resources)
    return Filling(rate, bottleneck, load)


def _levels(by_output, where, rows, cols, values, capacity, positions, senders):
    """The rising levels output by output (the rule of :func:`fcsim.flow.model._levels`)."""
    own = {o: np.array([where["arbitration", o, q.input] for q in group], dtype=np.int64)
           for o, group in by_output.items()}
    owner = {int(i): o for o, idx in own.items() for i in idx}
    mine = {o: resources_of(group) for o, group in by_output.items()}
    fixed: dict[str, float] = {}
    t = 1.0
    before = None
    for _ in range(model.RISES):
        cap = capacity.copy()
        for o, idx in own.items():
            cap[idx] = fixed.get(o, t)
        filling = model.max_min(rows, cols, values, cap, senders)
        load = filling.load

        def eligible(i: int) -> bool:
            return i not in owner or owner[i] in fixed

        full = [o for o in by_output if o not in fixed and any(
            load[i] >= cap[i] * (1 - model.CLOSE) for i in mine[o] if eligible(i))]
        holding = held(rows, cols, values, cap, filling.rate, load)
        rising = {int(i) for o, idx in own.items() if o not in fixed for i in idx}
        if full:
            rate, limit = filling.rate.tolist(), cap.tolist()
            for o in full:
                fixed[o] = min(t, round_robin(by_output[o], rate, holding, positions, limit,
                                              [i for i in mine[o] if eligible(i)], rising,
                                              exclusive=False))
            before = None
            continue
        if math.isinf(t) or not any(h in rising for hs in holding for h in hs):
            return model._settle(by_output, own, mine, fixed, rows, cols, values, capacity,
                                 positions, senders, exclusive=False)
        nxt = math.inf
        for o in by_output:
            if o in fixed:
                continue
            for i in mine[o]:
                if not eligible(i) or load[i] <= 0:
                    continue
                if before is not None and load[i] > before[1][i]:
                    slope = (load[i] - before[1][i]) / (t - before[0])
                    nxt = min(nxt, t + (cap[i] - load[i]) / slope)
                elif before is None:
                    nxt = min(nxt, t * cap[i] / load[i])
        before = (t, load)
        t = max(nxt, t * (1 + 1e-9))
    return capacity, False


def _same(a: Filling, b: Filling) -> None:
    assert np.allclose(a.rate, b.rate, rtol=1e-12, atol=0)
    assert np.array_equal(a.bottleneck, b.bottleneck)
    assert np.allclose(a.load, b.load, rtol=1e-12, atol=1e-300)


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 12).flatmap(lambda resources: st.tuples(
    st.just(resources),
    st.lists(st.one_of(st.floats(0.1, 10.0), st.just(math.inf)), min_size=resources,
             max_size=resources),
    st.lists(st.lists(st.tuples(st.integers(0, resources - 1),
                                st.sampled_from((0.5, 1.0, 2.0, 0.25, 3.0))),
                      min_size=1, max_size=5), min_size=1, max_size=10))))
def test_fast_filling_equals_the_textbook_loop(case) -> None:
    """Random resources (some unbounded) and senders, values drawn from a few
    so that resources fill together at one level (ties)."""
    resources, capacity, senders = case
    entries: dict[tuple[int, int], float] = {}
    for j, uses in enumerate(senders):
        for r, value in uses:
            entries[r, j] = entries.get((r, j), 0.0) + value
    rows = np.array([r for r, _ in entries])
    cols = np.array([j for _, j in entries])
    values = np.array(list(entries.values()))
    cap = np.array(capacity)
    if not np.all(np.bincount(cols[np.isfinite(cap[rows])], minlength=len(senders))):
        return  # a sender bounded nowhere: both refuse it
    _same(max_min(rows, cols, values, cap, len(senders)),
          _filling(rows, cols, values, cap, len(senders)))


def _core_edge() -> object:
    """The 16-domain fabric of bench/flow_fabric.py: 4 cores, 12 edges of 17
    N_Ports, every N_Port streaming (exchange-based routing, two exchanges)."""
    return scenario_from_document({
        "name": "bench", "topology": "fabric", "run": {"duration": "1 s", "login": True},
        "fabric": {"kind": "core-edge", "switches": 16, "cores": 4,
                   "model": "generic-nonblocking", "core_model": "generic-director-256",
                   "nodes_per_switch": 17, "speed": "4GFC", "traffic": "permutation",
                   "stream_size": "16 KiB", "outstanding": 2}}, "bench.toml")


def test_fast_levels_equal_the_rule_output_by_output(monkeypatch) -> None:
    """The bench's 16-domain fabric and fabric-core-edge-isls.toml solved with
    both fast paths and with both detailed ones: the same rates (to rounding:
    the loads are summed in another order), bottlenecks and caveats."""
    for scenario in (_core_edge(), load_scenario(EXAMPLES / "fabric-core-edge-isls.toml")):
        fabric = flow_fabric(scenario)
        fast = model.solve(fabric)
        with monkeypatch.context() as patch:
            patch.setattr(model, "max_min", _filling)
            patch.setattr(model, "_levels", _levels)
            detailed = model.solve(fabric)
        assert fast.settled == detailed.settled
        assert np.allclose(fast.rates, detailed.rates, rtol=1e-12, atol=0)
        assert [(b.kind, b.owner, b.via) for b in fast.bottleneck] == [
            (b.kind, b.owner, b.via) for b in detailed.bottleneck]
        assert np.allclose([b.capacity for b in fast.bottleneck],
                           [b.capacity for b in detailed.bottleneck], rtol=1e-12, atol=0)
        assert fast.caveats == detailed.caveats


def _full_rounds(monkeypatch, fabric) -> model.FlowResult:
    """*fabric* solved with every settling run to its full rounds (no
    giving up when thrown back)."""
    with monkeypatch.context() as patch:
        patch.setattr(model, "THROWS", math.inf)
        return model.solve(fabric)


def _identical(early: model.FlowResult, full: model.FlowResult) -> None:
    """The same answer, bit for bit: rates, bottlenecks, flags and caveats."""
    assert early.settled == full.settled
    assert np.array_equal(early.rates, full.rates)
    assert early.bottleneck == full.bottleneck
    assert early.stream_rates == full.stream_rates
    assert early.caveats == full.caveats
    assert (early.other is None) == (full.other is None)
    assert early.other is None or np.array_equal(early.other, full.other)


class _Counted:
    """*function*, counting its calls (:attr:`calls`)."""

    def __init__(self, function: Callable[..., Any]) -> None:
        self.function = function
        self.calls = 0

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        return self.function(*args, **kwargs)


def test_giving_up_a_settling_thrown_back_changes_no_answer(monkeypatch) -> None:
    """The bench's 16-domain fabric, whose second settling never settles
    (it gives up after the third throw-back: fewer max-min solutions), and
    the example fabrics the flow model takes but the 239-domain one (which
    falls back before settling): the same answer as with the full rounds."""
    solutions = _Counted(max_min)
    fabric = flow_fabric(_core_edge())
    with monkeypatch.context() as patch:
        patch.setattr(model, "max_min", solutions)
        early = model.solve(fabric)
        given_up = solutions.calls
        full = _full_rounds(patch, fabric)
    assert given_up < solutions.calls
    _identical(early, full)
    for name in ("fabric-core-edge-isls.toml", "fabric-fat-tree-permutation.toml",
                 "fabric-long-distance-isl.toml"):
        fabric = flow_fabric(load_scenario(EXAMPLES / name))
        _identical(model.solve(fabric), _full_rounds(monkeypatch, fabric))


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(one_core())
def test_giving_up_changes_no_answer_on_random_fabrics(case) -> None:
    """The one-core grid's fabrics and the oracle's (:func:`one_core` draws
    either), where settlings converge after a throw-back: the same answer
    as with the full rounds."""
    fabric = flow_fabric(case[0])
    with pytest.MonkeyPatch.context() as patch:
        _identical(model.solve(fabric), _full_rounds(patch, fabric))


def _detailed(patch: pytest.MonkeyPatch, fabric) -> model.FlowResult:
    """*fabric* solved with every output's round robin computed again in
    each round of each settling, and the levels solved again after every
    change of the credit waits, even to the waits they were solved under."""
    moved = model._RoundRobinInputs.moved
    patch.setattr(model._RoundRobinInputs, "moved",
                  lambda self, rate, holding, cap, everything=False:
                  moved(self, rate, holding, cap, everything=True))
    patch.setattr(model, "_same_waits", lambda extra, before: False)
    return model.solve(fabric)


def test_sparing_unchanged_work_changes_no_answer(monkeypatch) -> None:
    """The bench's 16-domain fabric and the example fabrics the flow model
    takes but the 239-domain one: the same answer, bit for bit, as computing
    every output's round robin each round and solving the levels again
    under waits of 0, with fewer round robins and max-min solutions."""
    computed, solutions = _Counted(round_robin), _Counted(max_min)
    fabric = flow_fabric(_core_edge())
    with monkeypatch.context() as patch:
        patch.setattr(model, "round_robin", computed)
        patch.setattr(model, "max_min", solutions)
        fast = model.solve(fabric)
        kept, fewer = computed.calls, solutions.calls
        every = _detailed(patch, fabric)
    assert kept < computed.calls - kept
    assert fewer < solutions.calls - fewer
    _identical(fast, every)
    for name in ("fabric-core-edge-isls.toml", "fabric-fat-tree-permutation.toml",
                 "fabric-long-distance-isl.toml"):
        fabric = flow_fabric(load_scenario(EXAMPLES / name))
        with monkeypatch.context() as patch:
            _identical(model.solve(fabric), _detailed(patch, fabric))


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(one_core())
def test_sparing_unchanged_work_changes_no_answer_on_random_fabrics(case) -> None:
    """The one-core grid's fabrics and the oracle's: the same answer, bit
    for bit, as computing every output's round robin each round and solving
    the levels again under waits of 0."""
    fabric = flow_fabric(case[0])
    with pytest.MonkeyPatch.context() as patch:
        _identical(model.solve(fabric), _detailed(patch, fabric))
