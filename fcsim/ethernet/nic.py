"""An Ethernet NIC on a host; IP runs over it through
:class:`fcsim.host.interface.NicInterface`.

The NIC owns the host's Ethernet port: the frames the host hands it wait in
its transmit ring, sent one after the other; a frame received good is handed
to the interface, which moves it to host memory by DMA and raises the
receive interrupt. A frame with a bad FCS is dropped and counted, and so
is one longer than the NIC takes: its MTU plus the MAC header and FCS (plus
an 802.1Q tag on a tagged frame), the limit a driver sets from the MTU
(Linux e1000: ``max_frame = mtu + ENET_HEADER_SIZE + ETHERNET_FCS_SIZE``);
such a frame is a frameTooLong error of IEEE 802.3 (aFrameTooLongErrors,
30.3.1.1.25), which Linux counts in ``rx_length_errors`` (e1000: the
Receive Oversize Count, of frames that passed address filtering). Addresses
are MACs; the topology gives each NIC one. Each IP packet is one frame:
TCP's MSS is the MTU less 40 bytes of IP and TCP headers, so no packet
exceeds the MTU. The transmit ring holds *ring* frames; a packet that
finds it full is dropped, as a driver drops when its ring is full. While
the link is down the NIC drops every packet it is given, and the frames in
its ring when it went down: Linux's e1000 watchdog resets the controller to
flush a transmit ring the lost link will never drain, and a device without
carrier drops what IP sends (the noop queueing discipline).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

from fcsim.engine.simulation import Simulation
from fcsim.ethernet.frame import FCS, HEADER, VLAN_TAG, EthernetFrame
from fcsim.ethernet.port import EthernetPort

DEFAULT_RING = 256
"""Transmit ring of a NIC, frames (the order of the period's Gigabit drivers'
descriptor rings, e.g. 256 in FreeBSD's if_ti for the Tigon)."""


class NicStats:
    """Frames sent, received, dropped for a full ring, received with a bad FCS,
    and received longer than the NIC takes (length errors)."""

    __slots__ = ("frames_tx", "frames_rx", "ring_drops", "fcs_errors", "length_errors")

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Zero every counter."""
        self.frames_tx = self.frames_rx = self.ring_drops = self.fcs_errors = 0
        self.length_errors = 0

    def as_dict(self) -> dict[str, int]:
        """The counters by name."""
        return {name: getattr(self, name) for name in self.__slots__}


class Nic:
    """The NIC of node *name* with MAC *mac*, its IP MTU *mtu* bytes. Without
    *vlan* its frames are untagged (in its switch port's VLAN); a VLAN-aware
    NIC (802.1Q, as a FreeBSD vlan(4) interface) tags every frame it sends
    with *vlan* and takes only frames tagged with it, on a trunk. It takes
    frames of up to :attr:`max_frame` bytes, MAC header to FCS (a tagged one 4
    more)."""

    def __init__(self, sim: Simulation, name: str, mac: int, mtu: int = 1500,
                 ring: int = DEFAULT_RING, vlan: int | None = None) -> None:
        self.sim, self.name, self.mac, self.mtu, self.ring = sim, name, mac, mtu, ring
        self.vlan = vlan
        self.max_frame = mtu + HEADER + FCS
        self.port = EthernetPort(sim, name, self)
        self.stats = NicStats()
        self.link_down_drops = 0
        """Packets dropped because the link was down (from the start of the run)."""
        self.deliver: Callable[[EthernetFrame], None] | None = None
        self._queue: deque[EthernetFrame] = deque()

    @property
    def address(self) -> int:
        """The link address peers send to: the MAC."""
        return self.mac

    def send(self, dst: int, payload: int, ulp: Any) -> bool:
        """Queue a frame of *payload* bytes to MAC *dst*; False if the ring is full
        or the link down."""
        if not self.port.up:
            self.link_down_drops += 1
            return False
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

    def link_changed(self, port: EthernetPort, up: bool) -> None:
        """The link went down: the ring is flushed (its frames dropped)."""
        if not up:
            self.link_down_drops += len(self._queue)
            self._queue.clear()

    def frame_received(self, port: EthernetPort, frame: EthernetFrame) -> None:
        """Hand a good frame for this MAC up; drop one with a bad FCS or longer
        than the NIC takes."""
        if frame.corrupt:
            self.stats.fcs_errors += 1
            return
        if frame.dst != self.mac:
            return  # flooded to us, not for us
        if frame.size > self.max_frame + (VLAN_TAG if frame.tagged else 0):
            self.stats.length_errors += 1
            return
        if frame.tagged != (self.vlan is not None) or frame.tagged and frame.vlan != self.vlan:
            return  # a VLAN this interface is not on
        self.stats.frames_rx += 1
        if self.deliver is not None:
            self.deliver(frame)
