"""Where latency is spent in a queue: how long each frame waited, how long the queue was.

A :class:`QueueMeter` watches one queue (a switch output's: every frame
waiting, in any input, for that output). Each frame calls :meth:`enter` when
it joins and :meth:`leave` with the time it waited when it goes (crosses
the crossbar, or is refused after the hold time). The wait is kept in a
:class:`~fcsim.stats.histogram.LogHistogram` (mean, p99 and max of the
frames that left in the interval); the length is time-weighted: the time
spent at each length, so the mean is the time average (Little's law
relates it to the mean wait) and the p99 is the length the queue stayed at
or below for 99 % of the interval.
"""

from __future__ import annotations

from typing import Any

from fcsim.stats.histogram import LogHistogram

CLOCK_ROUNDING = 2.0 ** -48
"""A wait shorter than this fraction of the clock's reading is none: the time a
frame joins a queue (an arrival plus delays) and the time it leaves (a
transmitter's free time plus frames' times) can be one instant reached by two
sums of floats, a few units in the last place apart (one is 2^-52 of the
reading or less: 1.7e-18 s at 10 ms of simulated time); 2^-48 is 16 of them,
and no physical wait is that short (3.6e-17 s at 10 ms, 3.6e-12 s after
1000 s; a bit at 128GFC lasts 7.5e-12 s). One multiplication a frame."""


class QueueMeter:
    """Waits (s) and time-weighted length (frames) of one queue since :meth:`reset`."""

    __slots__ = ("wait", "length", "_since", "_start", "_time_at", "_max")

    def __init__(self, now: float = 0.0) -> None:
        self.wait = LogHistogram()
        self.length = 0
        self._time_at: dict[int, float] = {}
        self.reset(now)

    def reset(self, now: float) -> None:
        """Start a new interval at *now* (s); frames already queued stay counted."""
        self.wait.reset()
        self._time_at.clear()
        self._since = self._start = now
        self._max = self.length

    def _advance(self, now: float) -> None:
        time_at = self._time_at
        time_at[self.length] = time_at.get(self.length, 0.0) + now - self._since
        self._since = now

    def enter(self, now: float) -> None:
        """A frame joins the queue at *now* (s)."""
        length = self.length
        time_at = self._time_at  # _advance, inline: once a frame
        time_at[length] = time_at.get(length, 0.0) + now - self._since
        self._since = now
        self.length = length = length + 1
        if length > self._max:
            self._max = length

    def leave(self, now: float, waited: float) -> None:
        """A frame leaves at *now* (s) after waiting *waited* s."""
        length = self.length
        time_at = self._time_at
        time_at[length] = time_at.get(length, 0.0) + now - self._since
        self._since = now
        self.length = length - 1
        self.wait.add(waited if waited > now * CLOCK_ROUNDING else 0.0)

    def results(self, now: float) -> dict[str, Any]:
        """Wait (s) and length (frames) figures of the interval up to *now* (s)."""
        self._advance(now)
        total = now - self._start
        time_at = sorted(self._time_at.items())
        mean = sum(n * t for n, t in time_at) / total if total > 0 else 0.0
        p99 = 0
        if total > 0:
            covered = 0.0
            for n, t in time_at:
                covered += t
                p99 = n
                if covered >= 0.99 * total * (1 - 1e-12):
                    break
        wait = self.wait
        return {
            "frames": wait.count,
            "wait_s": {"mean": wait.mean, "p99": wait.quantile(0.99), "max": wait.max}
            if wait.count else {"mean": None, "p99": None, "max": None},
            "length": {"mean": mean, "p99": p99, "max": self._max},
        }

