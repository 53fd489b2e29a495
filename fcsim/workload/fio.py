"""Block I/O jobs as fio runs them (and dd, a sequential job of one command at a
time): each job keeps *iodepth* requests outstanding against a block device:
one target's logical unit or a volume striped over several, through the
node's FCP initiator, and through its host's system calls when it has one.

As in fio: sequential jobs walk the region from its start (wrapping at its
end); random jobs pick block-aligned offsets uniformly in the region (fio's
default ``blockalign = bs``); ``randrw`` draws each command's direction with
``rwmixread`` percent reads; the jobs of one workload (``numjobs``) address
the same region; latency is fio's completion latency, from the command's issue
to its response; a job ends at its first error (fio's default
``continue_on_error = none``), its commands still outstanding completing.
Its byte rate counts data as its frames arrive (at the
initiator for a read, at the target for a write), as a stream's does, not as
commands complete: with many large commands in flight a short measured
interval would otherwise count whole commands whose data crossed the link
mostly before it, or not at all; so no interval shows more than the link
carries, give or take a frame. A job on the node's own disks counts each
command's bytes as it completes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from fcsim.engine.simulation import Simulation
from fcsim.fc4.fcp import GOOD
from fcsim.stats.histogram import LogHistogram

if TYPE_CHECKING:
    from fcsim.host.block import Request

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


class BlockDevice(Protocol):
    """What a job reads and writes: a volume of FCP targets, directly or through
    a host's system calls (:mod:`fcsim.host.block`)."""

    def login(self, then: Callable[[], None]) -> None:
        """Process logins with the targets; *then()* when done."""

    def submit(self, write: bool, offset: int, length: int,
               done: Callable[[Request], None], meter: Any = None) -> Request:
        """Read or write; *done(request)* when complete; *meter* counts the data
        bytes as they arrive."""


class DataMeter:
    """Data a job has moved, counted as it arrives: *frames* and *payload*
    (bytes), and *taken_back*, the payload of abandoned attempts taken back out
    of them (bytes): the counters a :class:`~fcsim.fc2.sequence.Sequence`
    meter has."""

    __slots__ = ("frames", "payload", "taken_back")

    def __init__(self) -> None:
        self.frames = self.payload = self.taken_back = 0


class Fio:
    """The fio job *options* named *name*, run against *device*, which holds
    *capacity* bytes, from *start* s. With *metered* the device counts the
    data into the job's meter as it arrives (``submit(..., meter=)``);
    otherwise the job counts each command's bytes as it completes. With
    *tail* its latency percentiles add p99.9."""

    def __init__(self, sim: Simulation, name: str, device: BlockDevice, capacity: int,
                 options: FioOptions, start: float = 0.0, metered: bool = False,
                 tail: bool = False) -> None:
        if options.rw not in RW_MODES:
            raise ValueError(f"{name}: rw must be one of {', '.join(RW_MODES)}")
        self.sim, self.name, self.device = sim, name, device
        self.options = options
        size = options.size if options.size is not None else capacity - options.offset
        self._blocks = size // options.bs
        if self._blocks < 1 or options.offset + size > capacity:
            raise ValueError(f"{name}: the region does not fit the device")
        self._rng = sim.rng(f"fio/{name}")
        self._cursor = [0] * options.numjobs
        self._issued = [0] * options.numjobs
        self._failed = [False] * options.numjobs  # a job ends at its first error
        self.latency = LogHistogram()
        self.reads = self.writes = self.errors = self.bytes = 0
        self.moved = 0  # bytes of good commands since the start, never reset
        self.delivered = DataMeter()  # data bytes as they arrive, this interval
        self._metered = metered
        self._tail = tail
        self.first_issue: float | None = None
        self.finished: float | None = None
        self._open = 0
        sim.call_later(start, lambda event: device.login(self._begin))

    def reset_stats(self) -> None:
        """Start a new measured interval."""
        self.latency.reset()
        self.reads = self.writes = self.errors = self.bytes = 0
        self.delivered.frames = self.delivered.payload = self.delivered.taken_back = 0

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

        def done(request: Request) -> None:
            self._done(job, request)
        if self._metered:
            self.device.submit(write, o.offset + block * o.bs, o.bs, done, meter=self.delivered)
        else:
            self.device.submit(write, o.offset + block * o.bs, o.bs, done)

    def _done(self, job: int, command: Request) -> None:
        self._open -= 1
        if command.status == GOOD:
            self.latency.add(command.completed - command.issued)  # type: ignore[operator]
            self.bytes += command.length
            self.moved += command.length
            if not self._metered:
                self.delivered.payload += command.length
            if command.write:
                self.writes += 1
            else:
                self.reads += 1
        else:
            self.errors += 1
            self._failed[job] = True
        if not self._failed[job]:
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
            "throughput_bytes_per_s": self.delivered.payload / interval if interval > 0 else 0.0,
            "latency_s": {"mean": lat.mean if lat.count else None, "p50": quantile(0.5),
                          "p90": quantile(0.9), "p99": quantile(0.99),
                          **({"p99.9": quantile(0.999)} if self._tail else {}),
                          "max": lat.max if lat.count else None},
            "elapsed_s": elapsed, "moved_bytes": self.moved,
        }
