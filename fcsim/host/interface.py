"""A host's network interface: what IP needs of the link below it.

IP and TCP/UDP on a host (:mod:`fcsim.host.host`) run over any interface with
an *address* (the link-level address peers send to: an N_Port ID, a MAC),
an IP *mtu*, a count of the link *frames* a packet takes (the driver's work
is per frame), *transmit* (the packet fetched from host memory by the card's
DMA, then sent) and *when_ready* (after the link's login, if it has one).
Received packets go to the *deliver(packet, length, time)* the host gives.

:class:`FcInterface` is IP over Fibre Channel through a host adapter
(RFC 2625); :class:`fcsim.ethernet.nic.EthernetInterface` is IP over
Ethernet.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from fcsim.engine.simulation import Simulation
from fcsim.fc2.frame import MAX_DATA_FIELD
from fcsim.fc2.nport import NPort
from fcsim.fc4.ip import LLC_SNAP, MTU, NETWORK_HEADER, IpOverFc
from fcsim.host.adapter import AdapterModel, HostAdapter
from fcsim.host.bus import IoBus

Deliver = Callable[..., None]
"""Called with each IP packet received whole, its length (bytes) and the time,
and (Ethernet) whether it raised the receive interrupt."""


class Interface(Protocol):
    """What a host's IP needs of an interface (see the module's docstring)."""

    address: int
    mtu: int
    network: str
    """The name of the network it is on ("" in a scenario of one network)."""
    checksum_per_byte: float
    """Processor time the host spends per byte checksummed for it, s (0 when the
    card computes and checks the checksums)."""

    def frames(self, size: int) -> int:
        """Link frames an IP packet of *size* bytes takes."""

    def transmit(self, destination: int, size: int, packet: object,
                 sent: Callable[[Any], None] | None) -> None:
        """Send the IP *packet* of *size* bytes to link address *destination*."""

    def when_ready(self, callback: Callable[[], None]) -> None:
        """Call *callback* once the interface can send (at once if it can)."""


class FcInterface:
    """IP over FC on *nport*: its adapter on *bus* (per-frame time *frame_time*,
    s), IP in Class *ip_class*; received packets to *deliver*."""

    mtu = MTU
    network = ""
    checksum_per_byte = 0.0

    def __init__(self, sim: Simulation, name: str, nport: NPort, bus: IoBus,
                 frame_time: float, ip_class: int, deliver: Deliver) -> None:
        self.nport = nport
        self.adapter = HostAdapter(sim, nport, bus, AdapterModel(f"{name}.hba", frame_time))
        self.ip = IpOverFc(nport, ip_class, deliver=deliver)

    @property
    def address(self) -> int:
        """The N_Port ID (assigned at fabric login)."""
        return self.nport.port_id

    def frames(self, size: int) -> int:
        """FC frames of the sequence carrying a packet of *size* bytes."""
        return -(-(size + NETWORK_HEADER + LLC_SNAP) // MAX_DATA_FIELD)

    def transmit(self, destination: int, size: int, packet: object,
                 sent: Callable[[Any], None] | None) -> None:
        """DMA the packet to the card, then send it as one FC sequence."""
        self.adapter.transmit(size, self.frames(size),
                              lambda: self.ip.send(destination, size, packet, sent))

    def when_ready(self, callback: Callable[[], None]) -> None:
        """After the N_Port's fabric login."""
        self.nport.when_ready(callback)
