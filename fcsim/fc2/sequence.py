"""Sequences and exchanges (FC-FS): how a message becomes frames.

An :class:`Exchange` is a conversation between two N_Ports named by OX_ID
(chosen by the originator) and RX_ID (chosen by the responder when the first
frame arrives). A :class:`Sequence` is one message sent one way inside an
exchange: it is cut into frames of at most the login-negotiated data field,
numbered by SEQ_CNT, all carrying the sequence's SEQ_ID.

Frames are made when the transmitter asks for them, so a large message costs
memory only for the frames actually in flight.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from fcsim.fc2.header import F_CTL_END_SEQUENCE as END_SEQUENCE
from fcsim.fc2.header import UNASSIGNED_ID


class Originator(Protocol):
    """What an exchange knows of the N_Port that originated it
    (:class:`~fcsim.fc2.nport.NPort`)."""

    port_id: int


class Exchange:
    """Exchange *ox_id* from *originator* to the N_Port with ID *responder_id*.

    *originator_id* is the S_ID the originator's frames of the exchange
    carry (set as it sends each sequence; its S_ID, with the OX_ID,
    identifies the exchange in FC-FS-5): the responder answers that address,
    even while the originator logs in to the fabric again.

    *stream* is the queue its sequences join at the sender: the sequences of
    one stream are sent one at a time, in the order they were queued. By
    default an exchange is its own stream; several exchanges may share one
    (an IP interface's exchanges to one destination, as a card that sends its
    outbound sequences in queue order does).

    *metered* is the payload its sequences' recipients counted into the
    sequences' meters in this measurement interval, bytes, and *abandoned*
    whether its originator gave it up (:meth:`fcsim.fc2.nport.NPort.take_back`:
    a command sent again in a new exchange or failed): what it counted is
    taken back, and what arrives in it after is not counted.
    """

    __slots__ = ("ox_id", "rx_id", "originator", "originator_id", "responder_id",
                 "sequences_sent", "stream", "metered", "abandoned")

    def __init__(self, ox_id: int, originator: Originator, responder_id: int,
                 stream: object = None) -> None:
        self.ox_id = ox_id
        self.rx_id = UNASSIGNED_ID
        self.originator = originator
        self.originator_id = originator.port_id
        self.responder_id = responder_id
        self.sequences_sent = 0
        self.stream: object = self if stream is None else stream
        self.metered = 0
        self.abandoned = False

    def new_interval(self) -> None:
        """A new measurement interval starts: what it counted so far stays in
        the interval before."""
        self.metered = 0


class Sequence:
    """One message of *size* payload bytes in *exchange* to N_Port *d_id*, Class *cls*.

    *data_field* is the payload per full frame, bytes. *created* is the time
    the message was handed to FC-2, s. *r_ctl* and *type_* go into every frame
    header. *on_complete(seq)* is called at the
    sender when FC-2 is done with the sequence (Class 3: last frame sent;
    Class 1/2: every ACK back, or aborted); *on_delivered(seq, time)* when the
    whole sequence reaches the recipient. *meter*, if given, is any object
    with ``frames``, ``payload`` and ``taken_back`` counters: the recipient
    adds each frame of the sequence it accepts, and takes back the frames of
    an attempt it abandons (incomplete, timed out, or replaced by a retry),
    adding their payload to ``taken_back``, so the meter holds delivered
    payload frame by frame.

    *f_ctl* holds the F_CTL bits common to all its frames (set by the sender),
    *end_f_ctl* those its last frame adds (End_Sequence, and Sequence
    Initiative when it hands the initiative over); *df_ctl* the optional
    headers of its first frame. *ulp* is the upper-layer
    unit it carries (an IP packet, say): simulated payload has no bytes, so
    the object itself travels with the sequence.
    *status* is ``"open"``, ``"sent"`` (Class 3, all frames sent), ``"acked"``
    (Class 1/2, every frame acknowledged), ``"rejected"`` (P_RJT) or
    ``"aborted"`` (ACKs still missing E_D_TOV after the last frame).
    *acked* counts ACKs of the current *attempt* (a busied sequence is sent
    again from its first frame as a new attempt); *unanswered* and
    *unanswered_old* count frames of the current and of earlier attempts that
    have had no answer yet (they hold EE credit); *last_activity* is when a frame
    of it was last sent or answered, s, and *watchdog* whether an E_D_TOV check is pending.
    *fetched* counts the frames whose data are on the sending card: a
    sequence of data in host memory (:meth:`NPort.send` *from_host*) sends a
    frame only once the card has fetched it by DMA; others have every frame
    at once.
    """

    __slots__ = (
        "exchange", "d_id", "seq_id", "size", "cls", "data_field", "created", "n_frames",
        "r_ctl", "type", "next_cnt", "acked", "unanswered", "unanswered_old", "last_activity",
        "watchdog", "attempt", "status", "first_of_exchange", "f_ctl",
        "df_ctl", "end_f_ctl", "ulp", "on_complete", "on_delivered", "meter", "fetched",
    )

    def __init__(
        self,
        exchange: Exchange,
        d_id: int,
        seq_id: int,
        size: int,
        cls: int,
        data_field: int,
        created: float,
        r_ctl: int,
        type_: int,
        on_complete: Callable[[Sequence], None] | None = None,
        on_delivered: Callable[[Sequence, float], None] | None = None,
        meter: Any = None,
    ) -> None:
        self.exchange = exchange
        self.d_id = d_id
        self.seq_id = seq_id
        self.size = size
        self.cls = cls
        self.data_field = data_field
        self.created = created
        self.n_frames = max(1, -(-size // data_field))
        self.fetched = self.n_frames
        self.r_ctl = r_ctl
        self.type = type_
        self.next_cnt = 0
        self.acked = 0
        self.unanswered = 0
        self.unanswered_old = 0
        self.last_activity = 0.0
        self.watchdog = False
        self.attempt = 0
        self.status = "open"
        self.first_of_exchange = exchange.sequences_sent == 0
        exchange.sequences_sent += 1
        self.f_ctl = 0
        self.end_f_ctl = END_SEQUENCE
        self.df_ctl = 0
        self.ulp: object = None
        self.on_complete = on_complete
        self.on_delivered = on_delivered
        self.meter = meter

    def __repr__(self) -> str:
        return (f"<Sequence OX_ID={self.exchange.ox_id:#06x} SEQ_ID={self.seq_id} "
                f"{self.size} B class {self.cls} {self.status}>")
