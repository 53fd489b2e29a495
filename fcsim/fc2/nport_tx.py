"""The transmit side of an N_Port: which frame goes next and how it is built.

The link-level port pulls frames (:meth:`Transmitting.next_frame`):
link-control frames (ACK, busy, reject) first, then the open sequences in
turn, frame by frame. A sequence may open only when every earlier sequence of
its exchange has sent its last frame (FC-PH sequence management), may send a
frame only once the host adapter has fetched it, and, by class, needs a BB
credit (Class 3, and Class 1's connect frame), an EE credit too (Class 2),
or an established connection (Class 1 after its connect). Class 1 and 2
sequences whose answers stay missing for E_D_TOV are aborted.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from fcsim.fc1 import ordered_sets as osets
from fcsim.fc2 import header as h
from fcsim.fc2.connection import CLOSING, ESTABLISHED, PENDING, Connection
from fcsim.fc2.frame import SOF_FIRST, SOF_NEXT, Frame
from fcsim.fc2.sequence import Sequence

_BLOCKED, _FREE, _NEEDS_CREDIT = 0, 1, 2
"""What may hold a sequence's next frame back: something other than credit,
nothing, or only a BB credit."""


class Transmitting:
    """The transmit side of :class:`~fcsim.fc2.nport.NPort`, whose state it works
    on (its port, peers, queued sequences and link-control frames, connection,
    statistics)."""

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
                    if seq.cls == 3:
                        self._complete(seq, "sent")
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
            self._ready_remove(seq)
            self._complete(seq, "aborted")
        conn = self.connection
        if conn is not None and conn.request is seq:
            self._request_answered(conn, refused=True)
        self.port.kick()

    def discard(self, seq: Sequence) -> None:
        """Give up *seq* unsent, its upper layer told it was aborted (its link is
        down and its host drops rather than waits)."""
        self._ready_remove(seq)
        self.stats.sequences_aborted += 1
        self._complete(seq, "aborted")

    def _retry(self, seq: Any) -> None:
        if seq.status == "open":
            self._ready_add(seq)
            self.port.kick()

    def _ready_add(self, seq: Sequence) -> None:
        self._ready.append(seq)
        self._streams.setdefault(seq.exchange.stream, deque()).append(seq)
        if seq.cls != 3:
            self._ready_classed += 1

    def _ready_remove(self, seq: Sequence) -> None:
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
