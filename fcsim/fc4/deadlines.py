"""A timer over many commands that all wait the same time: an FC-4's command
or exchange timer.

Every deadline is armed *timeout* after its arming, so the deadlines fall
in the order they were armed: they are kept in an insertion-ordered dict
(re-arming moves a key to the end) and one event is pending at a time, at
the earliest deadline. A run that never arms one schedules nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from fcsim.engine.simulation import Simulation


class Deadlines:
    """Deadlines *timeout* s after each :meth:`arm`; *expired(key, value)* is
    called for each one reached that was not disarmed or armed again since."""

    def __init__(self, sim: Simulation, timeout: float,
                 expired: Callable[[Any, Any], None]) -> None:
        self.sim, self.timeout, self._expired = sim, timeout, expired
        self._due: dict[Hashable, tuple[float, Any]] = {}
        self._watching = False

    def __len__(self) -> int:
        return len(self._due)

    def arm(self, key: Hashable, value: Any = None) -> None:
        """(Re)start *key*'s deadline: *timeout* s from now, with *value*."""
        self._due.pop(key, None)
        self._due[key] = (self.sim.now + self.timeout, value)
        if not self._watching:
            self._watching = True
            self.sim.call_later(self.timeout, self._check)

    def disarm(self, key: Hashable) -> None:
        """Stop *key*'s deadline, if armed."""
        self._due.pop(key, None)

    def _check(self, _event: object) -> None:
        now = self.sim.now
        due = self._due
        while due:
            key, (deadline, value) = next(iter(due.items()))
            if deadline > now * (1 + 1e-12):
                self.sim.call_later(deadline - now, self._check)
                return
            del due[key]
            self._expired(key, value)
        self._watching = False
