"""The event loop of :class:`fcsim.engine.simulation.Simulation` against SimPy's own.

``Simulation.call_later`` puts plain (callback, value) entries on SimPy's heap
and ``Simulation.run`` steps them itself; these tests check that the order of
everything that happens, SimPy events and processes included, and where a run
stops are exactly what ``simpy.Environment.run`` gives when every callback is a
``Timeout`` with the callback attached instead.
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
