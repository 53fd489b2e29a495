"""The Trapeze firmware on a LANai card: the send and receive rings, the host
DMA engine and adaptive message pipelining.

Sources: Anderson, Chase, Gadde, Gallatin, Yocum and Feeley, "Cheating the
I/O Bottleneck: Network Storage with Trapeze/Myrinet", USENIX ATC 1998,
section 2 (firmware and host exchange commands through the card's memory;
an incoming payload table names the frame a payload is put in, so it lands
there by DMA, without a copy); Chase et al., "Network I/O with Trapeze", Hot
Interconnects 1999, sections 2.2 and 3 (128-byte control messages in send
and receive rings; adaptive message pipelining); Yocum et al., "Adaptive
Message Pipelining for Network Memory and Network Storage", Duke 1998.

Sending: the host writes a message's control message into the card's send
ring over the bus (:meth:`TrapezeCard.post`); the card then moves the payload
from host memory by DMA and sends it on the link, with the card's own
processor time per packet (the host model's ``adapter_frame_time``, shared
with IP on the same card). Receiving: each packet is taken into the card's
memory, costs the card's time, and is moved to host memory by DMA; once a
message's last byte is there the host hears of it (:attr:`deliver`).

The card has one host DMA engine for both directions (a LANai has one host
DMA engine); arrivals and outgoing payload take turns when both wait. A
message without payload needs no DMA: the card sends it as soon as the
messages before it in the send ring have gone. **Adaptive message pipelining**, as
modelled: a DMA transfer of outgoing payload moves at least
:data:`~fcsim.trapeze.message.MIN_FRAGMENT` bytes, and more when the link
has that much still to send (packets queued on the card, other messages
waiting in the send ring): a lone message goes out in small transfers, each
sent on the link as soon as it is on the card, so that the link and the
receiving card start on the first bytes while the rest crosses the sender's
bus; a backed-up stream moves whole messages, one DMA set-up each. An
arriving message is moved to host memory in transfers of everything of it
that has arrived and not yet been moved. This is our reading of the policy
the papers describe ("pipelines individual messages automatically for
lowest latency, while dynamically increasing the transfer sizes as traffic
increases"); the firmware's own rule was not read.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

from fcsim.engine.simulation import Simulation
from fcsim.host.bus import IoBus
from fcsim.myrinet.nic import MyrinetNic
from fcsim.myrinet.packet import MyrinetPacket
from fcsim.trapeze.message import MIN_FRAGMENT, Fragment, Message


class CardStats:
    """Messages and fragment packets sent and received, and the card's DMA
    transfers and bytes over the measured interval."""

    __slots__ = ("messages_tx", "messages_rx", "fragments_tx", "fragments_rx",
                 "dma_transfers", "dma_bytes")

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Zero every counter."""
        self.messages_tx = self.messages_rx = self.fragments_tx = self.fragments_rx = 0
        self.dma_transfers = self.dma_bytes = 0

    def as_dict(self) -> dict[str, int]:
        """The counters by name."""
        return {name: getattr(self, name) for name in self.__slots__}


class TrapezeCard:
    """The Trapeze firmware of *nic*, moving data over the host's *bus*;
    *card_delay()* takes the card's processor for one packet and says how long
    until it is done (:meth:`fcsim.host.interface.NicInterface.card_delay`);
    *address_of(node)* is a node's Myrinet address. Packets that carry no
    Trapeze fragment (IP) go to the NIC's previous receiver. Whole messages
    received go to :attr:`deliver`."""

    def __init__(self, sim: Simulation, nic: MyrinetNic, bus: IoBus,
                 card_delay: Callable[[], float], address_of: Callable[[str], int],
                 min_fragment: int = MIN_FRAGMENT) -> None:
        if min_fragment < 1:
            raise ValueError(f"{nic.name}: the smallest DMA transfer must be >= 1 byte")
        self.sim, self.nic, self.bus = sim, nic, bus
        self.card_delay, self.address_of, self.min_fragment = card_delay, address_of, min_fragment
        self.deliver: Callable[[Message], None] | None = None
        self.stats = CardStats()
        self._ring: deque[Message] = deque()  # send ring: control written, payload to move
        self._arrived: deque[Fragment] = deque()  # on the card, not yet in host memory
        self._busy = False  # the host DMA engine
        self._full = False  # sending waits for room in the NIC's transmit queue
        self._last_in = False  # the DMA engine's last transfer was an arrival
        self._working = 0  # outgoing packets the card's processor has not finished
        self._other = nic.deliver
        nic.deliver = self._packet
        nic.on_sent = self._room

    # -- sending ---------------------------------------------------------------------------

    def post(self, message: Message) -> None:
        """The host writes *message*'s control message into the send ring (over
        the bus); the card then sends it."""
        self.bus.transfer(message.control, lambda: self._posted(message))

    def _posted(self, message: Message) -> None:
        self._ring.append(message)
        self._pump()

    def _backlog(self) -> int:
        """Bytes the link has still to send: packets queued on the card and the
        payload of the messages waiting in the send ring."""
        queued = sum(s.length - s.taken for s in self.nic.queue.segments)
        waiting = sum(m.payload - m.dmaed for m in self._ring)
        return int(queued) + waiting

    def _pump(self) -> None:
        """Send the control messages at the head of the send ring (they need no
        DMA), then start the DMA engine's next transfer if it is free: arrivals
        and outgoing payload take turns when both wait."""
        ring = self._ring
        while ring and ring[0].payload == 0 and self._room_for_one():
            self._out(Fragment(ring.popleft(), 0, 0))
        sending = bool(ring) and self._room_for_one()
        if ring and not sending:
            self._full = True
        if self._busy:
            return
        if self._arrived and not (sending and self._last_in):
            self._last_in = True
            self._move_in()
        elif sending:
            self._last_in = False
            self._fetch(ring[0])

    def _room_for_one(self) -> bool:
        """Whether the NIC's transmit queue has room for one more packet besides
        those the card's processor is still working on."""
        return self.nic.queue.held + self._working < self.nic.ring

    def _fetch(self, message: Message) -> None:
        """Move the next part of *message*'s payload from host memory."""
        left = message.payload - message.dmaed
        size = min(left, max(self.min_fragment, self._backlog() - left))
        self._busy = True
        self.stats.dma_transfers += 1
        self.stats.dma_bytes += size
        self.bus.transfer(size, lambda: self._fetched(message, size))

    def _room(self) -> None:
        """The NIC sent a packet: if sending waited for room, go on (after the
        NIC's own bookkeeping)."""
        if self._full:
            self._full = False
            self.sim.call_later(0.0, lambda _e: self._pump())

    def _fetched(self, message: Message, size: int) -> None:
        fragment = Fragment(message, message.dmaed, size)
        message.dmaed += size
        if message.dmaed == message.payload:
            self._ring.popleft()
        self._busy = False
        self._out(fragment)
        self._pump()

    def _out(self, fragment: Fragment) -> None:
        """The card's time for the packet, then the link."""
        self._working += 1
        self.sim.call_later(self.card_delay(), lambda _e: self._send(fragment))

    def _send(self, fragment: Fragment) -> None:
        self._working -= 1
        self.stats.fragments_tx += 1
        if fragment.last:
            self.stats.messages_tx += 1
        message = fragment.message
        if not self.nic.send(self.address_of(message.dst), fragment.size, fragment):
            raise RuntimeError(f"{self.nic.name}: transmit queue full")  # _pump prevents it

    # -- receiving -------------------------------------------------------------------------

    def _packet(self, packet: MyrinetPacket) -> None:
        """A packet is in the card's memory: a Trapeze fragment costs the card's
        time and waits for the DMA engine; anything else goes to IP."""
        fragment = packet.ulp
        if not isinstance(fragment, Fragment):
            if self._other is not None:
                self._other(packet)
            return
        self.stats.fragments_rx += 1
        self.sim.call_later(self.card_delay(), lambda _e: self._arrive(fragment))

    def _arrive(self, fragment: Fragment) -> None:
        self._arrived.append(fragment)
        self._pump()

    def _move_in(self) -> None:
        """Move to host memory everything of the first waiting message that has
        arrived (with its control message if the first fragment is among it)."""
        first = self._arrived.popleft()
        group = [first]
        while self._arrived and self._arrived[0].message is first.message:
            group.append(self._arrived.popleft())
        size = sum(f.length for f in group) + (first.message.control if first.first else 0)
        self._busy = True
        self.stats.dma_transfers += 1
        self.stats.dma_bytes += size
        self.bus.transfer(size, lambda: self._moved(group[-1]))

    def _moved(self, last: Fragment) -> None:
        self._busy = False
        if last.last:
            self.stats.messages_rx += 1
            if self.deliver is not None:
                self.deliver(last.message)
        self._pump()

    def results(self) -> dict[str, Any]:
        """The counters over the measured interval."""
        return self.stats.as_dict()
