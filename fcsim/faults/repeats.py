"""Faults that repeat: a fault with ``every`` happens at ``at``, ``at + every``,
... before ``until``; one with ``mean_interval`` at the times of a Poisson
process of that mean interval from ``at`` (the first a random interval after
it), drawn from the run's random stream ``faults/<index>``. An occurrence
that comes while the previous one lasts (its ``duration``) is skipped: the
process has that dead time, so occurrences come at the rate of a renewal
process of mean interval ``duration + mean_interval``."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from random import Random
from typing import Any

from fcsim.engine.simulation import Simulation
from fcsim.faults.config import FaultConfig


class Repeats:
    """The repeating faults of a run ending at *end* s; *occur(fault)* makes one
    occurrence happen now (*fault* at its own time, not repeating)."""

    def __init__(self, sim: Simulation, end: float,
                 occur: Callable[[FaultConfig], None]) -> None:
        self.sim, self.end, self._occur = sim, end, occur
        self.processes: list[dict[str, Any]] = []
        self._busy_until: list[float] = []

    def schedule(self, index: int, fault: FaultConfig) -> None:
        """Schedule the first occurrence of repeating *fault* (the *index*-th)."""
        self.processes.append({"fault": index, "label": fault.label, "occurrences": 0,
                               "skipped": 0})
        self._busy_until.append(float("-inf"))
        number = len(self.processes) - 1
        rng = self.sim.rng(f"faults/{index}") if fault.mean_interval is not None else None
        first = fault.at if rng is None else fault.at + self._interval(fault, rng)
        if first < (fault.until or self.end):
            self.sim.call_later(first, self._next, (fault, number, rng))

    @staticmethod
    def _interval(fault: FaultConfig, rng: Random | None) -> float:
        if rng is None:
            return fault.every  # type: ignore[return-value]
        return rng.expovariate(1.0 / fault.mean_interval)  # type: ignore[operator]

    def _next(self, value: tuple[FaultConfig, int, Random | None]) -> None:
        fault, number, rng = value
        now = self.sim.now
        process = self.processes[number]
        if now < self._busy_until[number]:
            process["skipped"] += 1
        else:
            process["occurrences"] += 1
            self._busy_until[number] = now + (fault.duration or 0.0)
            self._occur(dataclasses.replace(fault, at=now, every=None, mean_interval=None,
                                            until=None))
        step = self._interval(fault, rng)
        if now + step < (fault.until or self.end):
            self.sim.call_later(step, self._next, value)
