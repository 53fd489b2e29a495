"""A Myrinet port: one end of a link, with stop/go flow control.

The transmitter sends the characters of one packet at a time from its
*source*: the NIC's transmit queue, or at a switch the input buffer of the
packet routed to it (whose route byte it does not send on). It sends while
the receiver at the other end lets it (``go``), and only what its source
holds or receives: a packet whose head is blocked further on stops where it
is, every character of it waiting in the slack buffers along its path
(wormhole). Each change of what it sends reaches the other end's buffer one
cable delay later (``begin``, ``pause``, ``resume``, ``end`` of
:class:`fcsim.myrinet.slack.Buffer`).

The receiver is the port's :class:`~fcsim.myrinet.slack.Buffer`: a slack
buffer with STOP and GO marks at a switch, the card's memory at a NIC. STOP
and GO are control symbols the port sends back on its own line: one
character, arriving a cable delay later. The model does not hold this
port's own data back for the symbol's character (at most two characters per
blocking, on the reverse channel).

The port's physical link (faults): while no light reaches its receiver
(:attr:`light` False) it takes nothing, and the packet it was receiving
ends there, corrupt (:meth:`fcsim.myrinet.slack.Buffer.cut`); when light
returns it takes the next packet that begins (:attr:`resync`). While its
link is down (:meth:`carrier`) it ignores STOP: what it sends goes into
the void, so nothing behind it waits for a GO that cannot come.
"""

from __future__ import annotations

from typing import Any

from fcsim.engine.simulation import Simulation
from fcsim.fc1.fec import FecLine
from fcsim.myrinet.slack import Buffer, Segment


class MyrinetStats:
    """Counters of one port over the measured interval (times in s): packets sent
    and received, characters and time sending, STOPs received and time held by
    them. The credit, R_RDY and error counters of other ports stay 0 (a bit
    error is not modelled on Myrinet)."""

    __slots__ = ("frames_tx", "frames_rx", "chars_tx", "busy_time", "errors_rx",
                 "credit_stalls", "credit_wait", "r_rdy_tx", "r_rdy_rx", "stops_rx",
                 "stopped_time")

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Zero every counter."""
        self.frames_tx = self.frames_rx = self.chars_tx = self.errors_rx = 0
        self.credit_stalls = self.r_rdy_tx = self.r_rdy_rx = self.stops_rx = 0
        self.busy_time = self.credit_wait = self.stopped_time = 0.0


class MyrinetPort:
    """Port *name* of *owner* (a NIC or switch, told of each packet sent by
    ``sent(port, segment)``); its receive buffer has *size* characters of
    slack with *stop* and *go* marks (None: it never stops the sender) and
    *router* (a switch reading route bytes; None at a NIC). The link
    (:class:`fcsim.link.link.Link`) sets :attr:`peer`, :attr:`char_time`,
    :attr:`word_time` and :attr:`delay`: it is a :class:`fcsim.link.link.PhyEnd`
    (a link end whose light and carrier faults act on; its packets go out
    character by character from its source buffer, not through
    :func:`fcsim.link.line.launch`)."""

    GAP_WORDS = 0  # the GAP symbol is one of the packet's own characters
    credit = 0  # no credit (trace sinks show it)

    def __init__(self, sim: Simulation, name: str, owner: Any, size: int | None = None,
                 stop: int | None = None, go: int | None = None, router: Any = None) -> None:
        self.sim, self.name, self.owner = sim, name, owner
        self.peer: MyrinetPort | None = None
        self.char_time = self.word_time = self.gap_time = self.delay = 0.0
        self.bit_error_rate = 0.0
        self.line_bits = 9.0
        self.fec: FecLine | None = None
        self.buffer = Buffer(sim, self, size, stop, go, router)
        self.strip = 0 if router is None else 1  # a switch drops the route byte it read
        self.go = True
        self.light = self.up = True
        self.resync = False
        self.frames_lost = 0
        self.source: Buffer | None = None
        self.stats = MyrinetStats()
        self._on = self._started = False
        self._start = self._on_since = 0.0
        self._stop_since: float | None = None
        self._later, self._sinks = sim.call_later, sim.sinks

    # -- the transmitter (the consumer of its source buffer) ------------------------------

    def flow(self, buffer: Buffer, on: bool) -> None:
        """Characters of *buffer*'s front packet start or stop going out."""
        now = self.sim.now
        peer = self.peer.buffer  # type: ignore[union-attr]
        if on:
            self._on, self._on_since = True, now
            if self._started:
                self._later(self.delay, peer.resume)
                return
            self._started, self._start = True, now
            front = buffer.segments[0]
            self._later(self.delay, peer.begin, (front.packet, front.length - self.strip,
                                                 front.route_left - self.strip))
        else:
            self._on = False
            self.stats.busy_time += now - self._on_since
            self._later(self.delay, peer.pause)

    def finished(self, buffer: Buffer, segment: Segment) -> None:
        """*segment*'s last character (its GAP) has gone out."""
        now = self.sim.now
        stats = self.stats
        if self._on:
            stats.busy_time += now - self._on_since
        self._on = self._started = False
        stats.frames_tx += 1
        stats.chars_tx += segment.length - self.strip
        if not self.peer.light:  # type: ignore[union-attr]
            self.frames_lost += 1  # into the void: a cable out, a peer powered off
        self._later(self.delay, self.peer.buffer.end)  # type: ignore[union-attr]
        if self._sinks:
            for sink in self._sinks:
                sink.frame(now, self, segment.packet, self._start, now)
        self.owner.sent(self, segment)

    # -- flow control ---------------------------------------------------------------------

    def send_symbol(self, stop: bool) -> None:
        """Send STOP (*stop*) or GO back to the peer: one character on the line,
        then the cable."""
        now = self.sim.now
        peer: MyrinetPort = self.peer  # type: ignore[assignment]
        self._later(self.char_time + self.delay, peer._symbol, stop)
        if self._sinks:
            for sink in self._sinks:
                sink.primitive(now, self, "STOP" if stop else "GO", now)

    def _symbol(self, stop: bool) -> None:
        """A STOP (*stop*) or GO from the peer has arrived."""
        if not self.up:
            return  # the link is down: nothing stops the port
        now = self.sim.now
        if stop:
            if self.go:
                self.go, self._stop_since = False, now
                self.stats.stops_rx += 1
        elif not self.go:
            self.go = True
            self.stats.stopped_time += now - self._stop_since  # type: ignore[operator]
            self._stop_since = None
        if self.source is not None:
            self.source.poke()

    # -- the physical link -----------------------------------------------------------------

    def set_light(self, on: bool) -> None:
        """Light reaches the receiver again (*on*) or no more: the packet arriving
        is cut; once back, the receiver waits for the next packet's start."""
        self.light = on
        if on:
            self.resync = True
        else:
            self.buffer.cut()

    def carrier(self, up: bool) -> None:
        """The link is reported down or up: while down, STOP no longer holds the
        transmitter (it sends into the void)."""
        self.up = up
        if not up and not self.go:
            self._symbol_go()

    def _symbol_go(self) -> None:
        now = self.sim.now
        self.go = True
        self.stats.stopped_time += now - self._stop_since  # type: ignore[operator]
        self._stop_since = None
        if self.source is not None:
            self.source.poke()

    def halt(self) -> None:
        """The port powers off: its transmitter stops where it is."""
        now = self.sim.now
        if self._on:
            self.stats.busy_time += now - self._on_since
        self._on = self._started = False
        self.source = None

    # -- measurement ----------------------------------------------------------------------

    def reset_stats(self) -> None:
        """Start a new measurement interval now (open intervals restart now)."""
        now = self.sim.now
        self.stats.reset()
        self.buffer.reset_stats()
        if self._on:
            self._on_since = now
        if self._stop_since is not None:
            self._stop_since = now

    def close_stats(self) -> None:
        """End the measurement interval now, counting open intervals up to now."""
        now = self.sim.now
        if self._on:
            self.stats.busy_time += now - self._on_since
            self._on_since = now
        if self._stop_since is not None:
            self.stats.stopped_time += now - self._stop_since
            self._stop_since = now

    def __repr__(self) -> str:
        return f"<MyrinetPort {self.name}>"
