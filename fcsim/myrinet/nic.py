"""A Myrinet NIC (a LANai card) on a host; IP runs over it through
:class:`fcsim.host.interface.NicInterface`, one IP packet per Myrinet packet.

The card holds the packets the host has moved to it (by DMA over the host's
bus, the interface's part) in a transmit queue of *ring* packets and sends
them one after the other, each with the source route to its destination
that the topology builder computed (Myrinet's host interfaces map the
network and compute routes themselves; the builder stands in for that
mapping). A packet that finds the queue full is dropped and counted, as a
driver drops when its queue is full; the network itself drops nothing. The
card takes every packet arriving from its link into its memory at the line
rate (its memory is taken never to fill), so it never stops the switch
feeding it; a packet is handed up once its last character is in. Firmware
that handles a packet while it arrives (cut-through delivery) is told when
its first character is in (:attr:`MyrinetNic.on_arriving`) and asks how
much of it is in so far (:meth:`MyrinetNic.received`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fcsim.engine.simulation import Simulation
from fcsim.myrinet.packet import TYPE, MyrinetPacket
from fcsim.myrinet.port import MyrinetPort
from fcsim.myrinet.slack import Buffer, Segment

DEFAULT_MTU = 9000
"""IP MTU of a Myrinet interface, bytes: Myricom's GM driver tells IP 9000
(``GM_IP_MTU`` in GM's gm_internal.h)."""
DEFAULT_RING = 256
"""Transmit queue of a NIC, packets (assumption: as the Ethernet NIC's ring;
the LANai's send queue depth under IP is not known to us)."""


class MyrinetNicStats:
    """Packets sent and received, and packets dropped for a full transmit queue."""

    __slots__ = ("packets_tx", "packets_rx", "ring_drops")

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Zero every counter."""
        self.packets_tx = self.packets_rx = self.ring_drops = 0

    def as_dict(self) -> dict[str, int]:
        """The counters by name."""
        return {name: getattr(self, name) for name in self.__slots__}


class MyrinetNic:
    """The NIC of node *name* at Myrinet *address*, IP MTU *mtu* bytes. Its
    :attr:`routes` map each destination address to the output port at each
    switch on the way (empty: a host cabled straight to this one)."""

    go = True  # it always takes what arrives (the consumer of its own port's buffer)

    def __init__(self, sim: Simulation, name: str, address: int, mtu: int = DEFAULT_MTU,
                 ring: int = DEFAULT_RING) -> None:
        self.sim, self.name, self.address, self.mtu, self.ring = sim, name, address, mtu, ring
        self.port = MyrinetPort(sim, name, self)
        self.port.buffer.consumer = self
        self.queue = Buffer(sim, self.port)
        self.queue.consumer = self.port
        self.port.source = self.queue
        self.routes: dict[int, tuple[int, ...]] = {}
        self.stats = MyrinetNicStats()
        self.link_down_drops = 0
        """Packets that arrived cut short by a link fault, dropped (their CRC fails)."""
        self.deliver: Callable[[MyrinetPacket], None] | None = None
        self.on_sent: Callable[[], None] | None = None
        self.on_arriving: Callable[[MyrinetPacket], None] | None = None
        """Told of each packet whose first character has reached the card's
        memory (None: nobody asks)."""
        self.on_lost: Callable[[MyrinetPacket], None] | None = None
        """Told of each packet that arrived cut short and was dropped."""
        self._numbered = 0
        self._announced: MyrinetPacket | None = None

    def send(self, dst: int, payload: int, ulp: Any) -> bool:
        """Queue a packet of *payload* bytes to address *dst*; False if the queue is full."""
        if self.queue.held >= self.ring:
            self.stats.ring_drops += 1
            return False
        route = self.routes[dst]
        packet = MyrinetPacket(self.address, dst, route, payload, ulp, self._numbered)
        self._numbered += 1
        self.queue.push(packet, packet.chars(len(route)), len(route))
        return True

    def sent(self, port: MyrinetPort, segment: Segment) -> None:
        """A packet has left the queue whole; *on_sent()*, if set, is told."""
        self.stats.packets_tx += 1
        if self.on_sent is not None:
            self.on_sent()

    def flow(self, buffer: Buffer, on: bool) -> None:
        """The card takes the arriving characters as they come; the first of a
        packet is told to :attr:`on_arriving`, if set."""
        if on and self.on_arriving is not None:
            packet = buffer.segments[0].packet
            if packet is not self._announced:
                self._announced = packet
                self.on_arriving(packet)

    def received(self, packet: MyrinetPacket) -> int:
        """Payload bytes of *packet*, the packet arriving, in the card's memory
        now (its route bytes are spent on the way; its type comes first)."""
        buffer = self.port.buffer
        chars = buffer.arriving() if buffer.segments and (
            buffer.segments[-1].packet is packet) else float(packet.chars(0))
        return max(0, min(packet.payload, int(chars + 1e-6) - TYPE))

    def finished(self, buffer: Buffer, segment: Segment) -> None:
        """A packet has arrived whole: hand it up (one cut short by a link fault
        fails its CRC and is dropped)."""
        if segment.packet.corrupt:
            self.link_down_drops += 1
            if self.on_lost is not None:
                self.on_lost(segment.packet)
            return
        self.stats.packets_rx += 1
        if self.deliver is not None:
            self.deliver(segment.packet)
