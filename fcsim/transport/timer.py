"""A restartable one-shot timer on the simulation clock.

:meth:`Simulation.call_later` cannot be cancelled, so a timer keeps its
deadline and at most one pending event: restarting it later only moves the
deadline (the pending event, when it fires early, waits again for the rest),
and stopping it clears the deadline so the pending event does nothing. A TCP
connection restarts its retransmission timer on every ACK; this keeps the
event heap from filling with stale entries.
"""

from __future__ import annotations

from collections.abc import Callable

from fcsim.engine.simulation import Simulation

_EPSILON = 1e-12
"""Tolerance for comparing a firing time with the deadline, s."""


class Timer:
    """Calls *expire()* once the deadline set by :meth:`start` is reached."""

    __slots__ = ("_sim", "_expire", "deadline", "_pending")

    def __init__(self, sim: Simulation, expire: Callable[[], None]) -> None:
        self._sim = sim
        self._expire = expire
        self.deadline: float | None = None
        """Absolute expiry time, s; None when the timer is stopped."""
        self._pending: float | None = None

    @property
    def running(self) -> bool:
        """True while a deadline is set."""
        return self.deadline is not None

    def start(self, delay: float) -> None:
        """(Re)start the timer to expire *delay* seconds from now."""
        now = self._sim.now
        self.deadline = now + delay
        if self._pending is None or self._pending > self.deadline + _EPSILON:
            self._pending = self.deadline
            self._sim.call_later(delay, self._fire, self.deadline)

    def stop(self) -> None:
        """Stop the timer; a pending event will find no deadline and do nothing."""
        self.deadline = None

    def _fire(self, deadline: float) -> None:
        if deadline != self._pending:
            return
        self._pending = None
        if self.deadline is None:
            return
        remaining = self.deadline - self._sim.now
        if remaining > _EPSILON:
            self._pending = self.deadline
            self._sim.call_later(remaining, self._fire, self.deadline)
            return
        self.deadline = None
        self._expire()


__all__ = ["Timer"]
