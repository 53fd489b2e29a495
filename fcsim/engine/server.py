"""A server of timed work items: one at a time, by priority level, then in order.

The processor and the I/O bus of a host are such servers (:mod:`fcsim.host`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from heapq import heappush

from simpy.events import NORMAL

from fcsim.engine.simulation import Simulation


class Server:
    """Serves work items one at a time; level 0 before level 1 and so on
    (not preemptive). *busy_time* sums the time spent serving in the measured
    interval, s (a job counts whole when it starts); :meth:`served_by_now` the
    time served since the start, never reset (for tools that time their own
    interval, as netperf does)."""

    def __init__(self, sim: Simulation, name: str, levels: int = 1) -> None:
        self.sim = sim
        self._env = sim.env
        self._heap = sim.env._queue
        self._eid = sim.env._eid
        self._on_done = self._done  # bound once: every job's end calls it
        self.name = name
        self.busy_time = self.total_busy = self._job_end = 0.0
        self._queues: tuple[deque[tuple[float, Callable[[], None] | None]], ...] = tuple(
            deque() for _ in range(levels))
        self._served = self._queues
        """The levels a job's end starts the next item of, first to last; when
        none has one, :meth:`_idle` decides (a subclass may serve the other
        levels its own way)."""
        self._busy = False

    def serve(self, duration: float, done: Callable[[], None] | None = None,
              level: int = 0) -> None:
        """Take *duration* seconds of service, then call *done*."""
        if self._busy:
            self._queues[level].append((duration, done))
        else:  # an idle server has nothing waiting: this item is next
            self._start(duration, done)

    def _start(self, duration: float, done: Callable[[], None] | None) -> None:
        """Serve an item of *duration* s now, then call *done*.

        The job's end is :meth:`Simulation.call_later`'s heap entry written out
        (the same time, priority and insertion number, so the same order): the
        processors and buses start every job here or in :meth:`_done`."""
        self._busy = True
        self.busy_time += duration
        self.total_busy += duration
        self._job_end = end = self._env._now + duration
        heappush(self._heap, (end, NORMAL, next(self._eid), self._on_done, done))

    def _done(self, done: Callable[[], None] | None) -> None:
        """The job in service has ended: call its *done*, then start the next
        item (the first of the highest level that has one)."""
        if done is not None:
            done()
        for queue in self._served:
            if queue:
                duration, then = queue.popleft()
                # _start written out (the server is busy already): the busiest path
                self.busy_time += duration
                self.total_busy += duration
                self._job_end = end = self._env._now + duration
                heappush(self._heap, (end, NORMAL, next(self._eid), self._on_done, then))
                return
        self._idle()

    def _idle(self) -> None:
        """No item waits at the levels served: the server is idle."""
        self._busy = False

    def take_waiting(self, level: int) -> tuple[float, Callable[[], None] | None] | None:
        """The first item waiting at *level*, removed from the queue (None if
        none waits): for a helper that serves it elsewhere."""
        queue = self._queues[level]
        return queue.popleft() if queue else None

    def served_by_now(self) -> float:
        """Service time given since the start, up to now (the job in service
        counted only for its part so far), s."""
        return self.total_busy - max(0.0, self._job_end - self.sim.env._now)

    def reset_stats(self) -> None:
        """Start a new measurement interval."""
        self.busy_time = 0.0
