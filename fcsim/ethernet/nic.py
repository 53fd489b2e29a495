"""An Ethernet NIC on a host, and IP over Ethernet through it.

The NIC owns the host's Ethernet port: the frames the host hands it wait in
its transmit ring, sent one after the other; a frame received good is moved
to host memory by DMA over the host's I/O bus, after the card's own time per
frame, and its IP packet handed up when the NIC raises its receive
interrupt: at once, or with interrupt moderation (the host model's
``rx_coalesce_frames`` and ``rx_coalesce_time``) once that many frames have
arrived or the first of them has waited that long; the host then takes one
interrupt for the whole batch. With interrupt throttling (the host model's
``rx_interrupt_interval``, the e1000's InterruptThrottleRate) an interrupt
due less than that interval after the last one waits until the interval has
passed, and takes every frame that arrived meanwhile. A frame with a bad FCS is dropped and
counted. Addresses are MACs; the topology gives each NIC one. Each IP packet
is one frame: TCP's MSS is the MTU less 40 bytes of IP and TCP headers, so no
packet exceeds the MTU. The transmit ring holds *ring* frames; a packet that
finds it full is dropped, as a driver drops when its ring is full.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

from fcsim.engine.simulation import Simulation
from fcsim.ethernet.frame import EthernetFrame
from fcsim.ethernet.port import EthernetPort
from fcsim.host.bus import IoBus
from fcsim.host.interface import Deliver

DEFAULT_RING = 256
"""Transmit ring of a NIC, frames (the order of the period's Gigabit drivers'
descriptor rings, e.g. 256 in FreeBSD's if_ti for the Tigon)."""


class NicStats:
    """Frames sent, received, dropped for a full ring, and received with a bad FCS."""

    __slots__ = ("frames_tx", "frames_rx", "ring_drops", "fcs_errors")

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Zero every counter."""
        self.frames_tx = self.frames_rx = self.ring_drops = self.fcs_errors = 0

    def as_dict(self) -> dict[str, int]:
        """The counters by name."""
        return {name: getattr(self, name) for name in self.__slots__}


class Nic:
    """The NIC of node *name* with MAC *mac*, its IP MTU *mtu* bytes. Without
    *vlan* its frames are untagged (in its switch port's VLAN); a VLAN-aware
    NIC (802.1Q, as a FreeBSD vlan(4) interface) tags every frame it sends
    with *vlan* and takes only frames tagged with it, on a trunk."""

    def __init__(self, sim: Simulation, name: str, mac: int, mtu: int = 1500,
                 ring: int = DEFAULT_RING, vlan: int | None = None) -> None:
        self.sim, self.name, self.mac, self.mtu, self.ring = sim, name, mac, mtu, ring
        self.vlan = vlan
        self.port = EthernetPort(sim, name, self)
        self.stats = NicStats()
        self.deliver: Callable[[EthernetFrame], None] | None = None
        self._queue: deque[EthernetFrame] = deque()

    def send(self, dst: int, payload: int, ulp: Any) -> bool:
        """Queue a frame of *payload* bytes to MAC *dst*; False if the ring is full."""
        if len(self._queue) >= self.ring:
            self.stats.ring_drops += 1
            return False
        if self.vlan is None:
            self._queue.append(EthernetFrame(self.mac, dst, payload, ulp))
        else:
            self._queue.append(EthernetFrame(self.mac, dst, payload, ulp, self.vlan, True))
        self.port.kick()
        return True

    def next_frame(self, port: EthernetPort) -> EthernetFrame | None:
        """The frame at the head of the ring."""
        if not self._queue:
            return None
        self.stats.frames_tx += 1
        return self._queue.popleft()

    def frame_received(self, port: EthernetPort, frame: EthernetFrame) -> None:
        """Hand a good frame for this MAC up; drop one with a bad FCS."""
        if frame.corrupt:
            self.stats.fcs_errors += 1
            return
        if frame.dst != self.mac:
            return  # flooded to us, not for us
        if frame.tagged != (self.vlan is not None) or frame.tagged and frame.vlan != self.vlan:
            return  # a VLAN this interface is not on
        self.stats.frames_rx += 1
        if self.deliver is not None:
            self.deliver(frame)


class EthernetInterface:
    """IP over Ethernet through *nic*, the card on *bus* spending *frame_time*
    s per frame; received packets go to *deliver*, with interrupt moderation
    (*coalesce_frames*, *coalesce_time* s) and throttling (at most one
    interrupt per *interrupt_interval* s)."""

    network = ""
    checksum_per_byte = 0.0

    def __init__(self, sim: Simulation, nic: Nic, bus: IoBus, frame_time: float,
                 deliver: Deliver, coalesce_frames: int = 1,
                 coalesce_time: float = 0.0, interrupt_interval: float = 0.0) -> None:
        self.sim, self.nic, self.bus, self.frame_time = sim, nic, bus, frame_time
        self._deliver = deliver
        self._card_free = 0.0
        self.coalesce_frames, self.coalesce_time = coalesce_frames, coalesce_time
        self.interrupt_interval = interrupt_interval
        self._batch: list[EthernetFrame] = []
        self._last_interrupt = -interrupt_interval
        self._throttled = False
        self.interrupts = 0
        nic.deliver = self._received

    @property
    def address(self) -> int:
        """The NIC's MAC."""
        return self.nic.mac

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

    def _card(self) -> float:
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
            delay = self._card()
            if delay > 0:
                self.sim.call_later(delay, lambda _e: queued())
            else:
                queued()
        self.bus.transfer(size, fetched)

    def _received(self, frame: EthernetFrame) -> None:
        def up() -> None:
            self._batch.append(frame)
            if len(self._batch) >= self.coalesce_frames:
                self._raise()
            elif len(self._batch) == 1:
                self.sim.call_later(self.coalesce_time, self._timer, frame)

        def moved(_event: object = None) -> None:
            self.bus.transfer(frame.payload, up)
        delay = self._card()
        if delay > 0:
            self.sim.call_later(delay, moved)
        else:
            moved()

    def _timer(self, event: object) -> None:
        """The moderation timer of the batch *event* began: signal it if still waiting."""
        if self._batch and self._batch[0] is event._value:  # type: ignore[attr-defined]
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
