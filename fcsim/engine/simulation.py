"""The simulation context shared by every model component.

:class:`Simulation` owns the SimPy environment (the clock, in seconds, and the
event heap), one independent random stream per named component derived from
the run's seed, and the list of trace sinks. Components never create their own
environment or random generator and never read global state.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, Protocol

import simpy
from simpy.core import NORMAL
from simpy.events import Event


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
        """Current simulated time, s."""
        return self.env.now

    def rng(self, name: str) -> random.Random:
        """The random stream of component *name*, independent of every other name."""
        stream = self._streams.get(name)
        if stream is None:
            stream = self._streams[name] = random.Random(f"{self.seed}/{name}")
        return stream

    def call_later(self, delay: float, callback: Callable[[Event], None], value: Any = None) -> None:
        """Call *callback(event)* after *delay* seconds; *event.value* is *value*.

        A lean replacement for ``env.timeout(delay, value)`` plus a callback, for
        the per-frame hot path.
        """
        event = Event.__new__(Event)
        event.env = self.env
        event.callbacks = [callback]
        event._value = value
        event._ok = True
        self.env.schedule(event, NORMAL, delay)

    def run(self, until: float) -> None:
        """Run the simulation up to simulated time *until*, s."""
        self.env.run(until=until)


__all__ = ["Simulation", "TraceSink"]
