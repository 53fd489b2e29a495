"""A processor and a bus serve their work as the rules say, job by job.

The servers start the next item in the pass that ends a job and push its end
straight onto the event heap (:mod:`fcsim.engine.server`); a processor serves
its background level through its own idle rule (:mod:`fcsim.host.cpu`). This
checks them against a reference written here from the rules alone, with no
event heap: a processor takes interrupt, software-interrupt, then
process-level work, none preempting another, and background work last,
preempted at once by any other work and resumed for what is left of it; a
bus serves its transfers first come, first served. Every job must end at the
reference's time, in the reference's order, and the busy time must be the
work done.
"""

from __future__ import annotations

import math
from collections import deque

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from fcsim.engine.simulation import Simulation
from fcsim.host.bus import BUS_TYPES, IoBus
from fcsim.host.cpu import BACKGROUND, Cpu

Job = tuple[float, int, float]
"""(arrival, level, duration), s."""


def pytest_approx(value: float) -> object:
    """*value* to within a picosecond (sums of the same durations in another order)."""
    return pytest.approx(value, rel=0, abs=1e-12)


def reference(jobs: list[Job]) -> list[tuple[int, float]]:
    """(job index, end time) of every job, in the order they end, by the rules."""
    queues: list[deque[tuple[float, int]]] = [deque() for _ in range(BACKGROUND + 1)]
    order = sorted(range(len(jobs)), key=lambda k: jobs[k][0])
    ended: list[tuple[int, float]] = []
    current: tuple[int, int, float] | None = None  # (index, level, end)
    i = 0
    while i < len(order) or current is not None:
        arrival = jobs[order[i]][0] if i < len(order) else math.inf
        if current is not None and current[2] <= arrival:
            index, _level, now = current
            ended.append((index, now))
            current = None
            level = next((lv for lv, q in enumerate(queues) if q), None)
            if level is not None:
                duration, nxt = queues[level].popleft()
                current = (nxt, level, now + duration)
            continue
        index = order[i]
        i += 1
        _at, level, duration = jobs[index]
        if current is not None and current[1] == BACKGROUND and level != BACKGROUND:
            queues[BACKGROUND].appendleft((current[2] - arrival, current[0]))  # preempted
            current = None
        if current is None:
            current = (index, level, arrival + duration)
        else:
            queues[level].append((duration, index))
    return ended


def ties(jobs: list[Job], ended: list[tuple[int, float]]) -> bool:
    """True if an arrival and an end (or two arrivals) fall within 1 ns: their order
    would then be the event heap's insertion order, not a rule."""
    times = sorted([j[0] for j in jobs] + [t for _, t in ended])
    return any(b - a < 1e-9 for a, b in zip(times, times[1:], strict=False))


jobs_strategy = st.lists(
    st.tuples(st.floats(0.0, 1e-3), st.integers(0, BACKGROUND), st.floats(1e-6, 2e-4)),
    min_size=1, max_size=40)


def submit(sim: Simulation, jobs: list[Job], start: object) -> list[tuple[int, float]]:
    """Submit each job at its arrival with *start(index, duration, level, done)*;
    the (index, time) of each end, in order."""
    ended: list[tuple[int, float]] = []
    for index, (at, level, duration) in enumerate(jobs):
        def arrive(_value: object, index: int = index, level: int = level,
                   duration: float = duration) -> None:
            start(index, duration, level, lambda: ended.append((index, sim.now)))  # type: ignore[operator]
        sim.call_later(at, arrive)
    sim.run(1.0)
    return ended


@settings(max_examples=200, deadline=None, derandomize=True)
@given(jobs_strategy)
def test_a_processor_serves_its_levels_as_the_rules_say(jobs: list[Job]) -> None:
    expected = reference(jobs)
    assume(not ties(jobs, expected))
    sim = Simulation(1)
    cpu = Cpu(sim, "cpu", speed=2.0)

    def start(index: int, duration: float, level: int, done: object) -> None:
        cpu.run(duration * 2.0, done, level, background=level == BACKGROUND)  # type: ignore[arg-type]

    ended = submit(sim, jobs, start)
    assert [k for k, _ in ended] == [k for k, _ in expected]
    assert [t for _, t in ended] == [pytest_approx(t) for _, t in expected]
    assert cpu.busy_time == pytest_approx(sum(d for _, _, d in jobs))
    assert cpu.background_time == pytest_approx(sum(d for _, lv, d in jobs if lv == BACKGROUND))


@settings(max_examples=100, deadline=None, derandomize=True)
@given(jobs_strategy)
def test_a_bus_serves_its_transfers_first_come_first_served(jobs: list[Job]) -> None:
    fifo = [(at, 0, round(d * 100e6) / 100e6) for at, _level, d in jobs]  # whole bytes
    expected = reference(fifo)
    assume(not ties(fifo, expected))
    sim = Simulation(1)
    bus = IoBus(sim, "bus", BUS_TYPES["PCI-32/33"], bandwidth=100e6, overhead=0.0)

    def start(index: int, duration: float, level: int, done: object) -> None:
        bus.transfer(round(duration * 100e6), done)  # type: ignore[arg-type]

    ended = submit(sim, fifo, start)
    assert [k for k, _ in ended] == [k for k, _ in expected]
    assert [t for _, t in ended] == [pytest_approx(t) for _, t in expected]
    assert bus.busy_time == pytest_approx(sum(d for _, _, d in fifo))
