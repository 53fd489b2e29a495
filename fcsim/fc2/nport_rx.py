"""The receive side of an N_Port: frames admitted or refused, sequences
reassembled, Class 1 and 2 frames answered (ACK_1, P_BSY, P_RJT), and the
answers to its own frames taken in.

A frame is refused (P_BSY, P_RJT; Class 3: discarded) when its class is not
one the port accepts, when it is of another class or from a third port while
a Class 1 connection is up, or when more sequences would be open than the
port's concurrent sequences. A sequence being received that gets no frame for
E_D_TOV is abandoned and counted incomplete.
"""

from __future__ import annotations

from fcsim.fc1 import ordered_sets as osets
from fcsim.fc2 import header as h
from fcsim.fc2.connection import ESTABLISHED, PENDING, Connection
from fcsim.fc2.frame import SOF_NEXT, Frame
from fcsim.fc2.sequence import Sequence


class Inbound:
    """Reassembly state of one sequence being received (*last*: last frame time,
    s). *frames* counts the frames received, *earlier* those of them counted in
    an earlier measurement interval, *payload* the payload of the others
    (bytes): what abandoning the sequence takes back from its meter."""

    __slots__ = ("attempt", "frames", "earlier", "payload", "last")

    def __init__(self, attempt: int, now: float) -> None:
        self.attempt = attempt
        self.frames = 0
        self.earlier = 0
        self.payload = 0
        self.last = now

    def new_interval(self) -> None:
        """A new measurement interval starts: what was counted so far stays in
        the interval before."""
        self.earlier = self.frames
        self.payload = 0


def _unmeter(seq: Sequence, inbound: Inbound) -> None:
    """Take back from *seq*'s meter the frames of an attempt that was abandoned
    that its meter counted in this measurement interval."""
    meter = seq.meter
    if meter is not None:
        meter.frames -= inbound.frames - inbound.earlier
        meter.payload -= inbound.payload
        meter.taken_back += inbound.payload


class Receiving:
    """The receive side of :class:`~fcsim.fc2.nport.NPort`, whose state it works
    on (its port, peers, open sequences, statistics)."""

    def frame_received(self, frame: Frame) -> None:
        """Handle a good frame from the link (called by :class:`Port`).

        With an *rx_stage* (a host adapter's DMA, say) the frame is handed to it
        first and handled when it calls back; its buffer stays taken until then.
        """
        if self.rx_stage is not None:
            self.rx_stage(frame, lambda: self._handle(frame))
        elif self.params.rx_frame_time:
            now = self.sim.now
            done = max(now, self._rx_free_at) + self.params.rx_frame_time
            self._rx_free_at = done
            self.sim.call_later(done - now, self._handle, frame)
        else:
            self._handle(frame)

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
                _unmeter(seq, inbound)
            elif frame.cls == 3:
                self._end_earlier_sequence(seq)
            inbound = self._inbound[seq] = Inbound(frame.attempt, now)
            if not self._inbound_check:
                self._inbound_check = True
                self.sim.call_later(self.params.e_d_tov, self._inbound_timeout)
        elif self.gap_hook is not None and frame.cls != 3:
            gap = frame.seq_cnt > inbound.frames  # a frame before this one was lost
        inbound.last = now
        inbound.frames += 1
        inbound.payload += frame.payload_len
        stats.data_frames_rx += 1
        stats.payload_rx += frame.payload_len
        meter = seq.meter
        if meter is not None:
            meter.frames += 1
            meter.payload += frame.payload_len
        if gap:
            self._answer(frame, h.R_CTL_ACK_1, 1, h.F_CTL_ABORT_SEQUENCE)
            self.gap_hook(frame)  # type: ignore[misc]
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
                if self.receive_hook is not None:
                    self.receive_hook(seq, self.sim.now)
            else:
                stats.sequences_incomplete += 1
                _unmeter(seq, inbound)

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
        inbound = self._inbound.pop(earlier, None)
        if inbound is not None:
            self.stats.sequences_incomplete += 1
            _unmeter(earlier, inbound)

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
                _unmeter(seq, inbound)
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
                self._ready_remove(seq)
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
                self._ready_remove(seq)
                self._complete(seq, "rejected")
        self.port.kick()
