"""The simulation context shared by every model component.

:class:`Simulation` owns the SimPy environment (the clock, in seconds, and the
event heap), one independent random stream per named component derived from
the run's seed, and the list of trace sinks. Components never create their own
environment or random generator and never read global state.

Model components schedule plain callbacks with :meth:`Simulation.call_later`:
an entry on SimPy's own heap that carries the callback and its argument, with
no event object behind it. :meth:`Simulation.run` steps that heap as SimPy's
``Environment.run`` does (same order: time, priority, then insertion), calling
such an entry's callback directly and processing any SimPy event (an
``env.event()``, a ``Timeout``, a condition, a process) exactly as
``Environment.step`` would, so SimPy events and processes work beside them.

A component that may not need a callback it would schedule can instead
:meth:`Simulation.reserve` its place in that order (its time and insertion
number), and later either :meth:`Simulation.take_up` the place, or learn that
it has :meth:`Simulation.passed`: what then runs, runs where the entry would
have run. A transmitter with nothing more to send uses this for the end of
its last gap (:mod:`fcsim.fc2.port`).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from heapq import heappop, heappush
from typing import Any, Protocol

import simpy
from simpy.core import StopSimulation
from simpy.events import NORMAL, URGENT, Event


class TraceSink(Protocol):
    """Receives link-level events while a simulation runs (see :mod:`fcsim.trace`)."""

    def frame(self, time: float, port: Any, frame: Any, start: float, end: float) -> None:
        """A frame was transmitted by *port* from *start* to *end* (EOF), s."""

    def primitive(self, time: float, port: Any, name: str, start: float) -> None:
        """Primitive signal *name* (R_RDY, ...) was transmitted by *port* at *start*, s."""

    def state(self, time: float, port: Any, change: str) -> None:
        """*port*'s link state changed at *time*, s (*change* says from, to and why)."""


class Simulation:
    """Clock, random streams and trace sinks of one simulation run.

    *seed* selects every random stream of the run: the same seed and model
    give the same event sequence.
    """

    def __init__(self, seed: int = 1) -> None:
        self.env = simpy.Environment()
        self.seed = seed
        self.sinks: list[TraceSink] = []
        self._streams: dict[str, random.Random] = {}
        self._current: tuple[Any, ...] | None = None  # the heap entry being (or last) processed
        self.now = 0.0
        """Current simulated time, s: SimPy's clock, kept by :meth:`run` as it
        takes each entry off the heap (a plain attribute, so the models' hot
        paths read it at the cost of one attribute lookup)."""

    def rng(self, name: str) -> random.Random:
        """The random stream of component *name*, independent of every other name."""
        stream = self._streams.get(name)
        if stream is None:
            stream = self._streams[name] = random.Random(f"{self.seed}/{name}")
        return stream

    def drew_random(self) -> bool:
        """True if a number has been drawn from any stream of :meth:`rng`: the
        only way the seed enters a run, so a run that drew none gives the same
        results under every seed."""
        return any(stream.getstate() != random.Random(f"{self.seed}/{name}").getstate()
                   for name, stream in self._streams.items())

    def call_later(self, delay: float, callback: Callable[[Any], None], value: Any = None) -> None:
        """Call *callback(value)* after *delay* seconds.

        The hot path of every model: one tuple pushed onto SimPy's event heap,
        ordered with SimPy's own events (time, then :data:`simpy.events.NORMAL`
        priority, then insertion), with no event object created.
        """
        env = self.env
        heappush(env._queue, (env._now + delay, NORMAL, next(env._eid), callback, value))

    def reserve(self, delay: float) -> tuple[float, int]:
        """The place in the event order that an entry of :meth:`call_later`
        made now with *delay*, s, would take (its time computed as that of the
        entry), without the entry: pass it to :meth:`take_up` to schedule a
        callback there, or to :meth:`passed`."""
        env = self.env
        return (env._now + delay, next(env._eid))

    def take_up(self, place: tuple[float, int], callback: Callable[[Any], None],
                value: Any = None) -> None:
        """Schedule *callback(value)* at the reserved *place* (not yet passed):
        it runs exactly where the :meth:`call_later` entry would have run."""
        heappush(self.env._queue, (place[0], NORMAL, place[1], callback, value))

    def passed(self, place: tuple[float, int]) -> bool:
        """True if the reserved *place* is behind the entry being processed (between
        runs, the last one processed): an entry there would have been taken off
        the heap already."""
        at = place[0]
        now = self.env._now
        if at != now:
            return at < now
        current = self._current  # at the same time: NORMAL entries go in insertion order
        return current is not None and current[1] == NORMAL and place[1] < current[2]

    def run(self, until: float, stop: simpy.Event | None = None) -> None:
        """Run the simulation up to simulated time *until*, s, or until the event
        *stop* is processed, whichever comes first.

        The end is marked as ``Environment.run`` marks it, so the run ends at
        the same event as SimPy's would: a SimPy event at *until* of urgent
        priority (processed before the model's callbacks due at that time),
        or, with *stop*, the condition that either has happened.
        """
        env = self.env
        if stop is not None:
            end: Event = env.any_of([stop, env.timeout(until - env._now)])
        else:
            if until <= env._now:
                raise ValueError(f"until ({until}) must be greater than the current "
                                 "simulation time")
            end = Event(env)
            end._ok = True
            end._value = None
            env.schedule(end, URGENT, until - env._now)
        if end.callbacks is None:
            return
        end.callbacks.append(StopSimulation.callback)
        try:
            self._step_until_stopped()
        except StopSimulation:
            return

    def _step_until_stopped(self) -> None:
        """Take entries off the heap in order until SimPy's stop callback raises:
        a :meth:`call_later` entry (five items) by calling its callback, a SimPy
        event (four items) as ``Environment.step`` processes it."""
        env = self.env
        queue = env._queue
        pop = heappop
        while True:
            self._current = item = pop(queue)
            self.now = env._now = item[0]
            if len(item) == 5:
                item[3](item[4])
                continue
            event = item[3]
            callbacks, event.callbacks = event.callbacks, None
            for index, callback in enumerate(callbacks):
                try:
                    callback(event)
                except StopSimulation:
                    # as Environment.step: the rest run when the simulation resumes
                    event.callbacks = callbacks[index + 1:]
                    env.schedule(event, -1)  # type: ignore[arg-type]
                    raise
            if not event._ok and not hasattr(event, "_defused"):
                exc = type(event._value)(*event._value.args)
                exc.__cause__ = event._value
                raise exc


__all__ = ["Simulation", "TraceSink"]
