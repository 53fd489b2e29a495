"""An Ethernet port: one end of a link, with 802.3x PAUSE as its only
link-level flow control.

It sends the frames its owner hands it, one at a time at the line rate, each
followed by the 12-byte inter-frame gap (:data:`GAP_WORDS` transmission words
of 1000BASE-X), and hands the owner each frame received, good or with a bad
FCS. The owner is pulled for its next frame whenever the line is free, so it
alone decides the order and what to drop. The MAC control sublayer is the
port's own (IEEE 802.3 Annex 31B): a PAUSE frame it is asked to send goes
before any data frame, paused or not; a PAUSE frame received stops it from
starting data frames for the quanta asked (512 bit times each; 0 resumes at
once), and is not handed to the owner.

The port's physical link: frames that reach its receiver while no light
does (:attr:`light` False: a cable out, a peer powered off) are lost and
counted; while its PHY reports the link down (:meth:`carrier`), it sends
nothing and its owner is told (``link_changed``).
"""

from __future__ import annotations

from typing import Protocol

from fcsim.engine.simulation import Simulation
from fcsim.ethernet.frame import (
    GAP,
    HEADER,
    PAUSE_QUANTUM_BITS,
    PREAMBLE,
    EthernetFrame,
    pause_frame,
)
from fcsim.fc1.fec import FecLine
from fcsim.link.line import launch

HEADER_CHARS = PREAMBLE + HEADER
"""Characters of a frame in before a cut-through switch can look it up."""
LINK_TIMER = 10e-3
"""1000BASE-X auto-negotiation's link_timer, s (IEEE 802.3 clause 37: 10 ms)."""
AUTONEGOTIATION = 2 * LINK_TIMER
"""From signal and synchronisation back to link up, s: auto-negotiation waits
link_timer in COMPLETE_ACKNOWLEDGE and again in IDLE_DETECT (IEEE 802.3
clause 37); the configuration ordered sets exchanged before take
microseconds (an assumption: they are not counted)."""


class EthernetOwner(Protocol):
    """What an :class:`EthernetPort` asks of the NIC or switch above it."""

    def next_frame(self, port: EthernetPort) -> EthernetFrame | None:
        """The next frame to send on *port*, or None."""

    def frame_received(self, port: EthernetPort, frame: EthernetFrame) -> None:
        """A frame arrived on *port* (``frame.corrupt``: its FCS failed)."""

    def link_changed(self, port: EthernetPort, up: bool) -> None:
        """*port*'s link went down or came up (its PHY's carrier)."""


class EthernetStats:
    """Counters of one port over the measured interval (times in s); the credit
    and R_RDY counters of Fibre Channel ports stay 0."""

    __slots__ = ("frames_tx", "frames_rx", "chars_tx", "busy_time", "errors_rx",
                 "credit_stalls", "credit_wait", "r_rdy_tx", "r_rdy_rx")

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Zero every counter."""
        self.frames_tx = self.frames_rx = self.chars_tx = self.errors_rx = 0
        self.credit_stalls = self.r_rdy_tx = self.r_rdy_rx = 0
        self.busy_time = self.credit_wait = 0.0


class EthernetPort:
    """Port *name* of *owner*; the link (:class:`fcsim.link.link.Link`) sets
    :attr:`peer`, :attr:`char_time`, :attr:`word_time`, :attr:`gap_time` and
    :attr:`delay`. With :attr:`cut_through`, the owner is handed each data
    frame as soon as its preamble and MAC header are in (:data:`HEADER_CHARS`)
    rather than at its end: a cut-through switch's view, before the FCS can
    be checked. It is a :class:`fcsim.link.link.PhyEnd` (a link end whose light
    and carrier faults act on), its transmitter a
    :class:`fcsim.link.line.LineEnd`."""

    GAP_WORDS = GAP // 4
    credit = 0  # no link-level credit (trace sinks show it)

    def __init__(self, sim: Simulation, name: str, owner: EthernetOwner) -> None:
        self.sim, self.name = sim, name
        self.owner: EthernetOwner = owner
        self.peer: EthernetPort | None = None
        self.char_time = self.word_time = self.gap_time = self.delay = 0.0
        self.cut_through = False
        self.bit_error_rate = 0.0
        self.line_bits = 10.0
        self.fec: FecLine | None = None
        self.stats = EthernetStats()
        self._busy = False
        self.line_free = self.gap_end = 0.0
        self._control: list[EthernetFrame] = []
        self.paused_until = 0.0
        self.pauses_rx = 0
        self.up = self.light = True
        self.frames_lost = 0
        self.rng = sim.rng(f"port/{name}")
        self.sinks = sim.sinks
        self._later = sim.call_later

    def kick(self) -> None:
        """Tell the transmitter the owner may have a frame to send."""
        if not self._busy:
            self._send_next()

    def send_pause(self, quanta: int, src: int) -> None:
        """Send a PAUSE frame for *quanta* (0: resume), from MAC *src*, next."""
        self._control.append(pause_frame(src, quanta))
        self.kick()

    def set_light(self, on: bool) -> None:
        """Light reaches the receiver again (*on*) or no more."""
        self.light = on

    def carrier(self, up: bool) -> None:
        """The PHY reports the link down or up: the port stops or resumes sending,
        and its owner is told."""
        self.up = up
        self.owner.link_changed(self, up)
        if up:
            self.kick()

    def _send_next(self, _event: object = None) -> None:
        now = self.sim.now
        if not self.up:
            self._busy = False
            return
        if self._control:
            frame = self._control.pop(0)
        elif now < self.paused_until:
            self._busy = False
            self._later(self.paused_until - now, self._resume)
            return
        else:
            frame = self.owner.next_frame(self)
        if frame is None:
            self._busy = False
            return
        self._busy = True
        start, end, gap_end = launch(self, frame, now)
        peer: EthernetPort = self.peer  # type: ignore[assignment]
        arrival = (start + HEADER_CHARS * self.char_time
                   if peer.cut_through and frame.pause is None else end)
        self._later(arrival + self.delay - now, peer._receive, frame)
        self._later(gap_end - now, self._send_next)

    def _resume(self, _event: object) -> None:
        if not self._busy and self.sim.now >= self.paused_until:
            self._send_next()

    def _receive(self, frame: EthernetFrame) -> None:
        if not self.light:
            self.frames_lost += 1  # on a fibre pulled out, or from a peer that failed
            return
        stats = self.stats
        stats.frames_rx += 1
        if frame.corrupt:
            stats.errors_rx += 1
        elif frame.pause is not None:  # MAC control: ours, not the owner's
            self.pauses_rx += 1
            bit = self.char_time / 8  # a data bit: 8 to a character
            self.paused_until = self.sim.now + frame.pause * PAUSE_QUANTUM_BITS * bit
            if frame.pause == 0:
                self.kick()
            return
        self.owner.frame_received(self, frame)

    def reset_stats(self) -> None:
        """Start a new measurement interval."""
        self.stats.reset()

    def close_stats(self) -> None:
        """End the measurement interval (nothing is open on an Ethernet port)."""

    def __repr__(self) -> str:
        return f"<EthernetPort {self.name}>"
