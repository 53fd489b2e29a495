"""I/O buses: the path between host memory and the adapter.

Every DMA transfer holds the bus for a fixed set-up overhead plus its bytes
at the bus's sustained bandwidth; transfers take turns (first come, first
served). Peak bandwidths are width x clock (fact sheet section 10.4);
sustained rates are lower and, like the overheads, belong to a host model
that states where they come from.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from fcsim.engine.server import Server
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


class IoBus(Server):
    """A bus of *kind* moving *bandwidth* bytes/s with *overhead* s per transfer."""

    def __init__(self, sim: Simulation, name: str, kind: BusType, bandwidth: float,
                 overhead: float) -> None:
        if not 0 < bandwidth <= kind.peak:
            raise ValueError(f"{name}: sustained bandwidth must be in (0, {kind.peak:g}] "
                             f"bytes/s for {kind.name}, got {bandwidth:g}")
        if overhead < 0:
            raise ValueError(f"{name}: transfer overhead must be >= 0 s")
        super().__init__(sim, name)
        self.kind = kind
        self.bandwidth = bandwidth
        self.overhead = overhead

    def transfer(self, nbytes: int, done: Callable[[], None]) -> None:
        """Move *nbytes* by DMA, then call *done*."""
        self.serve(self.overhead + nbytes / self.bandwidth, done)
