"""The N_Port: sequences out, sequences in, and the rules of each class.

An :class:`NPort` sits on one link :class:`~fcsim.fc2.port.Port`. Outbound it
turns queued sequences into frames, interleaving the open sequences of
different exchanges frame by frame and putting link-control frames (ACK, busy,
reject) first. Within one exchange only one sequence is open at a time: the
next one (a streamed sequence) starts once the last frame of the one before
has been sent (FC-PH sequence management: a sequence initiator completes the
data frames of a sequence before it sends another in the same exchange; ports
multiplex by sending sequences of different exchanges concurrently). Several
exchanges may share one such ordered stream: IP over FC sends each packet in
an exchange of its own, and its packets to a destination leave one at a
time in the order IP gave them (:mod:`fcsim.fc4.ip`). A sequence may open
only when every earlier sequence of its stream has sent its last frame, may
send a frame only once the host adapter has fetched it, and, by class, needs
a BB credit (Class 3, and Class 1's connect frame), an EE credit too
(Class 2), or an established connection (Class 1 after its connect).

Inbound it admits or refuses frames, reassembles sequences and answers Class
1 and 2 frames. A frame is refused (P_BSY, P_RJT; Class 3: discarded) when
its class is not one the port accepts, when it is of another class or from a
third port while a Class 1 connection is up, or when more sequences would be
open than the port's concurrent sequences. A sequence received whole goes to
the handlers registered for its frame TYPE (:meth:`NPort.register`: the
FC-4s, such as IP and FCP, and the link services' users).

Class 3 (datagram): BB credit only, no answer; a refused or damaged frame is
discarded and counted.

Class 2 (acknowledged): every data frame takes one end-to-end (EE) credit
towards its destination and is answered by ACK_1, P_BSY or P_RJT, each of
which returns the credit. A busied sequence is sent again from its first frame
after the busy-retry delay; a rejected one is abandoned. If ACKs are still
missing E_D_TOV after the last frame (a frame was lost), the sequence is
aborted and its credit restored.

Class 1 (connection): a dedicated connection between two ports
(:mod:`fcsim.fc2.connection`).

Not modelled: ACK_0/ACK_N, intermix, camp-on and stacked connects. Without
faults a Class 1/2 sequence with a lost frame is aborted (recovery belongs to
the upper layer); a scenario with faults adds Link Reset and the exchange
error policy's sequence recovery (:mod:`fcsim.fc2.link_recovery`,
:mod:`fcsim.fc2.sequence_recovery`, which plugs in as the N_Port's
:class:`SequenceErrorPolicy`), and an N_Port whose link is down holds what
its upper layers send (:meth:`NPort.hold`). A sequence being received that
gets no frame for E_D_TOV is abandoned and counted incomplete.

The N_Port is one class: its transmit side, receive side and Class 1
connection share its queues, its connection and its credit, and the per-frame
paths (:meth:`NPort.next_frame`, :meth:`NPort.frame_received`) read them
directly.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from fcsim.engine.simulation import Simulation
from fcsim.fc1 import ordered_sets as osets
from fcsim.fc2 import header as h
from fcsim.fc2.connection import CLOSING, ESTABLISHED, PENDING, Connection
from fcsim.fc2.els_payload import port_name
from fcsim.fc2.exchange_ids import ExchangeIds
from fcsim.fc2.fpin import FpinListener, FpinReceiver, SignalListener
from fcsim.fc2.frame import SOF_FIRST, SOF_NEXT, Frame
from fcsim.fc2.inbound import Inbound
from fcsim.fc2.login import R_A_TOV, PeerLogin, ServiceParameters
from fcsim.fc2.port import Port
from fcsim.fc2.receive_drain import DrainSpec, ReceiveDrain
from fcsim.fc2.sequence import Exchange, Sequence

_BLOCKED, _FREE, _NEEDS_CREDIT = 0, 1, 2
"""What may hold a sequence's next frame back: something other than credit,
nothing, or only a BB credit."""

Handler = Callable[[Sequence, float], bool]
"""Takes a sequence received whole at a time (s) if it is its own: True if it
took it, anything else to leave it to the handlers registered before it
(:meth:`NPort.register`)."""


class SequenceErrorPolicy(Protocol):
    """What recovers the N_Port's Class 1 and 2 sequences that lose a frame
    (:meth:`NPort.recover_sequences`; none by default: such a sequence is
    aborted, its upper layer told). The N_Port calls it at four points."""

    def gap(self, frame: Frame) -> None:
        """A Class 1/2 data *frame* arrived past a gap in its sequence's count;
        its ACK, already queued, asks for ABTS (Abort Sequence Condition 01)."""

    def answered(self, frame: Frame) -> None:
        """After the N_Port has taken in *frame*, an ACK_1 with the Abort
        Sequence Condition set answering one of its data frames."""

    def completed(self, seq: Sequence, status: str) -> None:
        """FC-2 is done with Class 1/2 *seq* as *status*: the policy completes
        it (:meth:`NPort.complete`) or recovers it."""

    def received(self, seq: Sequence, time: float) -> bool:
        """*seq* arrived whole at *time* (s), before its TYPE's handlers see
        it: True if the policy took it (its own ABTS or BA_ACC)."""


class Keeper(Protocol):
    """What takes the N_Port's queued sequences while its link is down
    (:meth:`NPort.hold`)."""

    def keeps(self, seq: Sequence) -> bool:
        """*seq* is being queued to send: True if the keeper holds or drops it,
        False to let it go out (a login's sequence, say)."""


class NPortStats:
    """Counters of one N_Port over the measured interval (payload in bytes).

    Every payload byte sent (``payload_tx``) is, at the recipient, received
    (``payload_rx``), dropped for a transmission error, discarded (Class 3
    frame refused) or refused with a busy or reject (``refused_payload``).
    """

    __slots__ = (
        "data_frames_tx", "payload_tx", "data_frames_rx", "payload_rx", "acks_tx", "acks_rx",
        "busy_tx", "busy_rx", "reject_tx", "reject_rx", "dropped_frames", "dropped_payload",
        "discarded_frames", "discarded_payload", "refused_payload", "sequences_rx",
        "sequences_incomplete", "sequences_aborted", "connections",
    )

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Zero every counter."""
        for name in self.__slots__:
            setattr(self, name, 0)

    def as_dict(self) -> dict[str, int]:
        """The counters by name."""
        return {name: getattr(self, name) for name in self.__slots__}



class NPort:
    """A node port with N_Port ID *port_id* offering service parameters *params*.

    *port* is the link-level port it sends through (default: a point-to-point
    :class:`~fcsim.fc2.port.Port` with ``params.bb_credit`` receive buffers).
    Each sequence received whole goes to the handlers registered for its
    frame TYPE (:meth:`register`). *rx_stage(frame, done)*, if set, takes
    each frame received before it is handled (a host adapter's DMA to
    memory); *tx_stage(seq)*, if set, is told of each sequence sent from host
    memory and raises its ``fetched`` count as the card fetches its frames
    (the adapter's DMA from memory). *ready_at* is when login completed, s
    (None while a timed login is under way); workloads wait for it through
    :meth:`when_ready`.
    """

    def __init__(self, sim: Simulation, name: str, port_id: int, params: ServiceParameters,
                 port: Port | None = None) -> None:
        if not 0 < port_id < 0xFFFFF0:
            raise ValueError(f"{name}: N_Port ID must be 0x000001..0xFFFFEF, got {port_id:#08x}")
        self.sim = sim
        self.name = name
        self.port_id = port_id
        self.params = params
        self.port = Port(sim, name, params.bb_credit) if port is None else port
        self.port.owner = self
        self.peers: dict[int, PeerLogin] = {}
        self.connection: Connection | None = None
        self.rx_stage: Callable[[Frame, Callable[[], None]], None] | None = None
        self.tx_stage: Callable[[Sequence], None] | None = None
        self.ready_at: float | None = 0.0
        self._ready_waiters: list[Callable[[], None]] = []
        self.stats = NPortStats()
        self._control: deque[Frame] = deque()
        self._ready: deque[Sequence] = deque()
        # per stream (an exchange, or exchanges sharing one), its sequences queued
        # here in order; only the first may open
        self._streams: dict[object, deque[Sequence]] = {}
        self._ready_classed = 0  # sequences in _ready of Class 1 or 2
        self._inbound: dict[Sequence, Inbound] = {}
        self._inbound_check = False
        # per exchange, its Class 3 sequence being received here: a later sequence of
        # the exchange ends it (see _data_received)
        self._inbound_of_exchange: dict[Exchange, Sequence] = {}
        self._rx_ids: dict[tuple[int, int], int] = {}
        self._next_rx_id = 0
        self.exchange_ids = ExchangeIds()
        """The OX_IDs of the exchanges this port originates (held while open)."""
        self._next_seq_id = 0
        spec = params.drain or DrainSpec(frame_time=params.rx_frame_time)
        self.drain = ReceiveDrain(sim, name, spec, self._handle) if spec.active else None
        """The receive path that frees its buffers late (None: each at once)."""
        self._take: Callable[[Frame], None] = (self._handle if self.drain is None
                                               else self.drain.receive)
        """What takes a received frame out of its buffer: the drain, or at once."""
        self._handlers: dict[int, list[Handler]] = {}  # by frame TYPE, the latest first
        self._recovery: SequenceErrorPolicy | None = None
        self._keeper: Keeper | None = None
        self.fpin: FpinReceiver | None = None
        """Its notifications' receiving end, made by the first of
        :meth:`receive_fpins`, :meth:`listen_fpin`, :meth:`listen_signals` (None: it
        takes no FPIN)."""
        self._rng = sim.rng(f"nport/{name}")

    # -- login and upper-layer interface ---------------------------------------

    def login(self, peer: NPort) -> None:
        """PLOGI with *peer*: learn its receive limits, classes and EE credit."""
        p = peer.params
        self.peers[peer.port_id] = PeerLogin(peer.port_id, p.rx_data_field, p.ee_credit, p.classes)

    def reset_stats(self) -> None:
        """Start a new measurement interval: zero the counters; the frames of
        sequences being received stay counted in the interval before (one
        abandoned later takes back only what this interval counted)."""
        self.stats.reset()
        for inbound in self._inbound.values():
            inbound.new_interval()

    def when_ready(self, callback: Callable[[], None]) -> None:
        """Call *callback* once the port has logged in (at once if it has)."""
        if self.ready_at is not None:
            callback()
        else:
            self._ready_waiters.append(callback)

    def set_ready(self) -> None:
        """Mark login complete now and release what waited for it."""
        self.ready_at = self.sim.now
        waiters, self._ready_waiters = self._ready_waiters, []
        for callback in waiters:
            callback()

    def open_exchange(self, d_id: int, stream: object = None) -> Exchange:
        """Start a new exchange with logged-in N_Port *d_id*; it holds the next
        free OX_ID (:class:`~fcsim.fc2.exchange_ids.ExchangeIds`) until
        :meth:`close_exchange`. *stream*: the stream its sequences join (None:
        its own; see :class:`~fcsim.fc2.sequence.Exchange`)."""
        if d_id not in self.peers:
            raise ValueError(f"{self.name}: not logged in with N_Port {d_id:06x}")
        try:
            ox_id = self.exchange_ids.take()
        except RuntimeError as error:
            raise RuntimeError(f"{self.name}: {error}") from None
        return Exchange(ox_id, self, d_id, stream)

    def close_exchange(self, exchange: Exchange, abnormal: bool = False) -> None:
        """*exchange*, which this port originated, has ended: its OX_ID is free
        for a later exchange, at once or, after an *abnormal* end (aborted,
        rejected), R_A_TOV later (:mod:`fcsim.fc2.exchange_ids`)."""
        if abnormal:
            self.sim.call_later(R_A_TOV, lambda _event: self.exchange_ids.give_back(exchange.ox_id))
        else:
            self.exchange_ids.give_back(exchange.ox_id)

    def end_exchange(self, seq: Sequence) -> None:
        """FC-2 is done with *seq*, the last sequence of an exchange this port
        originated: the exchange ends, abnormally if *seq* was aborted or
        rejected (:meth:`close_exchange`)."""
        self.close_exchange(seq.exchange, seq.status in ("aborted", "rejected"))

    def send(
        self,
        exchange: Exchange,
        size: int,
        cls: int,
        max_data_field: int | None = None,
        *,
        r_ctl: int = h.R_CTL_UNSOLICITED_DATA,
        type_: int = h.TYPE_VENDOR,
        last: bool = False,
        initiative: bool = False,
        df_ctl: int = 0,
        ulp: object = None,
        on_complete: Callable[[Sequence], None] | None = None,
        on_delivered: Callable[[Sequence, float], None] | None = None,
        meter: Any = None,
        from_host: bool = False,
    ) -> Sequence:
        """Queue a sequence of *size* payload bytes in *exchange*, Class *cls*.

        Frames carry at most *max_data_field* bytes, and never more than the
        recipient accepts (login). *last* marks the last sequence of the
        exchange; *initiative* hands the sequence initiative to the other end
        with the last frame; *df_ctl* flags optional headers in the first frame; *ulp* is
        the upper-layer unit carried; *meter* counts its frames as the
        recipient accepts them (see :class:`Sequence`). Returns the queued
        sequence.
        """
        if cls not in (1, 2, 3):
            raise ValueError(f"{self.name}: class must be 1, 2 or 3, got {cls}")
        if size < 0:
            raise ValueError(f"{self.name}: sequence size must be >= 0 bytes, got {size}")
        if max_data_field is not None and max_data_field < 1:
            raise ValueError(f"{self.name}: max_data_field must be >= 1 byte, got {max_data_field}")
        d_id = exchange.responder_id if exchange.originator is self else exchange.originator_id
        peer = self.peers[d_id]
        data_field = peer.max_data_field if max_data_field is None else min(
            max_data_field, peer.max_data_field)
        seq = Sequence(exchange, d_id, self._next_seq_id, size, cls, data_field, self.sim.now,
                       r_ctl, type_, on_complete, on_delivered, meter)
        seq.df_ctl = df_ctl
        seq.ulp = ulp
        seq.f_ctl = (h.F_CTL_RELATIVE_OFFSET
                     | (h.F_CTL_EXCHANGE_CONTEXT if exchange.originator is not self else 0)
                     | (h.F_CTL_FIRST_SEQUENCE if seq.first_of_exchange else 0)
                     | (h.F_CTL_LAST_SEQUENCE if last else 0)
                     | (h.F_CTL_ACK_1 if cls != 3 else 0))
        if initiative:
            seq.end_f_ctl |= h.F_CTL_SEQ_INITIATIVE
        self._next_seq_id = (self._next_seq_id + 1) & 0xFF
        if from_host and self.tx_stage is not None:
            seq.fetched = 0
            self.tx_stage(seq)
        self.enqueue(seq)
        self.port.kick()
        return seq

    # -- what plugs in -----------------------------------------------------------

    def register(self, types: Iterable[int], handler: Handler) -> None:
        """Offer *handler* each sequence of a frame TYPE in *types* received
        whole (an FC-4, a link service's user). The handlers of one TYPE are
        offered a sequence in turn, the one registered last first, until one
        takes it: a handler registered later is the more specific (an FC-4
        answers its PRLI before a fabric login's catch-all answer to ELS
        requests)."""
        for type_ in types:
            self._handlers.setdefault(type_, []).insert(0, handler)

    def recover_sequences(self, policy: SequenceErrorPolicy) -> None:
        """Recover Class 1 and 2 sequences that lose a frame by *policy*
        (:mod:`fcsim.fc2.sequence_recovery`), set before the run starts."""
        if self._recovery is not None:
            raise RuntimeError(f"{self.name}: a sequence recovery is already set")
        self._recovery = policy

    def hold(self, keeper: Keeper | None) -> None:
        """From now on, offer each sequence queued to send to *keeper* first (its
        link is down); None: queue them as usual again."""
        self._keeper = keeper

    def receive_fpins(self) -> FpinReceiver:
        """Take the FPINs this N_Port receives (:mod:`fcsim.fc2.fpin`): the
        receiving end, made at the first call and registered for ELS
        sequences; set before the run starts."""
        if self.fpin is None:
            self.fpin = FpinReceiver(port_name(self.name), lambda: self.sim.now)
            self.register((h.TYPE_ELS,), self.fpin.received)
        return self.fpin

    def listen_fpin(self, listener: FpinListener) -> None:
        """Hand each FPIN descriptor this N_Port receives to *listener*
        (``listener.fpin_received(port_name, descriptor)``, *port_name* this
        N_Port's World Wide Port Name): a multipath layer, a throttling
        initiator; in the order listeners were added; set when the network is
        built."""
        self.receive_fpins().listeners.append(listener)

    def listen_signals(self, listener: SignalListener) -> None:
        """Hand each congestion signal this N_Port's F_Port sends it to *listener*."""
        self.receive_fpins().signal_listeners.append(listener)

    def queued(self) -> list[Sequence]:
        """The sequences queued to send, each stream's in order."""
        return [seq for stream in self._streams.values() for seq in stream]

    def drop_link_control(self) -> int:
        """Drop the link-control frames queued to send (its link failed);
        how many there were."""
        dropped = len(self._control)
        self._control.clear()
        return dropped

    def accept_abort(self, abts: Sequence) -> None:
        """Answer the ABTS *abts* with BA_ACC, in its exchange and class (an
        FC-4 that has ended what it held of the exchange)."""
        self.send(abts.exchange, h.BA_ACC_SIZE, abts.cls, r_ctl=h.R_CTL_BA_ACC,
                  type_=h.TYPE_BLS, last=True)

    def abandon(self, seq: Sequence) -> None:
        """Discard what this port holds of *seq*, being received: counted
        incomplete, its meter's count taken back."""
        inbound = self._inbound.pop(seq, None)
        if inbound is not None:
            self.stats.sequences_incomplete += 1
            self._unmeter(inbound, seq)

    def take_back(self, exchange: Exchange, meter: Any, abandoned: bool = True) -> None:
        """The data of *exchange*, counted into *meter* as it arrived, is not
        the data its command delivered: an attempt given up (*abandoned*: what
        arrives in it after is not counted either) or data asked for again in
        it. What this interval counted of it is taken back."""
        if meter is not None and not exchange.abandoned:
            meter.payload -= exchange.metered
            meter.taken_back += exchange.metered
        exchange.metered = 0
        exchange.abandoned = exchange.abandoned or abandoned

    @staticmethod
    def _unmeter(inbound: Inbound, seq: Sequence) -> None:
        """Take back what *inbound*, an incomplete attempt of *seq*, counted
        (nothing if its exchange was given up: taken back then)."""
        if seq.meter is not None and not seq.exchange.abandoned:
            inbound.unmeter(seq.meter)
            seq.exchange.metered -= inbound.payload

    def complete(self, seq: Sequence, status: str) -> None:
        """FC-2 is done with *seq*, as *status*: tell its sender."""
        seq.status = status
        if seq.on_complete is not None:
            seq.on_complete(seq)

    def _complete(self, seq: Sequence, status: str) -> None:
        """FC-2 is done with Class 1/2 *seq* (or one given up unsent): completed,
        or recovered by the sequence recovery there is."""
        if self._recovery is None:
            self.complete(seq, status)
        else:
            self._recovery.completed(seq, status)

    # -- transmit: which frame goes next -------------------------------------------

    def next_frame(self, credit: bool, d_id: int | None = None) -> Frame | None:
        """Next frame to transmit: link control first, then open sequences in turn.

        With *d_id*, only a frame for that N_Port (a loop port's open tenancy).
        """
        control = self._control
        if control and (credit or not control[0].uses_bb_credit) and (
                d_id is None or control[0].d_id == d_id):
            frame = control.popleft()
            self.port.drained = not control and not self._ready  # nothing more queued
            return frame
        ready = self._ready
        if not credit and not self._ready_classed and self.connection is None:
            return None  # only Class 3 sequences, each needing a credit
        for _ in range(len(ready)):
            seq = ready[0]
            if ((d_id is not None and seq.d_id != d_id) or seq.next_cnt >= seq.fetched
                    or (not seq.next_cnt and self._behind(seq))):
                ready.rotate(-1)
                continue
            if seq.cls == 3 and self.connection is None:  # the common case, inlined
                gate = _NEEDS_CREDIT
            else:
                gate = self._gate(seq)
            if gate == _FREE or (gate == _NEEDS_CREDIT and credit):
                frame = self._make_frame(seq)
                if seq.next_cnt == seq.n_frames:
                    ready.popleft()
                    self._closed(seq)
                    if seq.cls == 3:  # no recovery at FC-2 for Class 3
                        self.complete(seq, "sent")
                    else:
                        self._ready_classed -= 1
                else:
                    ready.rotate(-1)
                self.port.drained = not ready and not control  # nothing more queued
                return frame
            ready.rotate(-1)
        return None

    def next_destination(self) -> int | None:
        """D_ID of the frame that would go next if BB credit allowed, or None."""
        if self._control:
            return self._control[0].d_id
        for seq in self._ready:
            if self._gate(seq) != _BLOCKED:
                return seq.d_id
        return None

    def waits_for_credit(self) -> bool:
        """True if a frame is ready that only lacks a BB credit."""
        if self._control and self._control[0].uses_bb_credit:
            return True
        return any(self._gate(seq) == _NEEDS_CREDIT for seq in self._ready)

    def _gate(self, seq: Sequence) -> int:
        """Whether *seq* may send its next frame now, and whether it needs BB credit."""
        if seq.next_cnt >= seq.fetched:
            return _BLOCKED  # its next frame's data are not on the card yet
        if not seq.next_cnt and self._behind(seq):
            return _BLOCKED
        conn = self.connection
        peer = self.peers[seq.d_id]
        if seq.cls == 1:
            if peer.ee_credit <= 0:
                return _BLOCKED
            if conn is None:
                return _NEEDS_CREDIT
            if conn.peer_id == seq.d_id and conn.state == ESTABLISHED:
                return _FREE
            return _BLOCKED
        if conn is not None or (seq.cls == 2 and peer.ee_credit <= 0):
            return _BLOCKED
        return _NEEDS_CREDIT

    def _make_frame(self, seq: Sequence) -> Frame:
        cnt = seq.next_cnt
        seq.next_cnt = cnt + 1
        cls = seq.cls
        last = cnt + 1 == seq.n_frames
        f_ctl = seq.f_ctl | seq.end_f_ctl if last else seq.f_ctl
        if cls == 1:
            if self.connection is None:
                self.connection = Connection(seq.d_id, PENDING, seq)
                sof = osets.SOFc1
            else:
                sof = osets.SOFi1 if cnt == 0 else osets.SOFn1
            self.connection.last_activity = self.sim.now
        else:
            sof = SOF_FIRST[cls] if cnt == 0 else SOF_NEXT[cls]
        if cls != 3:
            seq.unanswered += 1
            self.peers[seq.d_id].ee_credit -= 1
            seq.last_activity = self.sim.now
            if not seq.watchdog:
                seq.watchdog = True
                self.sim.call_later(self.params.e_d_tov, self._watchdog, seq)
            if cls == 1 and last and self.connection is not None and not self._class1_pending(
                    seq.d_id, seq):
                f_ctl |= h.F_CTL_END_CONNECTION
                if self.connection.state == ESTABLISHED:
                    self.connection.state = CLOSING
                    self.connection.request = seq
        payload = seq.size - seq.data_field * cnt if last else seq.data_field
        exchange = seq.exchange
        if cnt == 0 and exchange.originator is self:
            exchange.originator_id = self.port_id  # the S_ID its responder answers
        frame = Frame(
            sof, osets.EOFt if last else osets.EOFn, seq.r_ctl, seq.d_id, self.port_id,
            seq.type, f_ctl, seq.seq_id, cnt, exchange.ox_id, exchange.rx_id, payload, cls,
            None, cnt * seq.data_field, seq.df_ctl if cnt == 0 else 0, 0, seq,
        )
        frame.attempt = seq.attempt
        stats = self.stats
        stats.data_frames_tx += 1
        stats.payload_tx += payload
        return frame

    def _watchdog(self, seq: Sequence) -> None:
        """E_D_TOV check: answers missing and no frame sent or answered for E_D_TOV
        means frames were lost.

        The credit of lost frames comes back; a sequence whose current attempt
        lost a frame is aborted.
        """
        seq.watchdog = False
        if not (seq.unanswered or seq.unanswered_old):
            return
        e_d_tov = self.params.e_d_tov
        idle = self.sim.now - seq.last_activity
        if idle < e_d_tov * (1 - 1e-9):
            seq.watchdog = True
            self.sim.call_later(e_d_tov - idle, self._watchdog, seq)
            return
        self.peers[seq.d_id].ee_credit += seq.unanswered + seq.unanswered_old
        lost = seq.unanswered
        seq.unanswered = seq.unanswered_old = 0
        if lost and seq.status == "open":
            self.stats.sequences_aborted += 1
            self.withdraw(seq)
            self._complete(seq, "aborted")
        conn = self.connection
        if conn is not None and conn.request is seq:
            self._request_answered(conn, refused=True)
        self.port.kick()

    def discard(self, seq: Sequence) -> None:
        """Give up *seq* unsent, its upper layer told it was aborted (its link is
        down and its host drops rather than waits)."""
        self.withdraw(seq)
        self.stats.sequences_aborted += 1
        self._complete(seq, "aborted")

    def _retry(self, seq: Any) -> None:
        if seq.status == "open":
            self.enqueue(seq)
            self.port.kick()

    def enqueue(self, seq: Sequence) -> None:
        """Queue *seq*, open, to send (again, from its ``next_cnt``), unless a
        keeper holds it (:meth:`hold`)."""
        if self._keeper is not None and self._keeper.keeps(seq):
            return
        self._ready.append(seq)
        self._streams.setdefault(seq.exchange.stream, deque()).append(seq)
        if seq.cls != 3:
            self._ready_classed += 1

    def withdraw(self, seq: Sequence) -> None:
        """Take *seq* out of the queue to send, if it is there."""
        if seq in self._ready:
            self._ready.remove(seq)
            self._closed(seq)
            if seq.cls != 3:
                self._ready_classed -= 1

    def _behind(self, seq: Sequence) -> bool:
        """True if an earlier sequence of *seq*'s stream (its exchange, or the
        exchanges sharing its stream) is still open, so that *seq* may not send
        its first frame."""
        return self._streams[seq.exchange.stream][0] is not seq

    def _closed(self, seq: Sequence) -> None:
        """*seq* has sent its last frame, or left the queue: the next sequence of
        its stream may open."""
        key = seq.exchange.stream
        stream = self._streams[key]
        if stream[0] is seq:
            stream.popleft()
        else:
            stream.remove(seq)
        if not stream:
            del self._streams[key]

    # -- receive: frames admitted, sequences reassembled and answered ------------

    def frame_received(self, frame: Frame) -> None:
        """Handle a good frame from the link (called by :class:`Port`).

        With an *rx_stage* (a host adapter's DMA, say) the frame is handed to it
        first and, when it calls back, to the :attr:`drain` (if any) and then
        handled; its buffer stays taken until then.
        """
        if self.rx_stage is not None:
            self.rx_stage(frame, lambda: self._take(frame))
        else:
            self._take(frame)

    def _handle(self, frame: Frame) -> None:
        if frame.uses_bb_credit:
            self.port.release_buffer()
        if frame.is_link_control:
            self._answer_received(frame)
        else:
            self._data_received(frame)

    def frame_dropped(self, frame: Frame) -> None:
        """Discard and count a frame that failed its CRC (called by :class:`Port`)."""
        if frame.uses_bb_credit:
            self.port.release_buffer()
        stats = self.stats
        stats.dropped_frames += 1
        seq = frame.sequence
        if seq is None:
            return
        stats.dropped_payload += frame.payload_len

    def _data_received(self, frame: Frame) -> None:
        conn = self.connection
        if conn is not None and frame.cls == 1 and conn.peer_id == frame.s_id:
            conn.last_activity = self.sim.now
        refusal = self._refusal(frame)
        stats = self.stats
        if refusal is not None:
            kind, reason = refusal
            if frame.cls == 3:
                stats.discarded_frames += 1
                stats.discarded_payload += frame.payload_len
            else:
                stats.refused_payload += frame.payload_len
                self._answer(frame, kind, reason)
            return
        seq: Sequence = frame.sequence  # type: ignore[assignment]
        now = self.sim.now
        inbound = self._inbound.get(seq)
        gap = False
        if inbound is None or inbound.attempt != frame.attempt:
            if inbound is not None:
                self._unmeter(inbound, seq)
            elif frame.cls == 3:
                self._end_earlier_sequence(seq)
            inbound = self._inbound[seq] = Inbound(frame.attempt, now)
            if not self._inbound_check:
                self._inbound_check = True
                self.sim.call_later(self.params.e_d_tov, self._inbound_timeout)
        elif self._recovery is not None and frame.cls != 3:
            gap = frame.seq_cnt > inbound.frames  # a frame before this one was lost
        inbound.last = now
        inbound.frames += 1
        inbound.payload += frame.payload_len
        stats.data_frames_rx += 1
        stats.payload_rx += frame.payload_len
        meter = seq.meter
        if meter is not None and not seq.exchange.abandoned:
            meter.frames += 1
            meter.payload += frame.payload_len
            seq.exchange.metered += frame.payload_len
        if gap:
            self._answer(frame, h.R_CTL_ACK_1, 1, h.F_CTL_ABORT_SEQUENCE)
            self._recovery.gap(frame)  # type: ignore[union-attr]
        elif frame.cls != 3:
            self._answer(frame, h.R_CTL_ACK_1, 1)
        if frame.f_ctl & h.F_CTL_END_SEQUENCE:
            del self._inbound[seq]
            if frame.cls == 3 and self._inbound_of_exchange.get(seq.exchange) is seq:
                del self._inbound_of_exchange[seq.exchange]
            if frame.f_ctl & h.F_CTL_LAST_SEQUENCE:
                self._rx_ids.pop((frame.s_id, frame.ox_id), None)
            if inbound.frames == seq.n_frames:
                stats.sequences_rx += 1
                if seq.on_delivered is not None:
                    seq.on_delivered(seq, self.sim.now)
                recovery = self._recovery
                if recovery is None or not recovery.received(seq, now):
                    for handler in self._handlers.get(seq.type, ()):
                        if handler(seq, now):
                            break
            else:
                stats.sequences_incomplete += 1
                self._unmeter(inbound, seq)

    def _end_earlier_sequence(self, seq: Sequence) -> None:
        """The first frame of Class 3 sequence *seq* arrived: an earlier sequence
        of its exchange still being received here will never be completed (its
        missing frames would have come before this one, frames of an exchange
        being delivered in order), so it ends now, incomplete, instead of holding
        one of the port's concurrent sequences for E_D_TOV. This is how the
        responder's FCP_RSP ends a read's FCP_DATA that lost its last frame, and
        an ABTS the write data of the exchange it aborts. Linux libfc does the
        same: it holds one receive sequence per exchange (``struct fc_exch``'s
        ``seq``) and starts the next in its place (``fc_exch.c``)."""
        open_of = self._inbound_of_exchange
        earlier = open_of.get(seq.exchange)
        open_of[seq.exchange] = seq
        if earlier is None:
            return
        self.abandon(earlier)

    def _inbound_timeout(self, _event: object) -> None:
        """Abandon each sequence being received that has had no frame for E_D_TOV.

        One check is pending while any sequence is being received, due at the
        earliest deadline (last frame + E_D_TOV) or before: deadlines only move
        later, so the check finds each sequence at its deadline or re-arms for
        it, and a sequence that completes costs no event.
        """
        e_d_tov = self.params.e_d_tov
        now = self.sim.now
        inbound_of = self._inbound
        earliest = None
        for seq, inbound in list(inbound_of.items()):
            deadline = inbound.last + e_d_tov
            if now - inbound.last >= e_d_tov * (1 - 1e-9):
                del inbound_of[seq]
                if self._inbound_of_exchange.get(seq.exchange) is seq:
                    del self._inbound_of_exchange[seq.exchange]
                self.stats.sequences_incomplete += 1
                self._unmeter(inbound, seq)
            elif earliest is None or deadline < earliest:
                earliest = deadline
        self._inbound_check = earliest is not None
        if earliest is not None:
            self.sim.call_later(earliest - now, self._inbound_timeout)

    def _refusal(self, frame: Frame) -> tuple[int, int] | None:
        """Why *frame* cannot be accepted, as (R_CTL of the answer, reason), or None.

        A connect request (SOFc1) that is accepted sets up the connection.
        """
        if frame.cls not in self.params.classes:
            return h.R_CTL_P_RJT, h.P_RJT_CLASS_NOT_SUPPORTED
        if frame.data_len > self.params.rx_data_field:
            return h.R_CTL_P_RJT, h.P_RJT_INCORRECT_LENGTH
        busy = h.R_CTL_P_BSY, h.P_BSY_PORT_BUSY
        conn = self.connection
        connect = frame.sof is osets.SOFc1
        if connect:
            # Our own connect is pending: a request from a third port wins (a fabric
            # delivered it, so it holds the path to us and will busy ours); between
            # the two ports themselves the lower N_Port ID wins.
            crossing = conn is not None and conn.state == PENDING and (
                conn.peer_id != frame.s_id or frame.s_id < self.port_id)
            if conn is not None and not crossing:
                return busy
        elif conn is not None and conn.peer_id != frame.s_id:
            return busy
        elif frame.cls == 1 and conn is None:
            return h.R_CTL_P_RJT, h.P_RJT_DELIMITER_USAGE  # SOFi1/SOFn1 with no connection
        inbound = self._inbound.get(frame.sequence)  # type: ignore[arg-type]
        if frame.seq_cnt == 0:
            if inbound is None and len(self._inbound) >= self.params.concurrent_sequences:
                return h.R_CTL_P_BSY, h.P_BSY_NO_RESOURCES
        elif inbound is None or inbound.attempt != frame.attempt:
            return h.R_CTL_P_BSY, h.P_BSY_NO_RESOURCES
        if connect:
            self.connection = Connection(frame.s_id, ESTABLISHED)
            self.stats.connections += 1
            self._watch_connection(self.connection)
        return None

    def _answer(self, frame: Frame, r_ctl: int, parameter: int, abort: int = 0) -> None:
        """Queue the link-control frame *r_ctl* answering *frame*, from its D_ID (an
        alias too); an ACK_1 carries the Abort Sequence Condition bits *abort*."""
        stats = self.stats
        eof = osets.EOFn
        cls = frame.cls
        f_ctl = h.F_CTL_EXCHANGE_CONTEXT | h.F_CTL_SEQUENCE_CONTEXT | (
            frame.f_ctl & h.F_CTL_END_SEQUENCE)
        if r_ctl == h.R_CTL_ACK_1:
            stats.acks_tx += 1
            f_ctl |= abort
            if frame.f_ctl & h.F_CTL_END_SEQUENCE:
                eof = osets.EOFt
            if frame.f_ctl & h.F_CTL_END_CONNECTION and not self._class1_pending(frame.s_id):
                eof = osets.EOFdt
                self.connection = None
                self.port.kick()
        else:
            if r_ctl == h.R_CTL_P_BSY:
                stats.busy_tx += 1
            else:
                stats.reject_tx += 1
            conn = self.connection
            if cls == 1 and (conn is None or conn.peer_id != frame.s_id or conn.state == PENDING):
                cls = 2  # the answer to a refused connect travels outside any connection
        self._control.append(Frame(
            SOF_NEXT[cls], eof, r_ctl, frame.s_id, frame.d_id, h.TYPE_BLS, f_ctl,
            frame.seq_id, frame.seq_cnt, frame.ox_id, self._rx_id(frame), 0, cls,
            parameter=parameter, answers=frame,
        ))
        self.port.kick()

    def _rx_id(self, frame: Frame) -> int:
        """The RX_ID this port, as responder, gave the exchange of *frame*."""
        key = (frame.s_id, frame.ox_id)
        rx_id = self._rx_ids.get(key)
        if rx_id is None:
            rx_id = self._rx_ids[key] = self._next_rx_id
            self._next_rx_id = (rx_id + 1) % h.UNASSIGNED_ID
        return rx_id

    def _answer_received(self, frame: Frame) -> None:
        """An ACK, busy or reject came back for one of our data frames."""
        data: Frame = frame.answers  # type: ignore[assignment]
        seq: Sequence = data.sequence  # type: ignore[assignment]
        self.peers[frame.s_id].ee_credit += 1
        if data.attempt == seq.attempt:
            seq.unanswered -= 1
        else:
            seq.unanswered_old -= 1
        seq.last_activity = self.sim.now
        stats = self.stats
        r_ctl = frame.r_ctl
        ack = r_ctl == h.R_CTL_ACK_1
        conn = self.connection
        if conn is not None and conn.peer_id == frame.s_id:
            if ack and frame.eof is osets.EOFdt and (conn.state != PENDING
                                                      or data.sof is osets.SOFc1):
                if conn.state == PENDING:  # a one-frame connection, made and removed
                    stats.connections += 1
                self.connection = None  # (an EOFdt for an earlier connection is stale)
            elif r_ctl == h.R_CTL_P_RJT and frame.parameter == h.P_RJT_DELIMITER_USAGE:
                self.connection = None  # the peer knows no connection with us
            elif conn.request is seq and (data.sof is osets.SOFc1
                                          or data.f_ctl & h.F_CTL_END_CONNECTION):
                self._request_answered(conn, refused=not ack)
        current = data.attempt == seq.attempt and seq.status == "open"
        if ack:
            stats.acks_rx += 1
            seq.exchange.rx_id = frame.rx_id
            if current:
                seq.acked += 1
                if seq.acked == seq.n_frames:
                    self._complete(seq, "acked")
        elif r_ctl in (h.R_CTL_P_BSY, h.R_CTL_F_BSY):
            stats.busy_rx += 1
            if current:
                self.withdraw(seq)
                seq.unanswered_old += seq.unanswered
                seq.unanswered = 0
                seq.attempt += 1
                seq.acked = 0
                seq.next_cnt = 0
                backoff = 1 << min(seq.attempt - 1, 8)  # doubles per busy, up to 256x
                delay = self.params.busy_retry * backoff * (0.5 + self._rng.random())
                self.sim.call_later(delay, self._retry, seq)
        else:
            stats.reject_rx += 1
            if current:
                self.withdraw(seq)
                self._complete(seq, "rejected")
        self.port.kick()
        if self._recovery is not None and ack and frame.f_ctl & h.F_CTL_ABORT_SEQUENCE:
            self._recovery.answered(frame)  # the recipient asks for ABTS

    # -- Class 1 connections ------------------------------------------------------

    def _class1_pending(self, d_id: int, other_than: Sequence | None = None) -> bool:
        """True if a Class 1 sequence for *d_id* besides *other_than* waits to be sent."""
        return any(s.cls == 1 and s.d_id == d_id and s is not other_than for s in self._ready)

    def _request_answered(self, conn: Connection, refused: bool) -> None:
        """The pending connect or removal request of *conn* got its answer."""
        conn.request = None
        if conn.state == PENDING:
            if refused:
                self.connection = None
            else:
                conn.state = ESTABLISHED
                self.stats.connections += 1
                self._watch_connection(conn)
        elif conn.state == CLOSING:
            conn.state = ESTABLISHED  # the peer kept the connection

    def _watch_connection(self, conn: Connection) -> None:
        """Check *conn* for idleness E_D_TOV after its last activity."""
        conn.last_activity = self.sim.now
        self.sim.call_later(self.params.e_d_tov, self._connection_idle, conn)

    def _connection_idle(self, conn: Connection) -> None:
        """Remove a connection idle for E_D_TOV with no request pending.

        Normal removal is by EOFdt; this recovers from a removal request or its
        answer lost to a transmission error (FC-PH would use Link Reset), and
        both ends apply it alike.
        """
        if self.connection is not conn:
            return
        e_d_tov = self.params.e_d_tov
        idle = self.sim.now - conn.last_activity
        if conn.request is None and idle >= e_d_tov * (1 - 1e-9):
            self.connection = None
            self.port.kick()
        else:
            self.sim.call_later(e_d_tov - idle if idle < e_d_tov else e_d_tov,
                                self._connection_idle, conn)

    def __repr__(self) -> str:
        return f"<NPort {self.name} {self.port_id:06X}>"
