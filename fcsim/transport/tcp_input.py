"""The input side of TCP: one arriving segment, as 4.4BSD ``tcp_input()`` does it.

In order (tcp_input.c 8.12): the handshake states (LISTEN, SYN_SENT); trimming
to the receive window (RFC 793 page 69; a segment wholly outside is answered
with an ACK and dropped, a zero-window probe is acknowledged); ACK processing
(duplicate ACKs and fast retransmit with Reno recovery, RFC 2581 section 3.2;
RTT sample with Karn's rule; slow start cwnd += MSS below ssthresh,
congestion avoidance cwnd += MSS*MSS/cwnd above it, RFC 2581 section 3.1);
the send-window update rule on SND.WL1/SND.WL2 (RFC 793 page 72); data
(in-order data into the receive buffer with a delayed ACK, out-of-order data
into the reassembly queue with an immediate ACK, the TCP_REASS macro); FIN.

With the RFC 1323 timestamps option agreed (both SYNs carried it), a segment
that holds the last acknowledgement sent (``seq <= last_ack_sent < seq + len``)
gives the timestamp to echo (ts_recent), and every ACK of new data is an RTT
sample, now less the timestamp it echoes, retransmission or not (RFC 1323
section 4; tcp_input ``tcp_xmit_timer(tp, tcp_now - ts_ecr + 1)``, here in
continuous time as the other RTT samples). PAWS (RFC 1323 section 4.2) is not
modelled: links deliver in order and sequence numbers never wrap, so no
segment could fail its test.

The receive window used to accept data is the free buffer space (``sbspace()``,
with its mbuf accounting), not only the window last advertised (BSD
``rcv_wnd = max(sbspace, rcv_adv - rcv_nxt)``). In-order data join the receive
buffer as the mbufs the driver put them in (:mod:`~fcsim.transport.sockbuf`).
Header prediction is not modelled: every segment takes the full path, so
tcp_output also runs after each new data segment (whose sequence number
advances SND.WL1), which changes no decision of the output rules.
"""

from __future__ import annotations

from fcsim.transport.segment import (
    ACK,
    FIN,
    MAX_WINDOW_FIELD,
    SYN,
    TIMESTAMP_OPTION_BYTES,
    Segment,
)
from fcsim.transport.tcb import HAVE_RECEIVED_FIN, State
from fcsim.transport.tcp_config import MAX_WINDOW_SHIFT
from fcsim.transport.tcp_reass import TcpReassembly


class TcpInput(TcpReassembly):
    """tcp_input() of one endpoint."""

    def _input(self, seg: Segment) -> None:
        """Process one arriving segment."""
        self._last_input = self.sim.now
        if self.state is State.LISTEN:
            if seg.flags & SYN and not seg.flags & ACK:
                self._accept_syn(seg)
        elif self.state is State.SYN_SENT:
            if seg.flags & SYN and seg.flags & ACK and seg.ack == self.iss + 1:
                self._syn_acked(seg)
        elif self.state is not State.CLOSED:
            self._input_synchronized(seg)

    # -- handshake --------------------------------------------------------------

    def _negotiate(self, seg: Segment) -> None:
        """Take the peer's SYN options: tcp_mss() and the window-scale offer."""
        negotiated = self.config.negotiate(seg.mss if seg.mss is not None else self.mss)
        self.mss = negotiated.mss
        self.so_snd.reserve(negotiated.sndbuf)
        self.so_rcv.reserve(negotiated.rcvbuf)
        self.cwnd = self.mss * self.config.initial_cwnd_segments
        self.peer_wscale = seg.wscale
        if seg.tsval is not None:  # TF_RCVD_TSTMP: ours is sent only if asked for
            self.ts_recent = seg.tsval
            self.optlen = TIMESTAMP_OPTION_BYTES if self.config.timestamps else 0
        if self.linux is not None:
            self.linux.established(self.mss - self.optlen)
        self.irs = seg.seq
        self.rcv_nxt = self.rcv_adv = seg.seq + 1
        self.snd_wnd = self.max_sndwnd = seg.window
        self.snd_wl1 = seg.seq

    def _accept_syn(self, seg: Segment) -> None:
        """LISTEN + SYN: answer with SYN-ACK and enter SYN_RECEIVED."""
        self.peer = seg.src
        self._negotiate(seg)
        self.state = State.SYN_RECEIVED
        self.snd_una = self.iss
        self._rtt_seq = self.iss
        self._rtt_start = self.sim.now
        self._send_syn()

    def _syn_acked(self, seg: Segment) -> None:
        """SYN_SENT + SYN-ACK for our SYN: ESTABLISHED, ACK at once."""
        self._rexmt_timer.stop()
        self.snd_una = seg.ack
        self._negotiate(seg)
        self.snd_wl2 = seg.ack
        if self._rtt_seq is not None:
            self.rtt.sample(self.sim.now - self._rtt_start)
            self._rtt_seq = None
        self._establish()
        self._acknow = True
        self._output()

    def _establish(self) -> None:
        """Enter ESTABLISHED; window scaling applies if both SYNs asked for it."""
        self.state = State.ESTABLISHED
        self.established_at = self.sim.now
        if self.config.window_scaling and self.peer_wscale is not None:
            self.snd_scale = min(self.peer_wscale, MAX_WINDOW_SHIFT)
            self.rcv_scale = self.config.window_shift
        if self._connected is not None:
            connected = self._connected
            self.sim.call_later(0.0, lambda _event: connected())

    # -- synchronized states ----------------------------------------------------

    def _input_synchronized(self, seg: Segment) -> None:
        trimmed = self._trim(seg)
        if trimmed is None:
            self._drop_after_ack()
            return
        seq, length, fin = trimmed
        if (seg.tsval is not None and seq <= self.last_ack_sent
                < seq + length + (1 if fin or seq == seg.seq and seg.flags & SYN else 0)):
            self.ts_recent = seg.tsval  # the segment holding last_ack_sent: echo its time
        if not seg.flags & ACK:
            return
        if self.state is State.SYN_RECEIVED:
            if not self.snd_una < seg.ack <= self.snd_max:
                return
            self._establish()
            self.snd_wl1 = seq - 1
        needoutput = self._process_ack(seg, seq, length)
        if needoutput is None:
            return
        if (length or fin) and self.state not in HAVE_RECEIVED_FIN:
            first = seg.seq + (1 if seg.flags & SYN else 0)
            self._process_data(seq, length, fin, seg.length, seq - first)
        if needoutput or self._acknow:
            self._output()

    def _drop_after_ack(self) -> None:
        """Answer an unacceptable segment with an ACK (a SYN-ACK in SYN_RECEIVED)."""
        if self.state is State.SYN_RECEIVED:
            self._rtt_seq = None
            self.counters.retransmitted_segments += 1
            self._send_syn()
            return
        self._acknow = True
        self._output()

    def _trim(self, seg: Segment) -> tuple[int, int, bool] | None:
        """Trim *seg* to the receive window: (seq, length, fin), or None to drop and ACK."""
        seq, length, fin = seg.seq, seg.length, bool(seg.flags & FIN)
        rcv_wnd = max(self.so_rcv.space, self.rcv_adv - self.rcv_nxt, 0)
        todrop = self.rcv_nxt - seq
        if todrop > 0:
            if seg.flags & SYN:
                seq += 1
                todrop -= 1
            if todrop >= length:
                if fin and todrop == length + 1:
                    todrop = length
                    fin = False
                elif todrop != 0 or not seg.flags & ACK:
                    return None
                self._acknow = True
            seq += todrop
            length -= todrop
        todrop = seq + length - (self.rcv_nxt + rcv_wnd)
        if todrop > 0:
            if todrop >= length:
                if not (rcv_wnd == 0 and seq == self.rcv_nxt):
                    return None
                self._acknow = True
            length = max(length - todrop, 0)
            fin = False
        return seq, length, fin

    def _process_ack(self, seg: Segment, seq: int, length: int) -> bool | None:
        """ACK processing; True if output is wanted, None if the segment was consumed."""
        cfg = self.config
        ack = seg.ack
        if ack <= self.snd_una:
            if length == 0 and seg.window == self.snd_wnd:
                if not self._rexmt_timer.running or ack != self.snd_una:
                    self._dupacks = 0
                else:
                    self._dupacks += 1
                    if self._dupacks == cfg.dupack_threshold:
                        self._fast_retransmit(ack)
                        return None
                    if self._dupacks > cfg.dupack_threshold and cfg.fast_recovery:
                        self.cwnd += self.mss
                        self._output()
                        return None
            else:
                self._dupacks = 0
            return self._update_window(seg, seq)
        if (cfg.fast_recovery and self._dupacks > cfg.dupack_threshold
                and self.cwnd > self.ssthresh):
            self.cwnd = self.ssthresh
        self._dupacks = 0
        if ack > self.snd_max:
            self._drop_after_ack()
            return None
        acked = ack - self.snd_una - (1 if self.snd_una == self.iss else 0)
        if seg.tsecr is not None:  # RFC 1323 RTTM: every ACK of new data is timed
            self.rtt.sample(self.sim.now - seg.tsecr)
            self._rtt_seq = None
        elif self._rtt_seq is not None and ack > self._rtt_seq:
            self.rtt.sample(self.sim.now - self._rtt_start)
            self._rtt_seq = None
        needoutput = False
        if ack == self.snd_max:
            self._rexmt_timer.stop()
            needoutput = True
        elif not self._persist_timer.running:
            self._rexmt_timer.start(self.rtt.rto)
        incr = self.mss
        if self.cwnd > self.ssthresh:
            incr = self.mss * self.mss // self.cwnd
        self.cwnd = min(self.cwnd + incr, MAX_WINDOW_FIELD << self.snd_scale)
        taken = min(acked, self.so_snd.cc)
        fin_acked = acked > taken and self._sentfin
        self.so_snd.drop(taken)
        self.snd_wnd = max(self.snd_wnd - taken, 0)
        self.counters.bytes_acked += taken
        self.snd_una = ack
        self.snd_nxt = max(self.snd_nxt, self.snd_una)
        if fin_acked and not self._fin_acked():
            return None
        return self._update_window(seg, seq) or needoutput

    def _fin_acked(self) -> bool:
        """Our FIN is acknowledged: advance the closing states; False if now CLOSED."""
        if self.state is State.FIN_WAIT_1:
            self.state = State.FIN_WAIT_2
        elif self.state is State.CLOSING:
            self.state = State.TIME_WAIT
            self._stop_timers()
        elif self.state is State.LAST_ACK:
            self.state = State.CLOSED
            self._stop_timers()
            return False
        return True

    def _update_window(self, seg: Segment, seq: int) -> bool:
        """RFC 793 send-window update (SND.WL1/SND.WL2); True if the window was taken."""
        ack = seg.ack
        if (self.snd_wl1 < seq or (self.snd_wl1 == seq and (
                self.snd_wl2 < ack or (self.snd_wl2 == ack and seg.window > self.snd_wnd)))):
            self.snd_wnd = seg.window
            self.snd_wl1 = seq
            self.snd_wl2 = ack
            self.max_sndwnd = max(self.max_sndwnd, self.snd_wnd)
            return True
        return False

    def _fast_retransmit(self, ack: int) -> None:
        """Third duplicate ACK: resend the missing segment (RFC 2581 section 3.2)."""
        onxt = self.snd_nxt
        self.ssthresh = max(min(self.snd_wnd, self.cwnd) // 2 // self.mss, 2) * self.mss
        self._rexmt_timer.stop()
        self._rtt_seq = None
        self.snd_nxt = ack
        self.cwnd = self.mss
        self.counters.fast_retransmits += 1
        self._output()
        if self.config.fast_recovery:
            self.cwnd = self.ssthresh + self.mss * self._dupacks
        self.snd_nxt = max(self.snd_nxt, onxt)


__all__ = ["TcpInput"]
