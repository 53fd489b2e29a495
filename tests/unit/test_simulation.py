"""The event loop of :class:`fcsim.engine.simulation.Simulation` against SimPy's own.

``Simulation.call_later`` puts plain (callback, value) entries on SimPy's heap
and ``Simulation.run`` steps them itself; these tests check that the order of
everything that happens, SimPy events and processes included, and where a run
stops are exactly what ``simpy.Environment.run`` gives when every callback is a
``Timeout`` with the callback attached instead; and that a place reserved in
that order (``reserve``, ``take_up``, ``passed``) runs what it is taken up for
exactly where an entry made at once would have run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import simpy
from hypothesis import given, settings
from hypothesis import strategies as st

from fcsim.engine.simulation import Simulation

Schedule = list[tuple[float, int]]
"""(delay, fan-out) per callback: each callback, when it runs, schedules the
next *fan-out* entries of the schedule after their delays."""


def _drive(schedule: Schedule, later: Callable[[float, Callable[[Any], None], Any], None],
           now: Callable[[], float], log: list[tuple[float, int]]) -> None:
    """Start *schedule* through *later*, logging (time, index) of every call."""
    pending = iter(range(len(schedule)))

    def fire(index: int) -> None:
        log.append((now(), index))
        for _ in range(schedule[index][1]):
            nxt = next(pending, None)
            if nxt is not None:
                later(schedule[nxt][0], fire, nxt)

    first = next(pending, None)
    if first is not None:
        later(schedule[first][0], fire, first)


def _with_fcsim(schedule: Schedule, until: float, process: bool) -> list[tuple[float, Any]]:
    sim = Simulation(1)
    log: list[tuple[float, Any]] = []
    _drive(schedule, lambda d, cb, v: sim.call_later(d, cb, v), lambda: sim.now, log)
    if process:
        sim.env.process(_ticker(sim.env, log))
    sim.run(until)
    sim.run(until * 2)
    return log + [(sim.now, "end")]


def _with_simpy(schedule: Schedule, until: float, process: bool) -> list[tuple[float, Any]]:
    env = simpy.Environment()
    log: list[tuple[float, Any]] = []

    def later(delay: float, callback: Callable[[Any], None], value: Any) -> None:
        env.timeout(delay, value).callbacks.append(lambda event: callback(event.value))

    _drive(schedule, later, lambda: env.now, log)
    if process:
        env.process(_ticker(env, log))
    env.run(until=until)
    env.run(until=until * 2)
    return log + [(env.now, "end")]


def _ticker(env: simpy.Environment, log: list[tuple[float, Any]]):  # type: ignore[no-untyped-def]
    """A SimPy process beside the callbacks: timeouts on a 0.25 s grid."""
    for k in range(12):
        yield env.timeout(0.25)
        log.append((env.now, f"tick {k}"))


delays = st.sampled_from([0.0, 0.25, 0.5, 1.0]) | st.floats(0.0, 2.0)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(delays, st.integers(0, 3)), min_size=1, max_size=40),
       st.sampled_from([0.5, 1.0, 1.3]), st.booleans())
def test_same_order_and_end_as_simpy(schedule: Schedule, until: float, process: bool) -> None:
    """Ties at the same time (many delays are on a grid, and at *until* itself)
    keep SimPy's order, a run never takes an entry due at its end, and the
    next run takes it first."""
    assert _with_fcsim(schedule, until, process) == _with_simpy(schedule, until, process)


def test_stop_event_ends_the_run_where_simpy_would() -> None:
    """With *stop*, the run ends once the stop event and the condition on it have
    been processed: callbacks due at the same moment and scheduled before them
    still run, later ones do not."""
    sim = Simulation(1)
    seen: list[str] = []
    stop = sim.env.event()
    sim.call_later(1.0, lambda _: (seen.append("a"), stop.succeed()))
    sim.call_later(1.0, lambda _: seen.append("b"))
    sim.call_later(2.0, lambda _: seen.append("c"))
    sim.run(5.0, stop)
    assert seen == ["a", "b"] and sim.now == 1.0


def test_run_must_move_forward_and_failed_events_raise() -> None:
    sim = Simulation(1)
    sim.run(1.0)
    with pytest.raises(ValueError, match="greater than the current"):
        sim.run(1.0)
    sim.env.event().fail(RuntimeError("broken"))
    with pytest.raises(RuntimeError, match="broken"):
        sim.run(2.0)


Plan = list[tuple[float, int, bool, int]]
"""(delay, fan-out, reserved, kicked) per entry: a *reserved* entry is an end
that has work only if it was kicked before it came (a transmitter's end of
gap); an entry that runs kicks entry *kicked* of the plan, once, if that is a
reserved entry already scheduled."""


def _ends(plan: Plan, until: float, reserve: bool) -> list[tuple[float, str, int]]:
    """Run *plan* with every reserved end an entry of its own (``reserve`` false)
    or only a place in the order, taken up when kicked before it."""
    sim = Simulation(1)
    log: list[tuple[float, str, int]] = []
    pending = iter(range(len(plan)))
    places: dict[int, tuple[float, int]] = {}
    scheduled: set[int] = set()
    ended: set[int] = set()
    kicked: set[int] = set()

    def end(index: int) -> None:
        ended.add(index)
        if index in kicked:
            log.append((sim.now, "end", index))

    def fire(index: int) -> None:
        log.append((sim.now, "run", index))
        target = plan[index][3]
        if target in scheduled and target not in kicked:
            kicked.add(target)
            if reserve:
                place = places.pop(target)
                if sim.passed(place):
                    log.append((sim.now, "already free", target))
                else:
                    sim.take_up(place, end, target)
            elif target in ended:
                log.append((sim.now, "already free", target))
        for _ in range(plan[index][1]):
            nxt = next(pending, None)
            if nxt is None:
                return
            delay, _fan, is_end, _target = plan[nxt]
            if not is_end:
                sim.call_later(delay, fire, nxt)
                continue
            scheduled.add(nxt)
            if reserve:
                places[nxt] = sim.reserve(delay)
            else:
                sim.call_later(delay, end, nxt)

    sim.call_later(0.0, fire, next(pending))
    sim.env.process(_ticker(sim.env, log))  # type: ignore[arg-type]
    sim.run(until)
    sim.run(until * 2)
    return log


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(delays, st.integers(0, 3), st.booleans(), st.integers(0, 39)),
                min_size=1, max_size=40).map(lambda plan: [(0.0, 3, False, 0)] + plan),
       st.sampled_from([0.5, 1.0, 1.3]))
def test_a_reserved_place_runs_where_its_entry_would(plan: Plan, until: float) -> None:
    """reserve, take_up and passed against an entry per end: the same calls at
    the same times in the same order, ties on a grid and across two runs
    included (the fast path of a transmitter with nothing more to send)."""
    assert _ends(plan, until, True) == _ends(plan, until, False)


def test_simpy_keeps_the_heap_layout_the_engine_relies_on() -> None:
    """The engine pushes its own entries onto SimPy's heap and steps it itself:
    it relies on ``Environment._queue`` being a heap of ``(time, priority,
    insertion number, event)`` tuples, ``_eid`` a counter and ``_now`` the
    clock. A SimPy release that changes any of these fails here (the versions
    this holds for are pinned in pyproject.toml)."""
    env = simpy.Environment()
    timeout = env.timeout(2.5)
    assert isinstance(env._queue, list)
    (entry,) = env._queue
    assert len(entry) == 4
    at, priority, eid, event = entry
    assert (at, priority, event) == (2.5, simpy.events.NORMAL, timeout)
    assert next(env._eid) == eid + 1
    assert env._now == 0
    env.step()
    assert env._now == 2.5 and env._queue == []


def test_now_is_simpys_clock_after_every_entry() -> None:
    """``Simulation.now`` is the time of the entry being processed, for plain
    entries and SimPy events alike, and where a run ended."""
    sim = Simulation()
    seen: list[tuple[float, float]] = []
    sim.call_later(0.25, lambda _: seen.append((sim.now, sim.env.now)))
    sim.env.timeout(0.5).callbacks.append(lambda _: seen.append((sim.now, sim.env.now)))
    assert sim.now == 0.0
    sim.run(1.0)
    assert seen == [(0.25, 0.25), (0.5, 0.5)]
    assert sim.now == sim.env.now == 1.0
