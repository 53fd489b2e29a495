"""A host processor as a server of timed work.

Work items (a system call, a copy, protocol processing of one packet, an
interrupt) each take a stated time and run one at a time. Interrupt-level
work is taken before process-level work whenever the processor frees, but is
not preemptive (a simplification: 1990s Unix kernels ran protocol input at
software-interrupt level between process time slices). A :class:`BackgroundLoad`
keeps the processor busy a given fraction of the time with process-level
jobs, so that a "lightly" or "moderately" loaded host slows the measured work
by contention, as on a real machine.
"""

from __future__ import annotations

from collections.abc import Callable

from fcsim.engine.server import Server
from fcsim.engine.simulation import Simulation

INTERRUPT, PROCESS = 0, 1
"""Priority levels: interrupt-level work before process-level work."""


class Cpu(Server):
    """Processor *name*; *speed* scales every cost (2.0 runs work twice as fast).
    *background_time* is the part of *busy_time* spent on background load, s."""

    def __init__(self, sim: Simulation, name: str, speed: float = 1.0) -> None:
        if speed <= 0:
            raise ValueError(f"{name}: speed must be > 0, got {speed}")
        super().__init__(sim, name, levels=2)
        self.speed = speed
        self.background_time = 0.0

    def run(self, cost: float, callback: Callable[[], None] | None = None,
            level: int = PROCESS, background: bool = False) -> None:
        """Do *cost* seconds of work (at speed 1), then call *callback*."""
        duration = cost / self.speed
        if background:
            self.background_time += duration
        self.serve(duration, callback, level)

    def reset_stats(self) -> None:
        """Start a new measurement interval."""
        super().reset_stats()
        self.background_time = 0.0


class BackgroundLoad:
    """Other processes on the host: jobs of exponentially distributed length
    (mean *mean_job* s) arriving at random so that they would keep an idle
    processor busy a fraction *utilisation* of the time. Drawn from the run's
    seeded stream *stream*."""

    def __init__(self, sim: Simulation, cpu: Cpu, utilisation: float, mean_job: float,
                 stream: str) -> None:
        if not 0 <= utilisation < 1 or mean_job <= 0:
            raise ValueError(f"{cpu.name}: background utilisation must be in [0, 1) and "
                             "mean_job > 0 s")
        self.sim = sim
        self.cpu = cpu
        self.utilisation = utilisation
        self.mean_job = mean_job
        self._rng = sim.rng(stream)
        if utilisation > 0:
            self._schedule()

    def _schedule(self) -> None:
        gap = self._rng.expovariate(self.utilisation / self.mean_job)
        self.sim.call_later(gap, self._arrive)

    def _arrive(self, _event: object) -> None:
        job = self._rng.expovariate(1.0 / self.mean_job)
        self.cpu.run(job * self.cpu.speed, None, PROCESS, background=True)
        self._schedule()
