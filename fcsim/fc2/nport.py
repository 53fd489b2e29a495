"""The N_Port: sequences out, sequences in, and the rules of each class.

An :class:`NPort` sits on one link :class:`~fcsim.fc2.port.Port`. Outbound it
turns queued sequences into frames, interleaving the open sequences of
different exchanges frame by frame and putting link-control frames (ACK, busy,
reject) first. Within one exchange only one sequence is open at a time: the
next one (a streamed sequence) starts once the last frame of the one before
has been sent (FC-PH sequence management: a sequence initiator completes the
data frames of a sequence before it sends another in the same exchange; ports
multiplex by sending sequences of different exchanges concurrently). IP over
FC sends all its packets to a destination in one exchange (RFC 2625), so they
leave in the order IP gave them. Inbound
(:mod:`fcsim.fc2.nport_rx`) it admits or refuses frames, reassembles
sequences and answers Class 1 and 2 frames.

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

Not modelled: ACK_0/ACK_N, Link Reset, intermix, camp-on and stacked connects, sequence
retransmission on error (a Class 1/2 sequence with a lost frame is aborted;
recovery belongs to the upper layer). A sequence being received that gets no
frame for E_D_TOV is abandoned and counted incomplete.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

from fcsim.engine.simulation import Simulation
from fcsim.fc1 import ordered_sets as osets
from fcsim.fc2 import header as h
from fcsim.fc2.connection import CLOSING, ESTABLISHED, PENDING, Connection, Connections
from fcsim.fc2.frame import SOF_FIRST, SOF_NEXT, Frame
from fcsim.fc2.login import PeerLogin, ServiceParameters
from fcsim.fc2.nport_rx import Inbound, Receiving
from fcsim.fc2.port import Port, uses_bb_credit
from fcsim.fc2.sequence import Exchange, Sequence

_BLOCKED, _FREE, _NEEDS_CREDIT = 0, 1, 2

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


class NPort(Receiving, Connections):
    """A node port with N_Port ID *port_id* offering service parameters *params*.

    *port* is the link-level port it sends through (default: a point-to-point
    :class:`~fcsim.fc2.port.Port` with ``params.bb_credit`` receive buffers).
    *receive_hook(seq, time)*, if set, is called for every sequence received
    whole (the upper layers' and link services' entry). *rx_stage(frame,
    done)*, if set, takes each frame received before it is handled (a host
    adapter's DMA to memory); *tx_stage(seq)*, if set, is told of each
    sequence sent from host memory and raises its ``fetched`` count as the
    card fetches its frames (the adapter's DMA from memory). *ready_at* is when
    login completed, s (None while a timed login is under way); workloads
    wait for it through :meth:`when_ready`.
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
        self.receive_hook: Callable[[Sequence, float], None] | None = None
        self.rx_stage: Callable[[Frame, Callable[[], None]], None] | None = None
        self.tx_stage: Callable[[Sequence], None] | None = None
        self.ready_at: float | None = 0.0
        self._ready_waiters: list[Callable[[], None]] = []
        self.stats = NPortStats()
        self._control: deque[Frame] = deque()
        self._ready: deque[Sequence] = deque()
        # per exchange, its sequences queued here in order; only the first may open
        self._streams: dict[Exchange, deque[Sequence]] = {}
        self._ready_classed = 0  # sequences in _ready of Class 1 or 2
        self._inbound: dict[Sequence, Inbound] = {}
        self._inbound_check = False
        self._rx_ids: dict[tuple[int, int], int] = {}
        self._next_rx_id = 0
        self._next_ox_id = 0
        self._next_seq_id = 0
        self._rx_free_at = 0.0
        self._rng = sim.rng(f"nport/{name}")

    # -- login and upper-layer interface ---------------------------------------

    def login(self, peer: NPort) -> None:
        """PLOGI with *peer*: learn its receive limits, classes and EE credit."""
        p = peer.params
        self.peers[peer.port_id] = PeerLogin(peer.port_id, p.rx_data_field, p.ee_credit, p.classes)

    def when_ready(self, callback: Callable[[], None]) -> None:
        """Call *callback* once the port has logged in (at once if it has)."""
        if self.ready_at is not None:
            callback()
        else:
            self._ready_waiters.append(callback)

    def set_ready(self) -> None:
        """Mark login complete now and release what waited for it."""
        self.ready_at = self.sim.env._now
        waiters, self._ready_waiters = self._ready_waiters, []
        for callback in waiters:
            callback()

    def open_exchange(self, d_id: int) -> Exchange:
        """Start a new exchange with logged-in N_Port *d_id*; assigns an OX_ID."""
        if d_id not in self.peers:
            raise ValueError(f"{self.name}: not logged in with N_Port {d_id:06x}")
        ox_id = self._next_ox_id
        self._next_ox_id = (ox_id + 1) % h.UNASSIGNED_ID
        return Exchange(ox_id, self, d_id)

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
        d_id = exchange.responder_id if exchange.originator is self else exchange.originator.port_id
        peer = self.peers[d_id]
        data_field = peer.max_data_field if max_data_field is None else min(
            max_data_field, peer.max_data_field)
        seq = Sequence(exchange, d_id, self._next_seq_id, size, cls, data_field, self.sim.now,
                       r_ctl, type_, on_complete, on_delivered, meter)
        seq.last_of_exchange = last
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
        self._ready_add(seq)
        self.port.kick()
        return seq

    # -- transmit side: the Port pulls frames ----------------------------------

    def next_frame(self, credit: bool, d_id: int | None = None) -> Frame | None:
        """Next frame to transmit: link control first, then open sequences in turn.

        With *d_id*, only a frame for that N_Port (a loop port's open tenancy).
        """
        control = self._control
        if control and (credit or not uses_bb_credit(control[0])) and (
                d_id is None or control[0].d_id == d_id):
            return control.popleft()
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
                    if seq.cls == 3:
                        self._complete(seq, "sent")
                    else:
                        self._ready_classed -= 1
                else:
                    ready.rotate(-1)
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
        if self._control and uses_bb_credit(self._control[0]):
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
            self.connection.last_activity = self.sim.env._now
        else:
            sof = SOF_FIRST[cls] if cnt == 0 else SOF_NEXT[cls]
        if cls != 3:
            seq.unanswered += 1
            self.peers[seq.d_id].ee_credit -= 1
            seq.last_activity = self.sim.env._now
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

    def _complete(self, seq: Sequence, status: str) -> None:
        seq.status = status
        if seq.on_complete is not None:
            seq.on_complete(seq)

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
        idle = self.sim.env._now - seq.last_activity
        if idle < e_d_tov * (1 - 1e-9):
            seq.watchdog = True
            self.sim.call_later(e_d_tov - idle, self._watchdog, seq)
            return
        self.peers[seq.d_id].ee_credit += seq.unanswered + seq.unanswered_old
        lost = seq.unanswered
        seq.unanswered = seq.unanswered_old = 0
        if lost and seq.status == "open":
            self.stats.sequences_aborted += 1
            self._ready_remove(seq)
            self._complete(seq, "aborted")
        conn = self.connection
        if conn is not None and conn.request is seq:
            self._request_answered(conn, refused=True)
        self.port.kick()

    def _retry(self, seq: Any) -> None:
        if seq.status == "open":
            self._ready_add(seq)
            self.port.kick()

    def _ready_add(self, seq: Sequence) -> None:
        self._ready.append(seq)
        self._streams.setdefault(seq.exchange, deque()).append(seq)
        if seq.cls != 3:
            self._ready_classed += 1

    def _ready_remove(self, seq: Sequence) -> None:
        if seq in self._ready:
            self._ready.remove(seq)
            self._closed(seq)
            if seq.cls != 3:
                self._ready_classed -= 1

    def _behind(self, seq: Sequence) -> bool:
        """True if an earlier sequence of *seq*'s exchange is still open, so that
        *seq* may not send its first frame."""
        return self._streams[seq.exchange][0] is not seq

    def _closed(self, seq: Sequence) -> None:
        """*seq* has sent its last frame, or left the queue: the next sequence of
        its exchange may open."""
        stream = self._streams[seq.exchange]
        if stream[0] is seq:
            stream.popleft()
        else:
            stream.remove(seq)
        if not stream:
            del self._streams[seq.exchange]

    def __repr__(self) -> str:
        return f"<NPort {self.name} {self.port_id:06X}>"
