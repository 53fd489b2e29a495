"""A Myrinet buffer: what a port holds of the packets passing through it, and
the stop/go of its slack buffer.

Every link of a Myrinet network carries one character (a data byte or a
control symbol) per ``char_time``; a packet is a stream of characters that
may stop and go at any character (wormhole). A :class:`Buffer` holds, first
in first out, the characters that have reached it and not yet left. Its
*inflow* is on while the transmitter at the other end of the cable sends
(seen one cable delay later; the transmitter's ``begin``, ``on``, ``off`` and
``end`` messages carry its changes). Its *outflow* is on while a consumer
draws the front packet: the switch output the packet was routed to, the NIC
taking it into its memory, or a NIC's transmitter sending from its queue.
A consumer draws when its own line is not stopped (``go``) and there is
something to draw: characters held, or characters passing straight through
as they arrive (cut-through). Between events both flows are 0 or one
character per ``char_time``, so the level is linear in time; a buffer
schedules its next event at the next instant something happens (the front
packet drained, a mark crossed, the route byte in).

A receive slack buffer has a *stop* and a *go* mark: when its level reaches
*stop* it sends STOP to the transmitter feeding it, when it falls to *go* it
sends GO (each one character on the reverse channel plus the cable delay,
:meth:`fcsim.myrinet.port.MyrinetPort.send_symbol`). Characters still on the
way when the STOP takes effect, ``1 + 2 x delay / char_time`` at most, fill
the room above *stop*; :func:`reach` is the longest cable delay that room
covers.

Levels are kept in characters as floats. A difference below a slop of
:data:`EPS` characters plus a few units in the last place of the clock counts
as none: so every event a buffer schedules lies strictly ahead of the clock,
and at it the awaited condition holds.
"""

from __future__ import annotations

import math
from collections import deque
from typing import Any, Protocol

EPS = 1e-6
"""Characters below which a difference is rounding, not content (the clock's
own resolution is added to it)."""


class Segment:
    """What a buffer holds of one *packet* of *length* characters on the link it
    came over (with its GAP), *route_left* route bytes in front: *arrived* and
    *taken* so far, *complete* once its GAP is in, *routed* once its route byte
    has been read."""

    __slots__ = ("packet", "length", "route_left", "arrived", "taken", "complete", "routed")

    def __init__(self, packet: Any, length: int, route_left: int) -> None:
        self.packet, self.length, self.route_left = packet, length, route_left
        self.arrived = self.taken = 0.0
        self.complete = self.routed = False


class Consumer(Protocol):
    """What draws a buffer's front packet: a port's transmitter or a NIC."""

    go: bool

    def flow(self, buffer: Buffer, on: bool) -> None:
        """The front packet's characters start (*on*) or stop leaving *buffer*."""

    def finished(self, buffer: Buffer, segment: Segment) -> None:
        """The front *segment* has left *buffer* whole (it is already removed)."""


class Buffer:
    """The buffer of *port* (its ``char_time`` times the flows), slack *size*
    characters with *stop* and *go* marks (None: it never stops its sender);
    *router* reads each front packet's route byte (a switch), None for a NIC."""

    def __init__(self, sim: Any, port: Any, size: int | None = None, stop: int | None = None,
                 go: int | None = None, router: Any = None) -> None:
        self.port, self.size, self.stop, self.go, self.router = port, size, stop, go, router
        self.segments: deque[Segment] = deque()
        self.level = self.t = self.max_level = 0.0
        self.inflow = self.flowing = self.stopping = False
        self.consumer: Consumer | None = None
        self.stops = self.gos = 0
        self._sim, self._later = sim, sim.call_later
        self._version = 0
        self._wake_at: float | None = None

    # -- messages from the transmitter feeding this buffer --------------------------------

    def begin(self, value: Any) -> None:
        """A packet's first character is arriving: *value* is (packet,
        length, route bytes left). Ignored while no light reaches the port."""
        port = self.port
        if not port.light:
            return
        port.resync = False
        self._advance()
        self.segments.append(Segment(*value))
        self.inflow = True
        self._settle()

    def resume(self, _event: Any) -> None:
        """The sender goes on with the packet arriving."""
        if not self.port.light or self.port.resync:
            return
        self._advance()
        self.inflow = True
        self._settle()

    def pause(self, _event: Any) -> None:
        """The sender has stopped in the middle of the packet arriving."""
        if not self.port.light or self.port.resync:
            return
        self._advance()
        self.inflow = False
        self._settle()

    def end(self, _event: Any) -> None:
        """The arriving packet's GAP is in: all of it has arrived."""
        if not self.port.light or self.port.resync:
            return
        self._advance()
        last = self.segments[-1]
        self.level += last.length - last.arrived
        last.arrived, last.complete = float(last.length), True
        self.inflow = False
        self.port.stats.frames_rx += 1
        self._settle()

    def push(self, packet: Any, length: int, route_left: int) -> None:
        """A whole packet is put in at once (a NIC's transmit queue)."""
        self._advance()
        segment = Segment(packet, length, route_left)
        segment.arrived, segment.complete, segment.routed = float(length), True, True
        self.segments.append(segment)
        self.level += length
        self._settle()

    def cut(self) -> None:
        """The cable feeding this buffer is cut: the packet arriving ends where it
        is, marked corrupt (its CRC fails where it is checked; at the switches
        on the way it goes on as if whole, an approximation), or is forgotten
        if not even its route byte was in."""
        self._advance()
        self.inflow = False
        last = self.segments[-1] if self.segments else None
        if last is not None and not last.complete:
            last.packet.corrupt = True
            if last.arrived < 1.0 and not last.routed and len(self.segments) > 1:
                self.segments.pop()
                self.level -= last.arrived
            else:
                last.length, last.complete = max(last.arrived, 1.0), True
                self.level += last.length - last.arrived
                last.arrived = last.length
        self._settle()

    def clear(self) -> int:
        """Lose everything held (a switch powered off); how many packets."""
        self.t = self._sim.now
        lost = len(self.segments)
        self.segments.clear()
        self.level = 0.0
        self.inflow = self.flowing = self.stopping = False
        self.consumer = None
        self._version += 1
        self._wake_at = None
        return lost

    # -- the consumer's side --------------------------------------------------------------

    def attach(self, consumer: Consumer | None, strip: int = 0) -> None:
        """*consumer* now draws the front packet (None: nothing does); *strip*
        characters of it are read and dropped first (a switch's route byte)."""
        self._advance()
        self.consumer = consumer
        if strip:
            front = self.segments[0]
            front.taken += strip
            self.level -= strip
        self._settle()

    def poke(self) -> None:
        """Something the flows depend on changed (the consumer's ``go``)."""
        self._advance()
        self._settle()

    def arriving(self) -> float:
        """Characters of the last packet that have reached the buffer so far (all
        of it once its GAP is in; 0 when it holds nothing), brought up to now."""
        self._advance()
        return self.segments[-1].arrived if self.segments else 0.0

    @property
    def held(self) -> int:
        """Packets in the buffer, whole or in part."""
        return len(self.segments)

    # -- the fluid state ------------------------------------------------------------------

    def _advance(self) -> None:
        """Bring the level and the front and last packets' counts up to now."""
        now = self._sim.now
        dt = now - self.t
        if dt <= 0:
            return
        self.t = now
        chars = dt / self.port.char_time
        if self.inflow:
            self.segments[-1].arrived += chars
            self.level += chars
        if self.flowing:
            self.segments[0].taken += chars
            self.level -= chars
        if self.level > self.max_level:
            self.max_level = self.level

    def _settle(self) -> None:
        """Let whole packets go, route the front one, send STOP or GO, set the
        outflow and schedule the next event."""
        segments = self.segments
        slop = EPS + 4 * math.ulp(self._sim.now) / self.port.char_time
        while segments and segments[0].complete and segments[0].taken >= (
                segments[0].length - slop):
            done = segments.popleft()
            self.level -= done.arrived - done.taken
            self.flowing = False  # its characters have all left
            self.consumer.finished(self, done)  # type: ignore[union-attr]
        front = segments[0] if segments else None
        if (front is not None and not front.routed and self.router is not None
                and front.arrived >= 1.0 - slop):
            front.routed = True
            self.router.route(self, front)
        if self.stop is not None:
            if not self.stopping and self.level >= self.stop - slop:
                self.stopping = True
                self.stops += 1
                self.port.send_symbol(True)
            elif self.stopping and self.level <= self.go + slop:  # type: ignore[operator]
                self.stopping = False
                self.gos += 1
                self.port.send_symbol(False)
        consumer = self.consumer
        passing = (front is not None and self.inflow and len(segments) == 1
                   and not front.complete)
        on = (consumer is not None and consumer.go and front is not None
              and (front.arrived - front.taken > slop or passing))
        if on != self.flowing:
            self.flowing = on
            consumer.flow(self, on)  # type: ignore[union-attr]
        self._schedule(front, passing)

    def _schedule(self, front: Segment | None, passing: bool) -> None:
        """Wake at the next instant something happens with the flows as they are."""
        inflow, flowing, tau = self.inflow, self.flowing, self.port.char_time
        wait = float("inf")
        if flowing and not passing:
            wait = (front.arrived - front.taken) * tau  # type: ignore[union-attr]
        if (front is not None and not front.routed and self.router is not None and inflow
                and len(self.segments) == 1):
            wait = min(wait, (1.0 - front.arrived) * tau)
        if self.stop is not None and inflow != flowing:
            if inflow and not self.stopping:
                wait = min(wait, (self.stop - self.level) * tau)
            elif flowing and self.stopping:
                wait = min(wait, (self.level - self.go) * tau)  # type: ignore[operator]
        if wait == float("inf"):
            self._wake_at = None
            return
        at = self._sim.now + max(wait, 0.0)
        if at != self._wake_at:
            self._wake_at = at
            self._version += 1
            self._later(at - self._sim.now, self._wake, self._version)

    def _wake(self, version: int) -> None:
        if version == self._version:
            self._wake_at = None
            self._advance()
            self._settle()

    def reset_stats(self) -> None:
        """Start a new measurement interval: the fullest level from now, no symbols."""
        self._advance()
        self.max_level = self.level
        self.stops = self.gos = 0


def reach(size: int, stop: int, char_time: float) -> float:
    """The longest one-way cable delay, s, for which a slack buffer of *size*
    characters with its STOP mark at *stop* never overflows: after the level
    reaches *stop*, the STOP takes one character and the cable delay to reach
    the sender, and what the sender sent meanwhile one more cable delay to
    arrive, so ``stop + 1 + 2 x delay / char_time <= size``."""
    return max(size - stop - 1, 0) * char_time / 2
