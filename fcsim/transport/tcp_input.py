"""The input side of TCP: one arriving segment, as 4.4BSD ``tcp_input()`` does it
(:func:`tcp_input`, on the connection's control block).

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
from fcsim.transport.tcb import HAVE_RECEIVED_FIN, State, TcpControlBlock
from fcsim.transport.tcp_config import MAX_WINDOW_SHIFT
from fcsim.transport.tcp_output import send_syn, tcp_output
from fcsim.transport.tcp_reass import receive_data


def tcp_input(tp: TcpControlBlock, seg: Segment) -> None:
    """Process *seg*, arrived for the connection *tp*."""
    tp.counters.segments_received += 1
    tp.last_input = tp.sim.now
    if tp.state is State.LISTEN:
        if seg.flags & SYN and not seg.flags & ACK:
            _accept_syn(tp, seg)
    elif tp.state is State.SYN_SENT:
        if seg.flags & SYN and seg.flags & ACK and seg.ack == tp.iss + 1:
            _syn_acked(tp, seg)
    elif tp.state is not State.CLOSED:
        _input_synchronized(tp, seg)


def _negotiate(tp: TcpControlBlock, seg: Segment) -> None:
    """Take the peer's SYN options: tcp_mss() and the window-scale offer."""
    negotiated = tp.config.negotiate(seg.mss if seg.mss is not None else tp.mss)
    tp.mss = negotiated.mss
    tp.so_snd.reserve(negotiated.sndbuf)
    tp.so_rcv.reserve(negotiated.rcvbuf)
    tp.cwnd = tp.mss * tp.config.initial_cwnd_segments
    tp.peer_wscale = seg.wscale
    if seg.tsval is not None:  # TF_RCVD_TSTMP: ours is sent only if asked for
        tp.ts_recent = seg.tsval
        tp.optlen = TIMESTAMP_OPTION_BYTES if tp.config.timestamps else 0
    if tp.linux is not None:
        tp.linux.established(tp.mss - tp.optlen, tp.optlen)
    tp.irs = seg.seq
    tp.rcv_nxt = tp.rcv_adv = seg.seq + 1
    tp.snd_wnd = tp.max_sndwnd = seg.window
    tp.snd_wl1 = seg.seq


def _accept_syn(tp: TcpControlBlock, seg: Segment) -> None:
    """LISTEN + SYN: answer with SYN-ACK and enter SYN_RECEIVED."""
    tp.peer = seg.src
    _negotiate(tp, seg)
    tp.state = State.SYN_RECEIVED
    tp.snd_una = tp.iss
    tp.rtt_seq = tp.iss
    tp.rtt_start = tp.sim.now
    send_syn(tp)


def _syn_acked(tp: TcpControlBlock, seg: Segment) -> None:
    """SYN_SENT + SYN-ACK for our SYN: ESTABLISHED, ACK at once."""
    tp.rexmt_timer.stop()
    tp.snd_una = seg.ack
    _negotiate(tp, seg)
    tp.snd_wl2 = seg.ack
    if tp.rtt_seq is not None:
        tp.rtt.sample(tp.sim.now - tp.rtt_start)
        tp.rtt_seq = None
    _establish(tp)
    tp.acknow = True
    tcp_output(tp)


def _establish(tp: TcpControlBlock) -> None:
    """Enter ESTABLISHED; window scaling applies if both SYNs asked for it."""
    tp.state = State.ESTABLISHED
    tp.established_at = tp.sim.now
    if tp.config.window_scaling and tp.peer_wscale is not None:
        tp.snd_scale = min(tp.peer_wscale, MAX_WINDOW_SHIFT)
        tp.rcv_scale = tp.config.window_shift
    if tp.connected is not None:
        connected = tp.connected
        tp.sim.call_later(0.0, lambda _event: connected())


def _input_synchronized(tp: TcpControlBlock, seg: Segment) -> None:
    """A segment in a synchronized state (or SYN_RECEIVED): trim, ACK, data, FIN."""
    trimmed = _trim(tp, seg)
    if trimmed is None:
        _drop_after_ack(tp)
        return
    seq, length, fin = trimmed
    if (seg.tsval is not None and seq <= tp.last_ack_sent
            < seq + length + (1 if fin or seq == seg.seq and seg.flags & SYN else 0)):
        tp.ts_recent = seg.tsval  # the segment holding last_ack_sent: echo its time
    if not seg.flags & ACK:
        return
    if tp.state is State.SYN_RECEIVED:
        if not tp.snd_una < seg.ack <= tp.snd_max:
            return
        _establish(tp)
        tp.snd_wl1 = seq - 1
    needoutput = _process_ack(tp, seg, seq, length)
    if needoutput is None:
        return
    if (length or fin) and tp.state not in HAVE_RECEIVED_FIN:
        first = seg.seq + (1 if seg.flags & SYN else 0)
        receive_data(tp, seq, length, fin, seg.length, seq - first)
    if needoutput or tp.acknow:
        tcp_output(tp)


def _drop_after_ack(tp: TcpControlBlock) -> None:
    """Answer an unacceptable segment with an ACK (a SYN-ACK in SYN_RECEIVED)."""
    if tp.state is State.SYN_RECEIVED:
        tp.rtt_seq = None
        tp.counters.retransmitted_segments += 1
        send_syn(tp)
        return
    tp.acknow = True
    tcp_output(tp)


def _trim(tp: TcpControlBlock, seg: Segment) -> tuple[int, int, bool] | None:
    """Trim *seg* to the receive window: (seq, length, fin), or None to drop and ACK."""
    seq, length, fin = seg.seq, seg.length, bool(seg.flags & FIN)
    rcv_wnd = max(tp.so_rcv.space, tp.rcv_adv - tp.rcv_nxt, 0)
    todrop = tp.rcv_nxt - seq
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
            tp.acknow = True
        seq += todrop
        length -= todrop
    todrop = seq + length - (tp.rcv_nxt + rcv_wnd)
    if todrop > 0:
        if todrop >= length:
            if not (rcv_wnd == 0 and seq == tp.rcv_nxt):
                return None
            tp.acknow = True
        length = max(length - todrop, 0)
        fin = False
    return seq, length, fin


def _process_ack(tp: TcpControlBlock, seg: Segment, seq: int, length: int) -> bool | None:
    """ACK processing; True if output is wanted, None if the segment was consumed."""
    cfg = tp.config
    ack = seg.ack
    if ack <= tp.snd_una:
        if length == 0 and seg.window == tp.snd_wnd:
            if not tp.rexmt_timer.running or ack != tp.snd_una:
                tp.dupacks = 0
            else:
                tp.dupacks += 1
                if tp.dupacks == cfg.dupack_threshold:
                    _fast_retransmit(tp, ack)
                    return None
                if tp.dupacks > cfg.dupack_threshold and cfg.fast_recovery:
                    tp.cwnd += tp.mss
                    tcp_output(tp)
                    return None
        else:
            tp.dupacks = 0
        return _update_window(tp, seg, seq)
    if (cfg.fast_recovery and tp.dupacks > cfg.dupack_threshold
            and tp.cwnd > tp.ssthresh):
        tp.cwnd = tp.ssthresh
    tp.dupacks = 0
    if ack > tp.snd_max:
        _drop_after_ack(tp)
        return None
    acked = ack - tp.snd_una - (1 if tp.snd_una == tp.iss else 0)
    if seg.tsecr is not None:  # RFC 1323 RTTM: every ACK of new data is timed
        tp.rtt.sample(tp.sim.now - seg.tsecr)
        tp.rtt_seq = None
    elif tp.rtt_seq is not None and ack > tp.rtt_seq:
        tp.rtt.sample(tp.sim.now - tp.rtt_start)
        tp.rtt_seq = None
    needoutput = False
    if ack == tp.snd_max:
        tp.rexmt_timer.stop()
        needoutput = True
    elif not tp.persist_timer.running:
        tp.rexmt_timer.start(tp.rtt.rto)
    incr = tp.mss
    if tp.cwnd > tp.ssthresh:
        incr = tp.mss * tp.mss // tp.cwnd
    tp.cwnd = min(tp.cwnd + incr, MAX_WINDOW_FIELD << tp.snd_scale)
    taken = min(acked, tp.so_snd.cc)
    fin_acked = acked > taken and tp.sentfin
    tp.so_snd.drop(taken)
    tp.snd_wnd = max(tp.snd_wnd - taken, 0)
    tp.counters.bytes_acked += taken
    tp.snd_una = ack
    tp.snd_nxt = max(tp.snd_nxt, tp.snd_una)
    if fin_acked and not _fin_acked(tp):
        return None
    return _update_window(tp, seg, seq) or needoutput


def _fin_acked(tp: TcpControlBlock) -> bool:
    """Our FIN is acknowledged: advance the closing states; False if now CLOSED."""
    if tp.state is State.FIN_WAIT_1:
        tp.state = State.FIN_WAIT_2
    elif tp.state is State.CLOSING:
        tp.state = State.TIME_WAIT
        tp.stop_timers()
    elif tp.state is State.LAST_ACK:
        tp.state = State.CLOSED
        tp.stop_timers()
        return False
    return True


def _update_window(tp: TcpControlBlock, seg: Segment, seq: int) -> bool:
    """RFC 793 send-window update (SND.WL1/SND.WL2); True if the window was taken."""
    ack = seg.ack
    if (tp.snd_wl1 < seq or (tp.snd_wl1 == seq and (
            tp.snd_wl2 < ack or (tp.snd_wl2 == ack and seg.window > tp.snd_wnd)))):
        tp.snd_wnd = seg.window
        tp.snd_wl1 = seq
        tp.snd_wl2 = ack
        tp.max_sndwnd = max(tp.max_sndwnd, tp.snd_wnd)
        return True
    return False


def _fast_retransmit(tp: TcpControlBlock, ack: int) -> None:
    """Third duplicate ACK: resend the missing segment (RFC 2581 section 3.2)."""
    onxt = tp.snd_nxt
    tp.ssthresh = max(min(tp.snd_wnd, tp.cwnd) // 2 // tp.mss, 2) * tp.mss
    tp.rexmt_timer.stop()
    tp.rtt_seq = None
    tp.snd_nxt = ack
    tp.cwnd = tp.mss
    tp.counters.fast_retransmits += 1
    tcp_output(tp)
    if tp.config.fast_recovery:
        tp.cwnd = tp.ssthresh + tp.mss * tp.dupacks
    tp.snd_nxt = max(tp.snd_nxt, onxt)


__all__ = ["tcp_input"]
