"""Block I/O jobs as fio runs them (and dd, a sequential job of one command at a
time): each job keeps *iodepth* SCSI commands outstanding against one target's
logical unit, through the node's FCP initiator.

As in fio: sequential jobs walk the region from its start (wrapping at its
end); random jobs pick block-aligned offsets uniformly in the region (fio's
default ``blockalign = bs``); ``randrw`` draws each command's direction with
``rwmixread`` percent reads; the jobs of one workload (``numjobs``) address
the same region; latency is fio's completion latency, from the command's issue
to its response.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fcsim.engine.simulation import Simulation
from fcsim.fc4.fcp import GOOD, Command
from fcsim.fc4.fcp_initiator import FcpInitiator
from fcsim.stats.histogram import LogHistogram

RW_MODES = ("read", "write", "randread", "randwrite", "randrw")
"""fio's ``rw`` values modelled."""


@dataclass(frozen=True)
class FioOptions:
    """A fio job: *rw* (one of :data:`RW_MODES`), block size *bs* (bytes),
    *iodepth* commands outstanding per job, *numjobs* jobs, *rwmixread*
    percent reads for ``randrw``, the region *offset* .. *offset* + *size*
    (bytes; None: to the end of the device), and *count* commands per job
    (None: until the run ends)."""

    rw: str
    bs: int
    iodepth: int = 1
    numjobs: int = 1
    rwmixread: int = 50
    offset: int = 0
    size: int | None = None
    count: int | None = None


class Fio:
    """The fio job *options* named *name*, run by *initiator* against the target at
    N_Port *d_id* whose logical unit holds *capacity* bytes, from *start* s."""

    def __init__(self, sim: Simulation, name: str, initiator: FcpInitiator, d_id: int,
                 capacity: int, options: FioOptions, start: float = 0.0) -> None:
        if options.rw not in RW_MODES:
            raise ValueError(f"{name}: rw must be one of {', '.join(RW_MODES)}")
        self.sim, self.name, self.initiator, self.d_id = sim, name, initiator, d_id
        self.options = options
        size = options.size if options.size is not None else capacity - options.offset
        self._blocks = size // options.bs
        if self._blocks < 1 or options.offset + size > capacity:
            raise ValueError(f"{name}: the region does not fit the device")
        self._rng = sim.rng(f"fio/{name}")
        self._cursor = [0] * options.numjobs
        self._issued = [0] * options.numjobs
        self.latency = LogHistogram()
        self.reads = self.writes = self.errors = self.bytes = 0
        self.moved = 0  # bytes of good commands since the start, never reset
        self.first_issue: float | None = None
        self.finished: float | None = None
        self._open = 0
        sim.call_later(start, lambda event: initiator.login(d_id, self._begin))

    def reset_stats(self) -> None:
        """Start a new measured interval."""
        self.latency.reset()
        self.reads = self.writes = self.errors = self.bytes = 0

    def _begin(self) -> None:
        self.first_issue = self.sim.now
        for job in range(self.options.numjobs):
            for _ in range(self.options.iodepth):
                self._next(job)

    def _next(self, job: int) -> None:
        o = self.options
        if o.count is not None and self._issued[job] >= o.count:
            if self._open == 0 and all(n >= o.count for n in self._issued):
                self.finished = self.sim.now
            return
        self._issued[job] += 1
        if o.rw in ("read", "write"):
            block = self._cursor[job]
            self._cursor[job] = (block + 1) % self._blocks
            write = o.rw == "write"
        else:
            block = self._rng.randrange(self._blocks)
            write = (o.rw == "randwrite" or
                     (o.rw == "randrw" and self._rng.random() * 100 >= o.rwmixread))
        self._open += 1
        self.initiator.submit(self.d_id, write, o.offset + block * o.bs, o.bs,
                              lambda command: self._done(job, command))

    def _done(self, job: int, command: Command) -> None:
        self._open -= 1
        if command.status == GOOD:
            self.latency.add(command.completed - command.issued)  # type: ignore[operator]
            self.bytes += command.length
            self.moved += command.length
            if command.write:
                self.writes += 1
            else:
                self.reads += 1
        else:
            self.errors += 1
        self._next(job)

    def results(self, interval: float) -> dict[str, Any]:
        """The job's figures over a measured *interval* of s."""
        lat = self.latency
        ios = self.reads + self.writes
        o = self.options

        def quantile(q: float) -> float | None:
            return lat.quantile(q) if lat.count else None
        elapsed = (self.finished - self.first_issue
                   if self.finished is not None and self.first_issue is not None else None)
        return {
            "rw": o.rw, "bs": o.bs, "iodepth": o.iodepth, "numjobs": o.numjobs,
            "ios": ios, "read_ios": self.reads, "write_ios": self.writes,
            "errors": self.errors, "bytes": self.bytes,
            "iops": ios / interval if interval > 0 else 0.0,
            "throughput_bytes_per_s": self.bytes / interval if interval > 0 else 0.0,
            "latency_s": {"mean": lat.mean if lat.count else None, "p50": quantile(0.5),
                          "p90": quantile(0.9), "p99": quantile(0.99),
                          "max": lat.max if lat.count else None},
            "elapsed_s": elapsed, "moved_bytes": self.moved,
        }
