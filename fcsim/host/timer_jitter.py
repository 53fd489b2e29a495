"""How late a process's timed wait ends on a host.

A process that waits until a due time (iperf pacing its datagrams) does not
run again exactly then: its wait is a spin on gettimeofday() broken by
interrupts and other threads (iperf 2's ``delay_loop``, "good to within about
10 usecs" by its author's measurement, ``src/delay.cpp``), or a sleep whose
timer the kernel may fire up to the thread's timer slack late (Linux since
2.6.28: 50 us by default, prctl(2) PR_SET_TIMERSLACK), then a wake-up. Each
wait therefore ends a random time after it was due, never before. fcsim draws
that lateness uniformly between 0 and the host model's *timer_jitter*, from
the host's own random stream: the spread is the sources'; the uniform shape
is an assumption (nothing the sources give prefers one lateness to another).

This jitter decides which of several exactly periodic senders wins a full
queue (Floyd and Jacobson, "On Traffic Phase Effects in Packet-Switched
Gateways", 1992: without it the same flows lose every period). A jitter of 0
draws no random number, so such a host's runs stay identical under any seed.
"""

from __future__ import annotations

from fcsim.engine.simulation import Simulation


class TimerJitter:
    """The lateness of timed waits on host *name*: uniform in [0, *jitter*] s,
    drawn from the run's stream ``host/<name>/timer``."""

    def __init__(self, sim: Simulation, name: str, jitter: float) -> None:
        if jitter < 0:
            raise ValueError(f"host {name}: timer_jitter must be >= 0 s")
        self.jitter = jitter
        self._rng = sim.rng(f"host/{name}/timer") if jitter > 0 else None

    def lateness(self) -> float:
        """How long after its due time the next timed wait ends, s."""
        if self._rng is None:
            return 0.0
        return self._rng.uniform(0.0, self.jitter)
