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

**Cut-through delivery** (Yocum, Gallatin, Chase and Lebeck, "Cut-through
delivery in Trapeze: an exercise in low-latency messaging", HPDC 1997: "a
technique for overlapping host I/O DMA transfers with network traversal"):
with *cut_through* the receiving card handles a packet when its first
character is in (the card's time for its header then, not once it is
whole) and moves its bytes to host memory while the rest of it still
arrives: a transfer takes everything of the message in the card's memory
and not yet moved, once that is at least *receive_min* bytes or nothing more
of it is arriving. Without it a packet is moved once its last character is
in (store and forward on the card). How large the firmware let a receive
transfer be before the packet's end is not published: *receive_min* is the
smallest send transfer by default (:data:`~fcsim.trapeze.message.MIN_FRAGMENT`,
an assumption).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

from fcsim.engine.simulation import Simulation
from fcsim.host.bus import IoBus
from fcsim.myrinet.nic import MyrinetNic
from fcsim.myrinet.packet import MyrinetPacket
from fcsim.trapeze.message import CUT_THROUGH, MIN_FRAGMENT, Fragment, Message


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


class Arrival:
    """A *fragment* coming into the card in *packet*: *moved*, bytes of the
    packet's payload (the fragment, with the control message in the first)
    moved to host memory so far; *whole* once its last character is in;
    *queued* once the card's processor has handled it; *dropped* if it
    arrived cut short."""

    __slots__ = ("fragment", "packet", "moved", "whole", "queued", "dropped")

    def __init__(self, fragment: Fragment, packet: MyrinetPacket, whole: bool) -> None:
        self.fragment, self.packet, self.whole = fragment, packet, whole
        self.moved = 0
        self.queued = self.dropped = False


class TrapezeCard:
    """The Trapeze firmware of *nic*, moving data over the host's *bus*;
    *card_delay()* takes the card's processor for one packet and says how long
    until it is done (:meth:`fcsim.host.interface.NicInterface.card_delay`);
    *address_of(node)* is a node's Myrinet address. Packets that carry no
    Trapeze fragment (IP) go to the NIC's previous receiver. Whole messages
    received go to :attr:`deliver`. Outgoing payload moves in DMA transfers
    of at least *min_fragment* bytes; with *cut_through*, arriving packets
    move while they arrive, in transfers of at least *receive_min* bytes
    (None: *min_fragment*) until the rest is in."""

    def __init__(self, sim: Simulation, nic: MyrinetNic, bus: IoBus,
                 card_delay: Callable[[], float], address_of: Callable[[str], int],
                 min_fragment: int = MIN_FRAGMENT, cut_through: bool = CUT_THROUGH,
                 receive_min: int | None = None) -> None:
        receive_min = min_fragment if receive_min is None else receive_min
        if min_fragment < 1 or receive_min < 1:
            raise ValueError(f"{nic.name}: the smallest DMA transfer must be >= 1 byte")
        self.sim, self.nic, self.bus = sim, nic, bus
        self.card_delay, self.address_of, self.min_fragment = card_delay, address_of, min_fragment
        self.cut_through, self.receive_min = cut_through, receive_min
        self.deliver: Callable[[Message], None] | None = None
        self.stats = CardStats()
        self._ring: deque[Message] = deque()  # send ring: control written, payload to move
        self._arrived: deque[Arrival] = deque()  # on the card, not yet all in host memory
        self._incoming: dict[MyrinetPacket, Arrival] = {}  # arriving (cut-through)
        self._waking = False  # a wake-up is due when enough of a packet will be in
        self._busy = False  # the host DMA engine
        self._full = False  # sending waits for room in the NIC's transmit queue
        self._last_in = False  # the DMA engine's last transfer was an arrival
        self._working = 0  # outgoing packets the card's processor has not finished
        self._other = nic.deliver
        nic.deliver = self._packet
        nic.on_sent = self._room
        if cut_through:
            nic.on_arriving = self._heading
            nic.on_lost = self._lost

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
        ready = self._ready() if self._arrived else 0
        if ready and not (sending and self._last_in):
            self._last_in = True
            self._move_in(ready)
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
        """A packet is wholly in the card's memory: a Trapeze fragment costs the
        card's time (unless it was handled when it began to arrive) and waits for
        the DMA engine; anything else goes to IP."""
        fragment = packet.ulp
        if not isinstance(fragment, Fragment):
            if self._other is not None:
                self._other(packet)
            return
        arrival = self._incoming.pop(packet, None)
        if arrival is None:  # store and forward
            self._handle(Arrival(fragment, packet, True))
            return
        arrival.whole = True
        if arrival.queued:
            self._pump()

    def _heading(self, packet: MyrinetPacket) -> None:
        """A packet's first character is in (cut-through): a Trapeze fragment is
        handled now, its bytes moved as they come."""
        fragment = packet.ulp
        if isinstance(fragment, Fragment):
            self._handle(self._incoming.setdefault(packet, Arrival(fragment, packet, False)))

    def _lost(self, packet: MyrinetPacket) -> None:
        """A packet arrived cut short and was dropped: nothing more of it comes."""
        arrival = self._incoming.pop(packet, None)
        if arrival is not None:
            arrival.dropped = True
            if arrival.queued:
                self._arrived.remove(arrival)
                self._pump()

    def _handle(self, arrival: Arrival) -> None:
        """The card's time for the packet, then it waits for the DMA engine."""
        self.stats.fragments_rx += 1
        self.sim.call_later(self.card_delay(), lambda _e: self._arrive(arrival))

    def _arrive(self, arrival: Arrival) -> None:
        if arrival.dropped:
            return
        arrival.queued = True
        self._arrived.append(arrival)
        self._pump()

    def _group(self) -> list[Arrival]:
        """The fragments of the first waiting message at the head of the queue."""
        message = self._arrived[0].fragment.message
        group = []
        for arrival in self._arrived:
            if arrival.fragment.message is not message:
                break
            group.append(arrival)
        return group

    def _in_memory(self, arrival: Arrival) -> int:
        """Bytes of *arrival*'s packet payload in the card's memory now."""
        return arrival.packet.payload if arrival.whole else self.nic.received(arrival.packet)

    def _ready(self) -> int:
        """Bytes of the first waiting message to move now: everything of it in
        the card's memory and not yet moved, once that is at least *receive_min*
        or nothing more of it is arriving; else 0, with a wake-up for when
        *receive_min* will be in."""
        group = self._group()
        ready = sum(self._in_memory(a) - a.moved for a in group)
        if ready >= self.receive_min or group[-1].whole:
            return ready
        self._wait(self.receive_min - ready)
        return 0

    def _wait(self, short: int) -> None:
        """Look again once *short* more bytes can have arrived (at the line rate)."""
        if not self._waking:
            self._waking = True
            self.sim.call_later(short * self.nic.port.char_time, self._woken)

    def _woken(self, _event: Any) -> None:
        self._waking = False
        self._pump()

    def _move_in(self, size: int) -> None:
        """Move *size* bytes of the first waiting message to host memory: what it
        has in the card's memory (with its control message if the first
        fragment is among it). A message's fragments arrive in order, one link
        carrying them, so only the last of the group can still be arriving:
        the ones before it leave the queue's head in turn, each moved whole."""
        left = size
        for arrival in self._group():
            take = min(left, self._in_memory(arrival) - arrival.moved)
            arrival.moved += take
            left -= take
            done = arrival.whole and arrival.moved == arrival.packet.payload
            if done:
                self._arrived.popleft()
            if left == 0:
                break
        message = arrival.fragment.message if done and arrival.fragment.last else None
        self._busy = True
        self.stats.dma_transfers += 1
        self.stats.dma_bytes += size
        self.bus.transfer(size, lambda: self._moved(message))

    def _moved(self, message: Message | None) -> None:
        """A transfer is in host memory; *message*, if given, is all there."""
        self._busy = False
        if message is not None:
            self.stats.messages_rx += 1
            if self.deliver is not None:
                self.deliver(message)
        self._pump()

    def results(self) -> dict[str, Any]:
        """The counters over the measured interval."""
        return self.stats.as_dict()
