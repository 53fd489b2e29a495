"""I/O buses: the path between host memory and the adapter.

Every DMA transfer holds the bus for a fixed set-up overhead plus its bytes
at the bus's sustained bandwidth; transfers take turns (first come, first
served). Peak bandwidths are width x clock (fact sheet section 10.4);
sustained rates are lower and, like the overheads, belong to a host model
that states where they come from.

PCI Express links (:class:`PcieBus`) are serial: *lanes* x transfer rate x the
code's efficiency (8b/10b for generations 1 and 2, 128b/130b from generation
3 on: PCI Express Base Specification 3.0, 4.2 and 4.2.2) is the peak, and a
DMA transfer travels as transaction layer packets of at most the negotiated
max payload size, each carrying 24 bytes besides its data: a memory write
with a 64-bit address has a 16-byte header, a 4-byte LCRC and, in generations
1 and 2, 1-byte STP and END framing symbols and a 2-byte sequence number, in
generation 3 and later a 4-byte STP token holding the sequence number (Xilinx
WP350, "Understanding Performance of PCI Express Systems": 20 bytes with a
32-bit address, 24 with a 64-bit one; PCIe 3.0 4.2.2.3). Data link layer
packets (ACKs, flow-control updates) are not drawn one by one: a host model
states them in its sustained bandwidth.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from fcsim.engine.server import Server
from fcsim.engine.simulation import Simulation


@dataclass(frozen=True)
class BusType:
    """A bus standard: data *width* in bits and *clock* in Hz (a PCI Express
    link: *width* its lanes, *clock* each lane's data bits a second after
    coding, and *tlp_overhead* the bytes each packet carries besides its data;
    0 for a parallel bus)."""

    name: str
    width: int
    clock: float
    tlp_overhead: int = 0

    @property
    def peak(self) -> float:
        """Peak bandwidth, bytes/s (width x clock)."""
        return self.width / 8 * self.clock


PCIE_GENERATIONS: dict[int, tuple[float, int, int]] = {
    1: (2.5e9, 8, 10), 2: (5e9, 8, 10), 3: (8e9, 128, 130), 4: (16e9, 128, 130),
    5: (32e9, 128, 130)}
"""PCI Express generation: (transfers a second per lane, data bits, code bits)
(PCI Express Base Specification 1.0a, 2.0, 3.0, 4.0, 5.0)."""
TLP_OVERHEAD = 24
"""Bytes of a memory-write TLP with a 64-bit address besides its data, in every
generation (see the module's docstring)."""


def _pcie(generation: int, lanes: int) -> BusType:
    rate, data, code = PCIE_GENERATIONS[generation]
    return BusType(f"PCIe-{generation}-x{lanes}", lanes, rate * data / code, TLP_OVERHEAD)


BUS_TYPES: dict[str, BusType] = {b.name: b for b in (
    BusType("ISA", 16, 8.33e6),
    BusType("EISA", 32, 8.33e6),
    BusType("MCA", 32, 10e6),
    BusType("PCI-32/33", 32, 33.33e6),
    BusType("PCI-64/33", 64, 33.33e6),
    BusType("PCI-32/66", 32, 66.66e6),
    BusType("PCI-64/66", 64, 66.66e6),
    *(_pcie(generation, lanes) for generation in PCIE_GENERATIONS
      for lanes in (1, 2, 4, 8, 16)),
)}
"""Bus standards by name (peak = width x clock: EISA 33 MB/s, PCI-32/33 133 MB/s,
PCIe-3-x8 7.88 GB/s)."""


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
        duration = self.overhead + nbytes / self.bandwidth
        if self._busy:  # Server.serve, written out: every DMA passes here
            self._queues[0].append((duration, done))
        else:
            self._start(duration, done)


class PcieBus(IoBus):
    """A PCI Express link: each DMA transfer of n bytes travels as
    ceil(n / *max_payload*) packets, each carrying the link's TLP overhead
    besides its data, at the sustained *bandwidth*."""

    def __init__(self, sim: Simulation, name: str, kind: BusType, bandwidth: float,
                 overhead: float, max_payload: int) -> None:
        if not kind.tlp_overhead:
            raise ValueError(f"{name}: {kind.name} is not a PCI Express link")
        if max_payload < 128 or max_payload & (max_payload - 1) or max_payload > 4096:
            raise ValueError(f"{name}: max payload size must be 128, 256 ... 4096 bytes")
        super().__init__(sim, name, kind, bandwidth, overhead)
        self.max_payload = max_payload

    def transfer(self, nbytes: int, done: Callable[[], None]) -> None:
        """Move *nbytes* by DMA in max-payload-size packets, then call *done*."""
        packets = -(-nbytes // self.max_payload)
        self.serve(self.overhead + (nbytes + packets * self.kind.tlp_overhead)
                   / self.bandwidth, done)


def pcie_goodput(kind: BusType, bandwidth: float, max_payload: int) -> float:
    """Data bytes/s a PCI Express link of *kind* at sustained *bandwidth* moves in
    full packets of *max_payload* bytes: ``bandwidth x MPS / (MPS + overhead)``."""
    return bandwidth * max_payload / (max_payload + kind.tlp_overhead)
