"""I/O buses: the path between host memory and the adapter.

Every DMA transfer holds the bus for a fixed set-up overhead plus its bytes
at the bus's sustained bandwidth; transfers take turns (first come, first
served). Peak bandwidths are width x clock (fact sheet section 10.4);
sustained rates are lower and, like the overheads, belong to a host model
that states where they come from.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from fcsim.engine.simulation import Simulation


@dataclass(frozen=True)
class BusType:
    """A bus standard: data *width* in bits and *clock* in Hz."""

    name: str
    width: int
    clock: float

    @property
    def peak(self) -> float:
        """Peak bandwidth, bytes/s (width x clock)."""
        return self.width / 8 * self.clock


BUS_TYPES: dict[str, BusType] = {b.name: b for b in (
    BusType("ISA", 16, 8.33e6),
    BusType("EISA", 32, 8.33e6),
    BusType("MCA", 32, 10e6),
    BusType("PCI-32/33", 32, 33.33e6),
    BusType("PCI-64/33", 64, 33.33e6),
    BusType("PCI-32/66", 32, 66.66e6),
    BusType("PCI-64/66", 64, 66.66e6),
)}
"""Bus standards by name (peak = width x clock: EISA 33 MB/s, PCI-32/33 133 MB/s)."""


class IoBus:
    """A bus of *kind* moving *bandwidth* bytes/s with *overhead* s per transfer."""

    def __init__(self, sim: Simulation, name: str, kind: BusType, bandwidth: float,
                 overhead: float) -> None:
        if not 0 < bandwidth <= kind.peak:
            raise ValueError(f"{name}: sustained bandwidth must be in (0, {kind.peak:g}] "
                             f"bytes/s for {kind.name}, got {bandwidth:g}")
        if overhead < 0:
            raise ValueError(f"{name}: transfer overhead must be >= 0 s")
        self.sim = sim
        self.name = name
        self.kind = kind
        self.bandwidth = bandwidth
        self.overhead = overhead
        self.busy_time = 0.0
        self._queue: deque[tuple[float, Callable[[], None]]] = deque()
        self._busy = False

    def transfer(self, nbytes: int, done: Callable[[], None]) -> None:
        """Move *nbytes* by DMA, then call *done*."""
        self._queue.append((self.overhead + nbytes / self.bandwidth, done))
        if not self._busy:
            self._next()

    def _next(self) -> None:
        if not self._queue:
            self._busy = False
            return
        duration, done = self._queue.popleft()
        self._busy = True
        self.busy_time += duration
        self.sim.call_later(duration, self._done, done)

    def _done(self, event: object) -> None:
        event.value()  # type: ignore[attr-defined]
        self._next()

    def reset_stats(self) -> None:
        """Start a new measurement interval."""
        self.busy_time = 0.0
