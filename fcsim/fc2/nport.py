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
time in the order IP gave them (:mod:`fcsim.fc4.ip`). Inbound
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

Outbound, frame by frame (:mod:`fcsim.fc2.nport_tx`): which queued sequence
or link-control frame goes next, whether it needs credit, and the frame
itself.

Not modelled: ACK_0/ACK_N, intermix, camp-on and stacked connects. Without
faults a Class 1/2 sequence with a lost frame is aborted (recovery belongs to
the upper layer); a scenario with faults adds Link Reset and the exchange
error policy's sequence recovery (:mod:`fcsim.fc2.link_recovery`,
:mod:`fcsim.fc2.sequence_recovery`). A sequence being received that gets no
frame for E_D_TOV is abandoned and counted incomplete.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

from fcsim.engine.simulation import Simulation
from fcsim.fc2 import header as h
from fcsim.fc2.connection import Connection, Connections
from fcsim.fc2.exchange_ids import ExchangeIds
from fcsim.fc2.frame import Frame
from fcsim.fc2.login import R_A_TOV, PeerLogin, ServiceParameters
from fcsim.fc2.nport_rx import Inbound, Receiving
from fcsim.fc2.nport_tx import Transmitting
from fcsim.fc2.port import Port
from fcsim.fc2.sequence import Exchange, Sequence


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


class NPort(Transmitting, Receiving, Connections):
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
        # per stream (an exchange, or exchanges sharing one), its sequences queued
        # here in order; only the first may open
        self._streams: dict[object, deque[Sequence]] = {}
        self._ready_classed = 0  # sequences in _ready of Class 1 or 2
        self._inbound: dict[Sequence, Inbound] = {}
        self._inbound_check = False
        # per exchange, its Class 3 sequence being received here: a later sequence of
        # the exchange ends it (see Receiving._data_received)
        self._inbound_of_exchange: dict[Exchange, Sequence] = {}
        self._rx_ids: dict[tuple[int, int], int] = {}
        self._next_rx_id = 0
        self.exchange_ids = ExchangeIds()
        """The OX_IDs of the exchanges this port originates (held while open)."""
        self._next_seq_id = 0
        self._rx_free_at = 0.0
        self.gap_hook: Callable[[Frame], None] | None = None
        """Set by a Class 1/2 sequence recovery (:mod:`fcsim.fc2.sequence_recovery`):
        a data frame that arrives past a gap in its sequence's count is answered
        with an ACK asking for ABTS (Abort Sequence Condition 01) and handed to
        it. None: no gap is looked for (no recovery)."""
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
        d_id = exchange.responder_id if exchange.originator is self else exchange.originator.port_id
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
        self._ready_add(seq)
        self.port.kick()
        return seq

    def __repr__(self) -> str:
        return f"<NPort {self.name} {self.port_id:06X}>"
