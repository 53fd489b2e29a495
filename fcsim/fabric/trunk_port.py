"""One end of an ISL trunk: the link-level port its switch port owns, made of
the trunk's member ports (:mod:`fcsim.fabric.trunk`).

A :class:`TrunkPort` stands where a switch port's :class:`~fcsim.fc2.port.Port`
stands: the switch queues frames for it, kicks it and frees its receive
buffers as for one port, and routing sees one hop. Each member port keeps its
own line, BB credit and R_RDYs; its owner is a :class:`TrunkMember`, which
hands the switch port's frames to whichever member's transmitter is free and
credited first: frame by frame, whatever exchange a frame belongs to (Brocade
frame-based ISL Trunking).

Deskew: the trunk's receiving end delivers frames in the order the sending
end put them on its members. A frame that arrives over a shorter member, or
after a shorter frame overtook a longer one, waits for those sent before it;
one lost on its way (a failed member) is waited for until it was due, then
passed over. A cut-through switch reckons a frame's EOF in from its length
and the time its header is handed in (:meth:`Switch.arrive
<fcsim.fabric.switch.Switch.arrive>`), and forwards it by that; so that a
short frame does not overtake a long one sent before it on another member,
the trunk hands a frame in no earlier than that reckoning puts its EOF after
the EOF of the frame before it (the frames are read out of the trunk's
buffers in order, each after the one before). The sending end tells the
receiving end each frame and when it is due, as it launches it (the
hardware measures each member's delay and delays the faster ones, "The
ASIC will send a frame down each link to determine the links latency. These
individual link latency calculations will be used to maintain in-order
delivery", Brocade TRUNK-120 student guide).

BB credit: each member has its own (its peer member's receive buffers). The
receiving end returns each freed buffer's R_RDY on the member that holds the
oldest buffer still in use, which keeps every member's credit between zero
and its login value; which frame's buffer the switch frees first does not
matter to the sender (an assumption: the FOS documents do not say how a
trunk's credits are returned).
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

from fcsim.fabric.switch_port import HEADER_CHARS
from fcsim.fc2.port import Port, PortStats

if TYPE_CHECKING:
    from fcsim.fc2.frame import Frame
    from fcsim.fc2.port import PortOwner

LATE = 1e-9
"""How long after a frame was due the receiving end stops waiting for it, s:
longer than any rounding of the event times, shorter than a character at any
speed modelled (94 ps at 128GFC is more than a rounding, less than this)."""


class TrunkMember:
    """The owner of member *port* of *trunk* (a :class:`~fcsim.fc2.port.PortOwner`)."""

    __slots__ = ("trunk", "port")

    def __init__(self, trunk: TrunkPort, port: Port) -> None:
        self.trunk = trunk
        self.port = port

    def next_frame(self, credit: bool) -> Frame | None:
        """The trunk's next frame, told to the far end with when it is due there."""
        trunk = self.trunk
        frame = trunk.owner.next_frame(credit)  # type: ignore[union-attr]
        if frame is not None:
            port = self.port
            port.drained = trunk.drained
            start = port.gap_end
            if port.line_free > start:
                start = port.line_free
            now = trunk.sim.now
            if now > start:
                start = now
            notice = port.peer.header_notice  # type: ignore[union-attr]
            due = start + (frame.chars * port.char_time if notice is None else notice)
            trunk.peer.sent(frame, due + port.delay)  # type: ignore[union-attr]
        return frame

    def waits_for_credit(self) -> bool:
        """True if the trunk has a frame ready that needs BB credit."""
        return self.trunk.owner.waits_for_credit()  # type: ignore[union-attr]

    def frame_received(self, frame: Frame) -> None:
        """A good frame arrived on this member."""
        self.trunk.arrived(self.port, frame, False)

    def frame_dropped(self, frame: Frame) -> None:
        """A frame with a transmission error arrived on this member."""
        self.trunk.arrived(self.port, frame, True)


class TrunkPort:
    """The end *name* of a trunk at one switch over member ports *members*
    (already linked, all at one speed; the first is the trunk master). Its
    switch port sets :attr:`owner` (and, cut-through, :attr:`header_notice`);
    the trunk's builder sets :attr:`peer`, the far end.

    :attr:`char_time` is the trunk's: one member's over the members' count (a
    trunk of k members carries k characters in one member's character time),
    which is the rate its switch reads it into the crossbar at.
    """

    def __init__(self, name: str, members: list[Port]) -> None:
        if not members:
            raise ValueError(f"trunk {name}: no member ports")
        self.sim = members[0].sim
        self.name = name
        self.members = members
        self.owner: PortOwner | None = None
        self.peer: TrunkPort | None = None
        self.char_time = members[0].char_time / len(members)
        self.rx_buffers = sum(m.rx_buffers for m in members)
        self.drained = False
        """The switch's mark on the frame it hands out (copied to the member
        that sends it: see :mod:`fcsim.fc2.port`)."""
        self._notice: float | None = None
        self._sent: deque[tuple[Frame, float]] = deque()
        self._arrived: dict[Frame, bool] = {}
        self._held: deque[Port] = deque()
        self._wake_at: float | None = None  # when a look at the frames waiting is due, s
        self._eof_in = 0.0  # the EOF of the frame handed in last, as its switch reckons it, s
        self.deskewed = 0
        """Frames that arrived here before a frame sent ahead of them and waited for it."""
        self.deskew_wait = 0.0
        """Their time waiting, s."""
        self.lost = 0
        """Frames sent to this end that never arrived (lost on a failed member)."""
        for port in members:
            port.owner = TrunkMember(self, port)

    # -- what the switch asks of its port ------------------------------------------

    @property
    def header_notice(self) -> float | None:
        """With cut-through, when after the SOF a frame's header is in, s (at the
        members' speed: each frame comes in on one member)."""
        return self._notice

    @header_notice.setter
    def header_notice(self, value: float | None) -> None:
        self._notice = value
        for port in self.members:  # the same characters at the member's own speed
            port.header_notice = None if value is None else value / self.char_time * port.char_time

    def kick(self) -> None:
        """The switch may have a frame for the trunk: every member's transmitter
        that is free asks for one."""
        for port in self.members:
            port.kick()

    def release_buffer(self, at: float = 0.0, frame: Frame | None = None) -> None:
        """Free one receive buffer: the R_RDY goes back on the member holding the
        oldest buffer in use (whichever member *frame* came on), now or at *at*
        (s) if later."""
        self._held.popleft().release_buffer(at)

    @property
    def stats(self) -> PortStats:
        """The trunk's transmit counters over its members: frames, characters and
        R_RDYs summed; busy time, credit wait and time at zero credit the
        members' mean (so that over an interval they are fractions of the
        trunk's capacity); stalls and transitions to zero summed."""
        out = PortStats()
        k = len(self.members)
        for port in self.members:
            s = port.stats
            out.frames_tx += s.frames_tx
            out.frames_rx += s.frames_rx
            out.chars_tx += s.chars_tx
            out.r_rdy_tx += s.r_rdy_tx
            out.r_rdy_rx += s.r_rdy_rx
            out.errors_rx += s.errors_rx
            out.eofni_rx += s.eofni_rx
            out.credit_stalls += s.credit_stalls
            out.credit_zero += s.credit_zero
            out.busy_time += s.busy_time / k
            out.credit_wait += s.credit_wait / k
            out.credit_zero_time += s.credit_zero_time / k
        return out

    # -- deskew ----------------------------------------------------------------------

    def sent(self, frame: Frame, due: float) -> None:
        """The far end launched *frame* on a member; it is due here at *due* (s)."""
        self._sent.append((frame, due))

    def arrived(self, member: Port, frame: Frame, damaged: bool) -> None:
        """*frame* arrived on *member* (*damaged*: with a transmission error)."""
        if frame.uses_bb_credit:
            self._held.append(member)
        self._arrived[frame] = damaged
        self._deliver()

    def _deliver(self, _value: object = None) -> None:
        """Hand the switch every frame whose predecessors are in (or lost), in
        the order they were sent."""
        sent, arrived, owner = self._sent, self._arrived, self.owner
        now = self.sim.now
        while sent:
            frame, due = sent[0]
            damaged = arrived.pop(frame, None)
            if damaged is None:
                if due + LATE < now:
                    sent.popleft()
                    self.lost += 1
                    continue
                if arrived:
                    self._wake(due + 2 * LATE)
                return
            if self._notice is not None:  # cut-through: EOFs in order
                earliest = self._eof_in - (frame.chars - HEADER_CHARS) * self.char_time
                if earliest > now:
                    arrived[frame] = damaged
                    self._wake(earliest)
                    return
                self._eof_in = now + (frame.chars - HEADER_CHARS) * self.char_time
            sent.popleft()
            if now > due + LATE:
                self.deskewed += 1
                self.deskew_wait += now - due
            if damaged:
                owner.frame_dropped(frame)  # type: ignore[union-attr]
            else:
                owner.frame_received(frame)  # type: ignore[union-attr]

    def _wake(self, at: float) -> None:
        """Look at the frames waiting again at *at* (s), unless a look is due sooner."""
        if self._wake_at is None or at < self._wake_at:
            self._wake_at = at
            self.sim.call_later(at - self.sim.now, self._recheck, at)

    def _recheck(self, at: float) -> None:
        if self._wake_at == at:
            self._wake_at = None
        self._deliver()

    def reset_stats(self) -> None:
        """Start a new measurement interval of the deskew counters."""
        self.deskewed = self.lost = 0
        self.deskew_wait = 0.0

    def __repr__(self) -> str:
        return f"<TrunkPort {self.name}>"
