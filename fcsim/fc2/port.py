"""A link-level port: transmitter, receiver and buffer-to-buffer credit.

:class:`Port` is the part of any FC port (N_Port, F_Port, E_Port) that faces
one link. It transmits the frames its *owner* hands it, one at a time at the
link's speed, with at least :data:`MIN_FILL_WORDS` fill words between frames;
it spends one BB credit per frame that needs one and regains it when an R_RDY
arrives; it receives frames, tells the owner which were hit by a transmission error,
and returns an R_RDY when the owner frees the receive buffer.

The owner implements :class:`PortOwner`: it is *pulled* for the next frame
whenever the transmitter is free, so it alone decides the order of frames.

R_RDY is a primitive signal sent in the fill words between frames: it waits
for the frame in progress to end, then takes one transmission word; the first
six in a gap cost no time, further ones lengthen the gap. An R_RDY's arrival
is recorded at the receiving port, which counts the credit in whenever it next
decides what to send; only a transmitter that waits for credit is woken by an
event at the arrival time. This gives the same timing as an event per R_RDY
at a third fewer events per frame.

Class 1 frames after the connect frame (SOFc1) use no BB credit (FC-PH 26.4:
BB flow control applies to Class 1 only for the connect-request frame).

The transmitter becomes free at the end of the gap after each frame, where
it asks its owner for the next. An owner that knows it has nothing more
sets :attr:`Port.drained` when it hands out a frame: then no event marks
that end, only its place in the event order is reserved
(:meth:`~fcsim.engine.simulation.Simulation.reserve`). A :meth:`Port.kick`
before that place puts the event there after all; one after it finds the
transmitter free, as the event would have left it. The order and times of
everything else are those of the event-per-frame path
(``tests/property/test_port_free_end.py``).
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Protocol

from fcsim.fc1.fec import FecLine
from fcsim.fc1.ordered_sets import INVALID_EOFS
from fcsim.link.line import launch

if TYPE_CHECKING:
    from fcsim.engine.simulation import Simulation
    from fcsim.fc2.frame import Frame

MIN_FILL_WORDS = 6
"""Fill words (IDLE or R_RDY) a transmitter sends at least between frames (FC-PH 17.1)."""
__all__ = ["MIN_FILL_WORDS", "LazyCredit", "Port", "PortStats", "launch"]


class PortOwner(Protocol):
    """What a :class:`Port` asks of the FC-2 entity above it."""

    def next_frame(self, credit: bool) -> Frame | None:
        """The next frame to send; only frames needing no BB credit if not *credit*."""

    def waits_for_credit(self) -> bool:
        """True if a frame is ready but needs a BB credit."""

    def frame_received(self, frame: Frame) -> None:
        """A good frame arrived (with :attr:`Port.header_notice`, its header):
        call :meth:`Port.release_buffer` when its buffer is free, never before
        its EOF is in."""

    def frame_dropped(self, frame: Frame) -> None:
        """A frame arrived with a transmission error; free its buffer as for a good one."""


class PortStats:
    """Counters of one port over the measured interval (times in s).
    *errors_rx*: frames received with a CRC error (the error happened on this
    port's cable); *eofni_rx*: frames received ending in EOFni or EOFdti,
    found bad and marked invalid by a cut-through switch upstream (FC-FS-5),
    so not counted as CRC errors here. *credit_wait* is the time a frame was
    ready, the transmitter free and BB credit zero (Cisco MDS's TxWait);
    *credit_stalls* the number of such waits. *credit_zero* counts the times
    the transmit BB credit fell to zero (Cisco MDS's "transmit B2B credit
    transitions to zero") and *credit_zero_time* is the time it stayed there,
    from the spending of the last credit to the next R_RDY's arrival, whether
    or not a frame waited."""

    __slots__ = ("frames_tx", "frames_rx", "chars_tx", "busy_time", "credit_stalls",
                 "credit_wait", "r_rdy_tx", "r_rdy_rx", "errors_rx", "eofni_rx",
                 "credit_zero", "credit_zero_time")

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Zero every counter."""
        self.frames_tx = self.frames_rx = self.chars_tx = 0
        self.busy_time = self.credit_wait = self.credit_zero_time = 0.0
        self.credit_stalls = self.r_rdy_tx = self.r_rdy_rx = self.errors_rx = 0
        self.eofni_rx = self.credit_zero = 0


class LazyCredit:
    """R_RDY arrivals counted in lazily, shared by every transmitter with BB credit.

    An R_RDY's arrival time is queued in ``_r_rdys``; the transmitter counts
    arrived ones in (``_absorb``) when it next decides what to send, and only
    one waiting for credit schedules a wake-up at the next arrival. A class
    using it has ``credit``, ``stats`` (``r_rdy_rx``, ``credit_wait``),
    ``_r_rdys``, ``_stall_since``, ``_wake_pending``, ``_busy``, ``sim``,
    ``_later`` and ``_send_next``; one that counts the time at zero credit
    sets ``_zero_since`` when it spends its last credit.
    """

    _zero_since: float | None = None
    """Since when the BB credit is zero, s (None: it is not, or not counted)."""

    def current_credit(self) -> int:
        """BB credit now, counting every R_RDY that has arrived."""
        self._absorb(self.sim.now)
        return self.credit

    def credit_now(self) -> int:
        """BB credit now, counting every R_RDY that has arrived, without taking
        them in: for observers (a ladder diagram), which must leave the port's
        own accounting as it is."""
        now = self.sim.now
        return self.credit + sum(1 for arrival in self._r_rdys if arrival <= now)

    def credit_wait_now(self) -> float:
        """TxWait so far, s: :attr:`PortStats.credit_wait` and a wait still open
        up to now (or to the R_RDY that has ended it), without taking R_RDYs
        in: for observers, as :meth:`credit_now`."""
        wait = self.stats.credit_wait
        since = self._stall_since
        if since is not None:
            now = self.sim.now
            arrivals = self._r_rdys
            end = arrivals[0] if arrivals and arrivals[0] <= now else now
            if end > since:
                wait += end - since
        return wait

    def _absorb(self, now: float) -> float | None:
        """Count in the R_RDYs that have arrived by *now*; when the last of them
        arrived, s (None if none had)."""
        arrivals = self._r_rdys
        stats = self.stats
        arrived = None
        while arrivals and arrivals[0] <= now:
            arrived = arrivals.popleft()
            self.credit += 1
            stats.r_rdy_rx += 1
            if self._zero_since is not None:
                stats.credit_zero_time += arrived - self._zero_since
                self._zero_since = None
            if self._stall_since is not None:
                stats.credit_wait += arrived - self._stall_since
                self._stall_since = None
        return arrived

    def _free(self) -> bool:
        """True if the transmitter is free now."""
        return not self._busy

    def _wake(self, _event: object) -> None:
        self._wake_pending = False
        if self._free():
            self._send_next()

    def _wake_for_credit(self) -> None:
        """Schedule a wake-up at the next R_RDY's arrival (if none is pending)."""
        if self._r_rdys and not self._wake_pending:
            self._wake_pending = True
            self._later(self._r_rdys[0] - self.sim.now, self._wake)


class Port(LazyCredit):
    """One end of a link.

    *rx_buffers* is the number of receive buffers this port offers, which its
    peer learns at login as its BB credit. *bit_error_rate* applies to frames
    this port transmits. If *header_notice* is set (s after the SOF), the owner
    is handed each frame when its header has arrived rather than at its EOF:
    the cut-through switch port's view. The link (:class:`fcsim.link.link.Link`) sets
    :attr:`peer`, :attr:`char_time`, :attr:`word_time`, :attr:`gap_time` (the
    :data:`GAP_WORDS` fill words after each frame) and :attr:`delay`. The
    owner may set :attr:`drained` when it hands out a frame after which it has
    nothing to send (see the module's docstring); it stays false otherwise.

    Its transmitter is a :class:`fcsim.link.line.LineEnd` (:attr:`line_free`,
    :attr:`gap_end`, :attr:`rng`, :attr:`sinks`, :attr:`stats`) and the port a
    :class:`fcsim.link.link.LinkEnd`.
    """

    GAP_WORDS = MIN_FILL_WORDS

    def __init__(self, sim: Simulation, name: str, rx_buffers: int) -> None:
        if rx_buffers < 1:
            raise ValueError(f"{name}: rx_buffers must be >= 1, got {rx_buffers}")
        self.sim = sim
        self.name = name
        self.rx_buffers = rx_buffers
        self.owner: PortOwner | None = None
        self.peer: Port | None = None
        self.char_time = 0.0
        self.word_time = 0.0
        self.gap_time = 0.0
        self.delay = 0.0
        self.bit_error_rate = 0.0
        self.line_bits = 10.0
        self.fec: FecLine | None = None
        self.header_notice: float | None = None
        self.credit_login = 0
        self.credit = 0
        self.buffers_used = 0
        self.stats = PortStats()
        self._busy = False
        self.line_free = 0.0
        self.gap_end = 0.0
        self._stall_since: float | None = None
        self._zero_since: float | None = None
        self._r_rdys: deque[float] = deque()
        self._wake_pending = False
        self.drained = False
        self._free_at: tuple[float, int] | None = None  # the reserved end of the last gap
        self.rng = sim.rng(f"port/{name}")
        self.sinks = sim.sinks
        self._later = sim.call_later

    # -- set-up -----------------------------------------------------------------

    def login(self, bb_credit: int) -> None:
        """Set the BB credit learned at login (the peer's receive buffers)."""
        if bb_credit < 1:
            raise ValueError(f"{self.name}: BB credit must be >= 1, got {bb_credit}")
        self.credit_login = self.credit = bb_credit

    def learn_credit(self, bb_credit: int) -> None:
        """A login completed now gives this port the BB credit *bb_credit*
        (the peer's receive buffers) in place of the one it had: the frames it
        sent and has not had an R_RDY for stay counted against the new credit."""
        if bb_credit < 1:
            raise ValueError(f"{self.name}: BB credit must be >= 1, got {bb_credit}")
        outstanding = self.credit_login - self.current_credit()
        self.credit_login = bb_credit
        self.credit = bb_credit - outstanding
        if self.credit > 0:
            self.kick()

    def check_wired(self) -> None:
        """Raise if the port is not attached to an owner and a link."""
        if self.owner is None or self.peer is None:
            raise RuntimeError(f"port {self.name} is not connected (owner and link needed)")

    # -- transmitter ------------------------------------------------------------

    def kick(self) -> None:
        """Tell the transmitter that the owner may have a frame to send."""
        if self._free():
            self._send_next()
        elif self._free_at is not None:  # before the reserved end: it needs its event
            self.sim.take_up(self._free_at, self._send_next)
            self._free_at = None
        else:  # while the owner is asked, or a frame is on its way out:
            self.drained = False  # keep the event at the end of this gap

    def _free(self) -> bool:
        """True if the transmitter is free now, counting a reserved end of the
        gap that has passed (it leaves the transmitter free, as its event would)."""
        if not self._busy:
            return True
        if self._free_at is None or not self.sim.passed(self._free_at):
            return False
        self._free_at = None
        self._busy = False
        return True

    def _send_next(self, _event: object = None) -> None:
        now = self.sim.now
        if self._r_rdys:
            self._absorb(now)
        credit = self.credit > 0
        owner = self.owner
        self._busy = True  # the owner may queue more work while it is asked
        frame = owner.next_frame(credit)  # type: ignore[union-attr]
        if frame is None:
            self._busy = False
            if not credit and owner.waits_for_credit():  # type: ignore[union-attr]
                if self._stall_since is None:
                    self._stall_since = now
                    self.stats.credit_stalls += 1
                self._wake_for_credit()
            return
        if frame.uses_bb_credit:
            self.credit -= 1
            if not self.credit:
                self.stats.credit_zero += 1
                self._zero_since = now
        start, end, gap_end = launch(self, frame, now)
        peer: Port = self.peer  # type: ignore[assignment]
        arrival = end if peer.header_notice is None else start + peer.header_notice
        self._later(arrival + self.delay - now, peer._receive, frame)
        if self.drained:
            self._free_at = self.sim.reserve(gap_end - now)
        else:
            self._later(gap_end - now, self._send_next)

    def take_fill_word(self, now: float) -> tuple[float, float]:
        """Take the next free fill word after *now* for a primitive signal
        (after the frame in progress; past the gap's first words it lengthens
        the gap): its start and end, s."""
        start = self.line_free if self.line_free > now else now
        end = self.line_free = start + self.word_time
        if end > self.gap_end:
            self.gap_end = end
        return start, end

    def send_r_rdy(self) -> None:
        """Send one R_RDY in the next free fill word."""
        now = self.sim.now  # take_fill_word, inline (once a frame)
        start = self.line_free if self.line_free > now else now
        end = start + self.word_time
        self.line_free = end
        if end > self.gap_end:
            self.gap_end = end
        self.stats.r_rdy_tx += 1
        if self.sinks:
            for sink in self.sinks:
                sink.primitive(now, self, "R_RDY", start)
        peer: Port = self.peer  # type: ignore[assignment]
        peer._r_rdys.append(end + self.delay)
        if peer._stall_since is not None and peer._free():
            peer._wake_for_credit()

    # -- receiver ---------------------------------------------------------------

    def _receive(self, frame: Frame) -> None:
        if frame.uses_bb_credit:
            self.buffers_used += 1
        self.stats.frames_rx += 1
        if frame.corrupt:
            if frame.eof in INVALID_EOFS:  # found bad upstream: not this cable's error
                self.stats.eofni_rx += 1
            else:
                self.stats.errors_rx += 1
            self.owner.frame_dropped(frame)  # type: ignore[union-attr]
            return
        self.owner.frame_received(frame)  # type: ignore[union-attr]

    def release_buffer(self, at: float = 0.0, frame: Frame | None = None) -> None:
        """Free one receive buffer and return its credit to the peer with an
        R_RDY: now, or at *at* (s) if that is later (a cut-through switch's
        input holds a frame until after its EOF is in). *frame* is the frame
        that held it, if the caller knows it: a port with one pool of
        buffers has no use for it, one with virtual channels
        (:class:`fcsim.fc2.vc_port.VirtualChannelPort`) frees the buffer of
        that frame's channel."""
        now = self.sim.now
        if at > now:
            self._later(at - now, self._release_now)
            return
        self.buffers_used -= 1
        self.send_r_rdy()

    def _release_now(self, _value: object) -> None:
        self.release_buffer()

    def reset_stats(self) -> None:
        """Start a new measurement interval now (an open credit stall restarts now)."""
        self._absorb(self.sim.now)
        self.stats.reset()
        if self.fec is not None:
            self.fec.reset()
        if self._stall_since is not None:
            self._stall_since = self.sim.now
        if self._zero_since is not None:
            self._zero_since = self.sim.now

    def close_stats(self) -> None:
        """End the measurement interval now, counting an open credit stall up to now."""
        self._absorb(self.sim.now)
        if self._stall_since is not None:
            now = self.sim.now
            self.stats.credit_wait += now - self._stall_since
            self._stall_since = now
        if self._zero_since is not None:
            now = self.sim.now
            self.stats.credit_zero_time += now - self._zero_since
            self._zero_since = now

    def __repr__(self) -> str:
        return f"<Port {self.name}>"
