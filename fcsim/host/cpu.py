"""A host processor as a server of timed work.

Work items (a system call, a copy, protocol processing of one packet, an
interrupt) each take a stated time and run one at a time. Interrupt-level
work is taken first whenever the processor frees, then software-interrupt
work (IP and TCP input of received packets), then process-level work; none
preempts another (a simplification: a kernel takes its interrupts within a
copy; a 4.4BSD send path copies a 2 KB mbuf at a time, so protocol work
waits at most one such copy). A multiprocessor host runs interrupt and
software-interrupt work on its first processor only, in order (as a NIC's
interrupt and the protocol work it starts run on one processor at a time),
and process-level work (system calls, copies) on whichever processor is
free first. A :class:`BackgroundLoad` keeps the processor busy a given
fraction of the time with user-mode jobs of other processes, at a fourth
level below all three, and any other work preempts them at once: the job in
service stops, and the rest of it resumes when no other work waits. That is
4.4BSD's scheduling of a CPU-bound user process: an interrupt takes the
processor from it, and a process woken from a socket sleep runs at PSOCK, a
kernel priority above every user-mode priority, so ``wakeup()`` ->
``setrunnable()`` asks for a reschedule (``need_resched``) that switches to
it when the interrupt returns (kern_synch.c). Background jobs run on the
first processor only.
"""

from __future__ import annotations

from collections.abc import Callable

from fcsim.engine.server import Server
from fcsim.engine.simulation import Simulation

INTERRUPT, SOFTINT, PROCESS, BACKGROUND = 0, 1, 2, 3
"""Priority levels: interrupt-level work (a device's interrupt handler, at
splimp), then software-interrupt work (IP and TCP input of the packets the
interrupts queued, at splnet: 4.4BSD ``ipintr``), then process-level work (the
measured processes' system calls and copies), then other processes'
user-mode work, which the others preempt."""


class Cpu(Server):
    """Processor *name*; *speed* scales every cost (2.0 runs work twice as fast).
    With *processors* > 1 the others take process-level work whenever free
    (interrupt-level work stays on this one). *busy_time* sums the busy time
    of every processor, *background_time* the part of it spent on background
    load, s."""

    def __init__(self, sim: Simulation, name: str, speed: float = 1.0,
                 processors: int = 1) -> None:
        if speed <= 0:
            raise ValueError(f"{name}: speed must be > 0, got {speed}")
        if processors < 1:
            raise ValueError(f"{name}: processors must be >= 1, got {processors}")
        super().__init__(sim, name, levels=4)
        self.speed = speed
        self.processors = processors
        self.background_time = 0.0
        # the background job in service: (its end, its token, its callback)
        self._background: tuple[float, int, Callable[[], None] | None] | None = None
        self._token = 0
        self._idle_others = processors - 1  # the other processors not working now
        self._ends: list[float] = []  # when each of their jobs in service ends, s
        self._served = self._queues[:BACKGROUND]  # the rest by _idle, preemptible

    def run(self, cost: float, callback: Callable[[], None] | None = None,
            level: int = PROCESS, background: bool = False) -> None:
        """Do *cost* seconds of work (at speed 1), then call *callback*."""
        duration = cost / self.speed
        if background:
            self.background_time += duration
            if self._busy:
                self._queues[BACKGROUND].append((duration, callback))
            else:
                self._start_background(duration, callback)
            return
        if self._background is not None:
            self._preempt()
        if self._busy:  # Server.serve, written out: every job of the processor passes here
            self._queues[level].append((duration, callback))
        else:
            self._start(duration, callback)
        if level == PROCESS and self._idle_others:
            self._other()

    def _preempt(self) -> None:
        """Stop the background job in service; the rest of it waits first in line."""
        end, _token, done = self._background  # type: ignore[misc]
        now = self.sim.now
        rest = end - now
        self._background = None
        self._token += 1
        self.busy_time -= rest
        self.total_busy -= rest
        self._job_end = now
        self._queues[BACKGROUND].appendleft((rest, done))
        self._busy = False

    def _idle(self) -> None:
        """No interrupt, software-interrupt or process-level work waits: start the
        background work waiting, if any."""
        background = self._queues[BACKGROUND]
        if background:
            self._start_background(*background.popleft())
        else:
            self._busy = False

    def _start_background(self, duration: float, done: Callable[[], None] | None) -> None:
        """Serve a background item of *duration* s now, preemptible by all other work."""
        now = self.sim.now
        self._busy = True
        self.busy_time += duration
        self.total_busy += duration
        self._job_end = now + duration
        self._background = (now + duration, self._token, done)
        self.sim.call_later(duration, self._background_done, self._token)

    def _background_done(self, token: int) -> None:
        if token != self._token or self._background is None:
            return  # preempted
        done = self._background[2]
        self._background = None
        self._done(done)

    def _other(self) -> None:
        """An idle other processor takes the first process-level item waiting."""
        item = self.take_waiting(PROCESS)
        if item is None:
            return
        duration, done = item
        self._idle_others -= 1
        self.busy_time += duration
        self.total_busy += duration
        end = self.sim.now + duration
        self._ends.append(end)
        self.sim.call_later(duration, self._other_done, (done, end))

    def _other_done(self, job: tuple[Callable[[], None] | None, float]) -> None:
        done, end = job
        self._ends.remove(end)
        if done is not None:
            done()
        self._idle_others += 1
        self._other()

    def served_by_now(self) -> float:
        """Service time of every processor since the start, up to now, s."""
        now = self.sim.now
        return super().served_by_now() - sum(max(0.0, end - now) for end in self._ends)

    def reset_stats(self) -> None:
        """Start a new measurement interval."""
        super().reset_stats()
        self.background_time = 0.0


class BackgroundLoad:
    """Other processes on the host: user-mode jobs of exponentially distributed
    length (mean *mean_job* s) arriving at random so that they would keep an
    idle processor busy a fraction *utilisation* of the time, preempted by
    all other work (:class:`Cpu`). Drawn from the run's seeded stream
    *stream*."""

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
        self.cpu.run(job * self.cpu.speed, None, BACKGROUND, background=True)
        self._schedule()
