"""The L_Port: one loop port's transmitter and receiver, frame by frame.

An :class:`LPort` is the link-level port of an NL_Port's
:class:`~fcsim.fc2.nport.NPort` (``NPort(..., port=lport)``), which it pulls
for frames as a point-to-point :class:`~fcsim.fc2.port.Port` does and with
the same timing: characters x ``Speed.char_time``, at least
:data:`~fcsim.fc2.port.MIN_FILL_WORDS` fill words between frames, R_RDYs and
other ordered sets in the next free word. What a loop changes:

- Frames flow only inside a loop circuit (:mod:`fcsim.loop.circuit`) and
  only to its other port (``next_frame(credit, d_id=peer)``). Between
  circuits the port repeats; when its owner has work (``next_destination()``)
  and its access window allows, it asks the :class:`~fcsim.loop.loop.Loop`
  to arbitrate.
- BB credit lasts one circuit (fact sheet 3.4, 5.2): a port may send its
  peer's login BB credit at once (*login_credit*; 0 for typical FC-AL disks,
  Seagate Cheetah 15K.4 FC manual table 14) and one more frame per R_RDY.
  The opened port answers OPN with an R_RDY per free buffer beyond its login
  credit; in the circuit a port sends an R_RDY as it frees a buffer, while
  its peer's credit, frames in flight and full buffers stay within
  *rx_buffers*.
- A frame that finds every buffer full (a login credit above the buffers free
  at OPN) is an overrun; it, frames hit by a transmission error and frames a
  LIP destroys in flight reach the owner as dropped.
- The opener sends CLS when it has nothing more for the opened port or, if
  *fair*, once another port's ARB has reached it and the sequences it has
  begun to send in the circuit are through: it holds the loop for its burst,
  each sequence it has begun (one information unit: an FCP_DATA IU, whose
  size a SCSI target caps at the maximum burst size of its
  disconnect-reconnect mode page, or a command, a response, an initiator's
  write burst) and closes at their end rather than begin another. A fair
  port "closes the loop at the earliest possible time"
  when it sees another port arbitrating (Seagate Fibre Channel Interface
  Manual 77767496 rev. D, 8.3.1; FC-AL-2 says it *may*, Hitachi DK32EJ OEM
  manual 3.3.3): a drive's earliest is the end of its burst, "the maximum
  amount of data that will be transferred during a data-in or data-out phase
  before disconnecting" (HP C7379 drive manual, disconnect-reconnect page),
  and FC-AL-2's rule is only that it re-arbitrates, in the next access window,
  before it opens another port. At least one frame goes in every tenancy. A
  credit stall is counted when the owner's next frame is for the open port.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from fcsim.fc1.fec import FecLine
from fcsim.fc1.ordered_sets import SOFc1
from fcsim.fc2.header import F_CTL_END_SEQUENCE
from fcsim.fc2.port import LazyCredit, PortStats
from fcsim.link.line import launch
from fcsim.loop.ring import DEFAULT_REPEAT_WORDS

if TYPE_CHECKING:
    from fcsim.engine.simulation import Simulation
    from fcsim.fc2.frame import Frame
    from fcsim.fc2.nport import NPort
    from fcsim.fc2.sequence import Sequence


class Tenancy(Protocol):
    """The loop circuit a port is in, as the port sees it
    (:class:`fcsim.loop.circuit.Circuit`)."""

    opener: LPort
    """The port that won arbitration and opened the circuit."""
    opened: LPort
    """The port it opened."""
    arb_seen_at: float
    """When another port's ARB first reaches the opener, s."""
    sent: int
    """Frames the opener has sent in it (the opener counts them)."""


class LoopAccess(Protocol):
    """What a port asks of its loop (:class:`fcsim.loop.loop.Loop`)."""

    def arbitrate(self, port: LPort) -> None:
        """*port* begins sending its ARB now."""

    def close(self, circuit: Tenancy) -> None:
        """The opener of *circuit* sends CLS now."""


class LoopPortStats:
    """Loop figures of one L_Port over the measured interval (times in s).

    *errored_tx*: frames it sent that arrived with a transmission error;
    *lost*: frames to it destroyed in flight by a LIP, and *payload_lost*
    their payload, bytes (link-control frames carry none); *overruns*: frames
    to it that found no free buffer.
    """

    __slots__ = ("arbitrations", "arbitration_wait", "tenancies", "opened", "hold_time",
                 "overruns", "lost", "payload_lost", "errored_tx")

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Zero every counter."""
        self.arbitrations = self.tenancies = self.opened = self.overruns = self.lost = 0
        self.payload_lost = self.errored_tx = 0
        self.arbitration_wait = self.hold_time = 0.0


class LPort(LazyCredit):
    """The loop port of node *name* with *rx_buffers* receive buffers.

    *login_credit*: the BB credit it announces at login, frames (0..rx_buffers).
    *fair*: whether it follows the access fairness algorithm. *repeat_words*:
    its repeat delay, transmission words. *port_name*: its 64-bit Port_Name
    (the lowest wins LISM). The :class:`~fcsim.loop.loop.Loop` sets
    :attr:`loop`, :attr:`index`, the line times and the error rate; the builder
    sets :attr:`al_pa` and :attr:`port_id`.

    Its transmitter is a :class:`fcsim.link.line.LineEnd`. What the loop and
    its circuits use of it: :meth:`enter_circuit` and :meth:`leave_circuit`
    (a tenancy's credit, path and R_RDYs), :meth:`transmit` (send in the
    circuit if idle), :meth:`send_cls`, :meth:`send_ordered_set`,
    :meth:`grant_free_buffers`, :meth:`receive` and :meth:`lose` (a frame
    arriving, or destroyed by a LIP), the arbitration spells
    (:meth:`start_arbitration`, :meth:`end_arbitration`,
    :meth:`try_arbitrate`), and the flags :attr:`initialising`,
    :attr:`access` and :attr:`access_pending` the loop keeps.
    """

    def __init__(self, sim: Simulation, name: str, rx_buffers: int, login_credit: int = 0,
                 fair: bool = True, repeat_words: int = DEFAULT_REPEAT_WORDS,
                 port_name: int = 0) -> None:
        if rx_buffers < 1 or not 0 <= login_credit <= rx_buffers:
            raise ValueError(f"{name}: need rx_buffers >= 1 and 0 <= login_credit <= rx_buffers,"
                             f" got {rx_buffers} and {login_credit}")
        if repeat_words < 0:
            raise ValueError(f"{name}: repeat delay must be >= 0 words, got {repeat_words}")
        self.sim, self.name, self.port_name = sim, name, port_name
        self.rx_buffers, self.login_credit = rx_buffers, login_credit
        self.fair, self.repeat_words = fair, repeat_words
        self.owner: NPort | None = None
        self.loop: LoopAccess | None = None
        self.circuit: Tenancy | None = None
        self.peer: LPort | None = None
        self.arb_since: float | None = None
        self.index = self.al_pa = -1
        self.port_id = self.credit = self.buffers_used = 0
        self.char_time = self.word_time = self.gap_time = self.bit_error_rate = 0.0
        self.line_bits = 10.0
        self.fec: FecLine | None = None  # a loop runs at 8GFC at most: no FEC
        self.access = self.initialising = True
        """*access*: a fair port may arbitrate (its access window is open);
        *initialising*: the loop initialises and the port may not arbitrate."""
        self.access_pending = False
        """The IDLEs of an access window reset are on their way to the port
        (the loop sets and clears it)."""
        self.stats = PortStats()
        self.loop_stats = LoopPortStats()
        self._peer_id = self._hops = self._granted = self._received = 0
        self._cls_sent = self._busy = False
        self._begun: set[Sequence] = set()  # sequences part-sent in the circuit (opener)
        self.drained = False  # an N_Port's mark (fcsim.fc2.port); a loop port does not use it
        self._waiting = self._wake_pending = False
        self._delay = self.line_free = self.gap_end = self._arb_mark = self._hold_mark = 0.0
        self._deliver: Callable[[Frame], None] | None = None  # set in each circuit
        self._stall_since: float | None = None
        self._r_rdys: deque[float] = deque()
        self.rng = sim.rng(f"lport/{name}")
        self.sinks, self._later = sim.sinks, sim.call_later

    # -- arbitration and circuits (driven by the Loop) ------------------------------

    def kick(self) -> None:
        """The owner may have a frame to send: send it in the circuit, or arbitrate."""
        circuit = self.circuit
        if circuit is not None:
            if not self._busy:
                self._send_next()
            if circuit.opened is self:
                self.try_arbitrate()
        else:
            self.try_arbitrate()

    def try_arbitrate(self) -> bool:
        """Begin arbitrating if allowed and the owner has work; True if begun.

        A port repeating the loop, or one opened by another (FC-AL-2 lets an
        OPENED port set ARB_PEND and send its ARB in its fill words), may begin.
        """
        circuit = self.circuit
        if ((circuit is None or circuit.opened is self) and self.arb_since is None
                and not self.initialising
                and (self.access or not self.fair)
                and self.owner.next_destination() is not None):  # type: ignore[union-attr]
            self.loop.arbitrate(self)  # type: ignore[union-attr]
            return True
        return False

    def start_arbitration(self, now: float) -> None:
        """Mark the start of an arbitration spell at *now* (s)."""
        self.arb_since = self._arb_mark = now
        self.loop_stats.arbitrations += 1

    def end_arbitration(self, now: float) -> None:
        """End the arbitration spell at *now* (won, opened by another port, or LIP)."""
        self.loop_stats.arbitration_wait += now - self._arb_mark
        self.arb_since = None

    def grant_free_buffers(self) -> None:
        """Answer OPN: an R_RDY for each free buffer beyond the login credit."""
        for _ in range(self.rx_buffers - self.buffers_used - self.login_credit):
            self._granted += 1
            self.send_r_rdy()

    def enter_circuit(self, circuit: Tenancy, peer: LPort, hops: int, delay: float,
                      deliver: Callable[[Frame], None], won_at: float | None) -> None:
        """Enter *circuit* with *peer*: its credit (the peer's login BB credit),
        the R_RDYs this port owes, the *hops* and path *delay* (s) its frames
        take, and *deliver*, called with each frame as it reaches the peer.
        *won_at*: when this port, the opener, won arbitration (s; None for the
        opened port)."""
        self.circuit, self.peer, self._peer_id = circuit, peer, peer.port_id
        self.credit = peer.login_credit
        self._granted, self._received, self._cls_sent = self.login_credit, 0, False
        self._hops = hops
        self._delay, self._deliver = delay, deliver
        if won_at is not None:
            self._hold_mark = won_at
            self._begun.clear()

    def leave_circuit(self, now: float) -> None:
        """Leave the circuit at *now* (s): credit and R_RDYs in flight are gone."""
        circuit = self.circuit
        if circuit is not None and circuit.opener is self:
            self.loop_stats.hold_time += now - self._hold_mark
        self.circuit = self.peer = None
        self.credit = 0
        self._r_rdys.clear()
        self._waiting = False
        if self._stall_since is not None:
            self.stats.credit_wait += now - self._stall_since
            self._stall_since = None

    def transmit(self) -> None:
        """Send in the circuit now, unless a frame is already on its way out."""
        if not self._busy:
            self._send_next()

    def send_cls(self) -> float:
        """Send CLS in the next free word (nothing more goes in this circuit);
        returns its end, s."""
        self._cls_sent = True
        return self.send_ordered_set("CLS")

    def send_ordered_set(self, name: str) -> float:
        """Send one ordered set (OPN, CLS) in the next free word; returns its end, s."""
        now = self.sim.now
        start = self.line_free if self.line_free > now else now
        end = self.line_free = start + self.word_time
        if end > self.gap_end:
            self.gap_end = end
        if self.sinks:
            for sink in self.sinks:
                sink.primitive(now, self, name, start)
        return end

    # -- transmitter ----------------------------------------------------------------

    def arbitration_seen(self, circuit: Tenancy) -> None:
        """Another port's ARB reached the opener of *circuit*: a fair one may now close."""
        if self.circuit is circuit and not self._busy:
            self._send_next()

    def _send_next(self, _event: object = None) -> None:
        circuit = self.circuit
        if circuit is None or self._cls_sent:
            self._busy = False
            return
        now = self.sim.now
        self._waiting = False
        if self._r_rdys:
            self._absorb(now)
        opener = circuit.opener is self
        if (now >= circuit.arb_seen_at and opener and self.fair and circuit.sent
                and not self._begun):
            self._busy = False
            self.loop.close(circuit)  # type: ignore[union-attr]
            return
        credit = self.credit > 0
        owner = self.owner
        self._busy = True
        frame = owner.next_frame(credit, self._peer_id)  # type: ignore[union-attr]
        if frame is None:
            self._busy = False
            if not credit and owner.waits_for_credit():  # type: ignore[union-attr]
                self._waiting = True
                if self._stall_since is None and owner.next_destination() == self._peer_id:  # type: ignore[union-attr]
                    self._stall_since = now
                    self.stats.credit_stalls += 1
                self._wake_for_credit()
            elif opener:
                self.loop.close(circuit)  # type: ignore[union-attr]
            return
        if frame.cls != 1 or frame.sof is SOFc1:
            self.credit -= 1
        if opener:
            circuit.sent += 1
            seq = frame.sequence
            if seq is not None and self.fair:  # a data frame: part of the burst till its end
                if frame.f_ctl & F_CTL_END_SEQUENCE:
                    self._begun.discard(seq)
                else:
                    self._begun.add(seq)
        start, end, gap_end = launch(self, frame, now, self._hops)
        self._later(end + self._delay - now, self._deliver, frame)  # type: ignore[arg-type]
        self._later(gap_end - now, self._send_next)

    def send_r_rdy(self) -> None:
        """Send one R_RDY to the circuit's peer in the next free fill word."""
        end = self.send_ordered_set("R_RDY")
        self.stats.r_rdy_tx += 1
        peer: LPort = self.peer  # type: ignore[assignment]
        peer._r_rdys.append(end + self._delay)
        if peer._waiting and not peer._busy:
            peer._wake_for_credit()

    # -- receiver -------------------------------------------------------------------

    def receive(self, frame: Frame, sender: LPort) -> None:
        """A frame from *sender* arrived (called by the circuit)."""
        self.stats.frames_rx += 1
        if frame.cls != 1 or frame.sof is SOFc1:
            self._received += 1
            if self.buffers_used >= self.rx_buffers:
                self.loop_stats.overruns += 1
                self._discard(frame)
                return
            self.buffers_used += 1
        if frame.corrupt:
            self.stats.errors_rx += 1
            sender.loop_stats.errored_tx += 1
            self.owner.frame_dropped(frame)  # type: ignore[union-attr]
            return
        self.owner.frame_received(frame)  # type: ignore[union-attr]

    def lose(self, frame: Frame) -> None:
        """A frame in flight was destroyed by a LIP."""
        stats = self.loop_stats
        stats.lost += 1
        if not frame.is_link_control:
            stats.payload_lost += frame.payload_len
        self._discard(frame)

    def _discard(self, frame: Frame) -> None:
        """Hand the owner a frame that never got a buffer (overrun, LIP) as dropped.

        The owner frees the buffer of every dropped frame that uses one, so the
        frame is lent one for the call; out of a circuit, or with no credit
        owed, freeing it sends no R_RDY.
        """
        if frame.cls != 1 or frame.sof is SOFc1:
            self.buffers_used += 1
        self.owner.frame_dropped(frame)  # type: ignore[union-attr]

    def release_buffer(self) -> None:
        """Free a receive buffer; in a circuit, offer it to the peer with an R_RDY."""
        self.buffers_used -= 1
        if (self.circuit is not None and not self._cls_sent
                and self._granted - self._received + self.buffers_used < self.rx_buffers):
            self._granted += 1
            self.send_r_rdy()

    # -- measurement ----------------------------------------------------------------

    def reset_stats(self) -> None:
        """Start a new measurement interval now; open spells restart now."""
        now = self.sim.now
        self._absorb(now)
        self.stats.reset()
        self.loop_stats.reset()
        self._arb_mark = self._hold_mark = now
        if self._stall_since is not None:
            self._stall_since = now

    def close_stats(self) -> None:
        """End the measurement interval now, counting open spells up to now."""
        now = self.sim.now
        self._absorb(now)
        if self.arb_since is not None:
            self.loop_stats.arbitration_wait += now - self._arb_mark
        if self.circuit is not None and self.circuit.opener is self:
            self.loop_stats.hold_time += now - self._hold_mark
        self._arb_mark = self._hold_mark = now
        if self._stall_since is not None:
            self.stats.credit_wait += now - self._stall_since
            self._stall_since = now

    def __repr__(self) -> str:
        return f"<LPort {self.name} AL_PA {self.al_pa:02X}>"
