"""What every workload measures: delivered payload, frames and sequence latency."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fcsim.engine.simulation import Simulation
from fcsim.fc2.nport import NPort
from fcsim.fc2.sequence import Sequence
from fcsim.stats.histogram import LogHistogram


class WorkloadStats:
    """Counters of one workload over the measured interval.

    *frames* and *payload* count, frame by frame, what the recipient accepted
    in the interval (the sequences' meter: frames of an attempt the recipient
    abandons are taken back). A sequence counts in *sequences* when the
    recipient has all of it; its latency runs from the moment the workload
    handed it to FC-2 to that moment, s. *taken_back* is the payload taken
    back in the interval (bytes), so *payload* + *taken_back* is all the
    recipient accepted, which only grows.
    """

    __slots__ = ("sequences", "frames", "payload", "taken_back", "latency", "sent",
                 "rejected", "aborted")

    def __init__(self) -> None:
        self.latency = LogHistogram()
        self.reset()

    def reset(self) -> None:
        """Zero every counter."""
        self.sequences = self.frames = self.payload = self.taken_back = 0
        self.sent = self.rejected = self.aborted = 0
        self.latency.reset()


class Workload:
    """Base of the traffic sources: sends from *source* to N_Port *d_id*.

    *cls* is the class of service, *max_data_field* the largest payload per
    frame (bytes; the recipient's login limit also applies), *start* the time
    the first sequence is offered, s, and *count* the number of sequences to
    send (None: no limit). *waits* lists what the workload waits for besides
    its source's login (each a ``when_ready(callback)``: an alias group being
    joined, the other N_Ports of a striped stream).
    """

    def __init__(
        self,
        sim: Simulation,
        name: str,
        source: NPort,
        d_id: int,
        cls: int,
        max_data_field: int | None,
        start: float,
        count: int | None,
    ) -> None:
        self.sim = sim
        self.name = name
        self.source = source
        self.d_id = d_id
        self.cls = cls
        self.max_data_field = max_data_field
        self.start = start
        self.count = count
        self.offered = 0
        self.stats = WorkloadStats()
        self.waits: list[Callable[[Callable[[], None]], None]] = []

    def when_ready(self, callback: Callable[[], None]) -> None:
        """Call *callback* once the source has logged in and every one of
        :attr:`waits` is ready."""
        waits = [self.source.when_ready, *self.waits]

        def step(i: int) -> None:
            if i == len(waits):
                callback()
            else:
                waits[i](lambda: step(i + 1))
        step(0)

    def reset_stats(self) -> None:
        """Start a new measurement interval."""
        self.stats.reset()

    def _may_offer(self) -> bool:
        return self.count is None or self.offered < self.count

    def _on_complete(self, seq: Sequence) -> None:
        stats = self.stats
        if seq.status == "rejected":
            stats.rejected += 1
        elif seq.status == "aborted":
            stats.aborted += 1
        else:
            stats.sent += 1

    def _on_delivered(self, seq: Sequence, time: float) -> None:
        stats = self.stats
        stats.sequences += 1
        stats.latency.add(time - seq.created)

    def results(self, interval: float) -> dict[str, Any]:
        """The workload's figures over a measured *interval* of s."""
        stats = self.stats
        lat = stats.latency
        rate = stats.payload / interval if interval > 0 else 0.0
        return {
            "class": self.cls,
            "sequences": stats.sequences,
            "frames": stats.frames,
            "payload_bytes": stats.payload,
            "throughput_bytes_per_s": rate,
            "throughput_bits_per_s": 8 * rate,
            "sequences_per_s": stats.sequences / interval if interval > 0 else 0.0,
            "latency_s": {
                "mean": lat.mean if lat.count else None,
                "p50": lat.quantile(0.5) if lat.count else None,
                "p99": lat.quantile(0.99) if lat.count else None,
                "max": lat.max if lat.count else None,
            },
            "sender": {"completed": stats.sent, "rejected": stats.rejected,
                       "aborted": stats.aborted},
        }
