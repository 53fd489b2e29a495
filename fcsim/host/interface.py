"""A host's network interface: what IP needs of the link below it.

IP and TCP/UDP on a host (:mod:`fcsim.host.host`) run over any interface with
an *address* (the link-level address peers send to: an N_Port ID, a MAC),
an IP *mtu*, a count of the link *frames* a packet takes (the driver's work
is per frame), *transmit* (the packet fetched from host memory by the card's
DMA, then sent) and *when_ready* (after the link's login, if it has one).
Received packets go to the *deliver(packet, length, time)* the host gives.

:class:`FcInterface` is IP over Fibre Channel through a host adapter
(RFC 2625); :class:`NicInterface` is IP over a NIC that carries each IP
packet in one link frame: an Ethernet NIC (:mod:`fcsim.ethernet.nic`) or a
Myrinet NIC (:mod:`fcsim.myrinet.nic`).
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
    """Processor time the host spends per byte checksummed on sending, s (0 when
    the card computes the checksums)."""
    rx_checksum_per_byte: float
    """The same on receiving (0 when the card checks them)."""

    def frames(self, size: int) -> int:
        """Link frames an IP packet of *size* bytes takes."""

    def transmit(self, destination: int, size: int, packet: object,
                 sent: Callable[[Any], None] | None) -> None:
        """Send the IP *packet* of *size* bytes to link address *destination*."""

    def when_ready(self, callback: Callable[[], None]) -> None:
        """Call *callback* once the interface can send (at once if it can)."""


class FcInterface:
    """IP over FC on *nport*: its adapter on *bus* (per-frame time *frame_time*
    and per-SCSI-command time *command_time*, s), IP in Class *ip_class*;
    received packets to *deliver*."""

    mtu = MTU
    network = ""
    checksum_per_byte = rx_checksum_per_byte = 0.0

    def __init__(self, sim: Simulation, name: str, nport: NPort, bus: IoBus,
                 frame_time: float, ip_class: int, deliver: Deliver,
                 command_time: float = 0.0) -> None:
        self.nport = nport
        self.adapter = HostAdapter(sim, nport, bus,
                                   AdapterModel(f"{name}.hba", frame_time, command_time))
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


class LinkFrame(Protocol):
    """What a NIC hands up: a frame carrying one IP packet (*ulp*) of *payload* bytes."""

    payload: int
    ulp: Any


class Nic(Protocol):
    """What :class:`NicInterface` asks of a NIC (Ethernet, Myrinet)."""

    address: int
    mtu: int
    deliver: Callable[[Any], None] | None

    def send(self, dst: int, payload: int, ulp: Any) -> bool:
        """Queue a frame of *payload* bytes to link address *dst*; False if dropped."""


class NicInterface:
    """IP over *nic*, the card on *bus* spending *frame_time* s per frame (its
    own processor, in each direction); received packets go to *deliver*, each
    after its DMA to host memory, when the card raises its receive interrupt:
    at once, or with interrupt moderation (*coalesce_frames* and
    *coalesce_time*) once that many frames have arrived or the first of them
    has waited that long; the host then takes one interrupt for the batch.
    With interrupt throttling (*interrupt_interval*, the e1000's
    InterruptThrottleRate) an interrupt due less than that interval after the
    last one waits until the interval has passed, and takes every frame that
    arrived meanwhile."""

    network = ""
    checksum_per_byte = rx_checksum_per_byte = 0.0

    def __init__(self, sim: Simulation, nic: Nic, bus: IoBus, frame_time: float,
                 deliver: Deliver, coalesce_frames: int = 1,
                 coalesce_time: float = 0.0, interrupt_interval: float = 0.0) -> None:
        self.sim, self.nic, self.bus, self.frame_time = sim, nic, bus, frame_time
        self._deliver = deliver
        self._card_free = 0.0
        self.coalesce_frames, self.coalesce_time = coalesce_frames, coalesce_time
        self.interrupt_interval = interrupt_interval
        self._batch: list[LinkFrame] = []
        self._last_interrupt = -interrupt_interval
        self._throttled = False
        self.interrupts = 0
        nic.deliver = self._received

    @property
    def address(self) -> int:
        """The NIC's link address (a MAC, a Myrinet address)."""
        return self.nic.address

    @property
    def mtu(self) -> int:
        """The IP MTU, bytes."""
        return self.nic.mtu

    def frames(self, size: int) -> int:
        """One frame per IP packet."""
        return 1

    def when_ready(self, callback: Callable[[], None]) -> None:
        """At once: Ethernet has no login."""
        callback()

    def card_delay(self) -> float:
        """Take the card's processor for one packet's *frame_time*: the time from
        now until it is done with it (after the packets it already has), s."""
        now = self.sim.now
        self._card_free = max(now, self._card_free) + self.frame_time
        return self._card_free - now

    def transmit(self, destination: int, size: int, packet: object,
                 sent: Callable[[Any], None] | None) -> None:
        """DMA the packet to the card, the card's time, then the wire."""
        def queued() -> None:
            self.nic.send(destination, size, packet)
            if sent is not None:
                sent(None)

        def fetched() -> None:
            delay = self.card_delay()
            if delay > 0:
                self.sim.call_later(delay, lambda _e: queued())
            else:
                queued()
        self.bus.transfer(size, fetched)

    def _received(self, frame: LinkFrame) -> None:
        def up() -> None:
            self._batch.append(frame)
            if len(self._batch) >= self.coalesce_frames:
                self._raise()
            elif len(self._batch) == 1:
                self.sim.call_later(self.coalesce_time, self._timer, frame)

        def moved(_event: object = None) -> None:
            self.bus.transfer(frame.payload, up)
        delay = self.card_delay()
        if delay > 0:
            self.sim.call_later(delay, moved)
        else:
            moved()

    def _timer(self, first: object) -> None:
        """The moderation timer of the batch that began with *first*: signal it if still waiting."""
        if self._batch and self._batch[0] is first:
            self._raise()

    def _raise(self) -> None:
        """Raise the receive interrupt now, or once the throttling interval
        since the last one has passed."""
        wait = self._last_interrupt + self.interrupt_interval - self.sim.now
        if wait <= 0:
            self._interrupt()
        elif not self._throttled:
            self._throttled = True
            self.sim.call_later(wait, self._release)

    def _release(self, _event: object) -> None:
        """The throttling interval has passed: the interrupt held back."""
        self._throttled = False
        if self._batch:
            self._interrupt()

    def _interrupt(self) -> None:
        """One receive interrupt: the host takes it and every frame of the batch."""
        batch, self._batch = self._batch, []
        self._last_interrupt = self.sim.now
        self.interrupts += 1
        for i, frame in enumerate(batch):
            self._deliver(frame.ulp, frame.payload, self.sim.now, i == 0)
