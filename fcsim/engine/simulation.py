"""The simulation context shared by every model component.

:class:`Simulation` owns the SimPy environment (the clock, in seconds, and the
event heap), one independent random stream per named component derived from
the run's seed, and the list of trace sinks. Components never create their own
environment or random generator and never read global state.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from heapq import heappush
from typing import Any, Protocol

import simpy
from simpy.events import NORMAL


class _Call:
    """A scheduled callback, shaped as SimPy's ``Environment.step`` expects an event."""

    __slots__ = ("callbacks", "_value", "_ok")

    def __init__(self, callback: Callable[[Any], None], value: Any) -> None:
        self.callbacks = [callback]
        self._value = value
        self._ok = True

    @property
    def value(self) -> Any:
        """The value given to :meth:`Simulation.call_later`."""
        return self._value


class TraceSink(Protocol):
    """Receives link-level events while a simulation runs (see :mod:`fcsim.trace`)."""

    def frame(self, time: float, port: Any, frame: Any, start: float, end: float) -> None:
        """A frame was transmitted by *port* from *start* to *end* (EOF), s."""

    def primitive(self, time: float, port: Any, name: str, start: float) -> None:
        """Primitive signal *name* (R_RDY, ...) was transmitted by *port* at *start*, s."""


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

    @property
    def now(self) -> float:
        """Current simulated time, s (SimPy's clock, read directly)."""
        return self.env._now

    def rng(self, name: str) -> random.Random:
        """The random stream of component *name*, independent of every other name."""
        stream = self._streams.get(name)
        if stream is None:
            stream = self._streams[name] = random.Random(f"{self.seed}/{name}")
        return stream

    def call_later(self, delay: float, callback: Callable[[Any], None], value: Any = None) -> None:
        """Call *callback(event)* after *delay* seconds; *event.value* is *value*.

        The per-frame hot path: instead of a :class:`simpy.events.Timeout` it
        pushes a :class:`_Call` (the two attributes SimPy's ``step`` reads)
        straight onto the event heap, in the same order SimPy would.
        """
        env = self.env
        heappush(env._queue, (env._now + delay, NORMAL, next(env._eid), _Call(callback, value)))

    def run(self, until: float, stop: simpy.Event | None = None) -> None:
        """Run the simulation up to simulated time *until*, s, or until the event
        *stop* is triggered, whichever comes first."""
        if stop is None:
            self.env.run(until=until)
        else:
            self.env.run(until=self.env.any_of([stop, self.env.timeout(until - self.now)]))


__all__ = ["Simulation", "TraceSink"]
