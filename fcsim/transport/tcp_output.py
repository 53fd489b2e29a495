"""The output side of TCP: what to send, when, and the timers that force it.

:func:`tcp_output` follows 4.4BSD-Lite2 ``tcp_output()`` (tcp_output.c
8.4) decision by decision, on the control block it is given:

1. Usable window = min(snd_wnd, cwnd); a forced call (persist timer) into a
   zero window may send one byte.
2. Sender silly-window avoidance (RFC 1122 4.2.3.4, RFC 896): send data if a
   full MSS is ready; or if the connection is idle (nothing unacknowledged) or
   TCP_NODELAY is set *and* this segment empties the send buffer (unless the
   PRU_SEND being served said more is coming: FreeBSD's TF_MORETOCOME,
   ``tcp_output.c``, on the "moretocome" send path); or if forced;
   or if the segment is at least half the largest window the peer has offered
   (``max_sndwnd / 2``); or if retransmitting.
3. Window update: send if the receive window can open by at least
   ``window_update_segments`` x MSS or ``window_update_fraction`` of the
   receive buffer (BSD: 2 MSS or 50 %).
4. Send if an ACK is owed (TF_ACKNOW) or a FIN is due.
5. Otherwise, with data waiting and neither retransmit nor persist timer
   running, start the persist timer.

The window advertised is the free receive space (``sbspace()``: the smaller of
the free data bytes and the free mbuf bytes, see
:mod:`~fcsim.transport.sockbuf`), zero while that is under
``rcv_sws_fraction`` of the buffer and under one MSS (receiver SWS avoidance),
never less than already advertised (RFC 793: don't shrink), truncated to the
window-scale granularity and capped at 65535 << shift. The window-update test
of rule 3 uses the same free space, so a read that frees mbufs opens the
window as a read that frees bytes does.

:func:`send_syn` sends the SYN or SYN-ACK with its options, and
:func:`setpersist` starts the persist timer (tcp_setpersist); the timers'
routines are in :mod:`~fcsim.transport.tcp_timer`.
"""

from __future__ import annotations

from fcsim.transport.segment import ACK, FIN, HEADER_BYTES, MAX_WINDOW_FIELD, PSH, SYN, Segment
from fcsim.transport.tcb import SENDS_FIN, SYNCHRONIZED, State, TcpControlBlock


def tcp_output(tp: TcpControlBlock) -> None:
    """Send whatever the 4.4BSD rules allow now on *tp* (possibly several segments)."""
    if tp.state not in SYNCHRONIZED:
        return
    cfg = tp.config
    idle = tp.snd_max == tp.snd_una
    if idle and cfg.slow_start_after_idle and tp.sim.now - tp.last_input >= tp.rtt.rto:
        tp.cwnd = tp.mss
    mss = tp.mss if tp.linux is None else _mss_now(tp)  # _mss_now's BSD case written out
    so_snd = tp.so_snd
    while True:
        sb_cc = so_snd.cc  # tp.sb_cc, read once a segment: nothing here changes it
        off = tp.snd_nxt - tp.snd_una
        win = min(tp.snd_wnd, tp.cwnd)
        fin = tp.state in SENDS_FIN
        if tp.force:
            if win == 0:
                if off < sb_cc:
                    fin = False
                win = 1
            else:
                tp.persist_timer.stop()
                tp.rtt.shift = 0
        length = min(sb_cc, win) - off
        if length < 0:
            length = 0
            if win == 0:
                tp.rexmt_timer.stop()
                tp.snd_nxt = tp.snd_una
        sendalot = length > mss
        if sendalot:
            length = mss
        if tp.snd_nxt + length < tp.snd_una + sb_cc:
            fin = False
        space = tp.so_rcv.space
        if not _worth_sending(tp, length, off, idle, space, fin, mss, sb_cc):
            if sb_cc and tp.rexmt_timer.deadline is None \
                    and tp.persist_timer.deadline is None:  # neither running
                tp.rtt.shift = 0
                setpersist(tp)
            return
        if length > tp.mss - tp.optlen:  # the options take their room
            length = tp.mss - tp.optlen
            sendalot = True
            fin = False
        _send(tp, length, off, fin, space, sb_cc)
        if not sendalot:
            return


def _mss_now(tp: TcpControlBlock) -> int:
    """The segment size the send rules use, bytes: t_maxseg (4.4BSD, its
    options then taken off the data). Linux 2.4's is the data a segment
    carries, options excluded, and at most half the largest window the
    peer has offered (tcp_sync_mss: ``if (mss_now > (tp->max_window>>1))
    mss_now = max((tp->max_window>>1), 68U - tp->tcp_header_len)``)."""
    if tp.linux is None:
        return tp.mss
    data = tp.mss - tp.optlen
    if not tp.max_sndwnd:
        return data
    return min(data, max(tp.max_sndwnd >> 1, 68 - (HEADER_BYTES - 20) - tp.optlen))


def _worth_sending(tp: TcpControlBlock, length: int, off: int, idle: bool, space: int,
                   fin: bool, mss: int, sb_cc: int) -> bool:
    """The tcp_output() tests between computing *length* and ``send:``
    (*mss*: the segment size now, :func:`_mss_now`; *sb_cc*: the bytes in the
    send buffer)."""
    cfg = tp.config
    if length:
        if length == mss:
            return True
        if (idle or cfg.nodelay) and length + off >= sb_cc and not tp.more_to_come:
            return True
        if tp.force or length >= tp.max_sndwnd // 2 or tp.snd_nxt < tp.snd_max:
            return True
    if space > 0 and tp.linux is None:  # Linux sends window updates only after reads
        adv = min(space, MAX_WINDOW_FIELD << tp.rcv_scale) - (tp.rcv_adv - tp.rcv_nxt)
        if adv >= cfg.window_update_segments * tp.mss:
            return True
        if adv >= cfg.window_update_fraction * tp.so_rcv.hiwat:  # tp.rcvbuf
            return True
    if tp.acknow:
        return True
    return fin and (not tp.sentfin or tp.snd_nxt == tp.snd_una)


def _advertised_window(tp: TcpControlBlock, space: int) -> int:
    """Window field for a non-SYN segment, in bytes (a multiple of 2**rcv_scale)."""
    cfg = tp.config
    if tp.linux is not None:
        win = tp.linux.window(tp.rcv_adv - tp.last_ack_sent)
    else:
        win = space
        if win < cfg.rcv_sws_fraction * tp.so_rcv.hiwat and win < tp.mss:  # tp.rcvbuf
            win = 0
    win = min(win, MAX_WINDOW_FIELD << tp.rcv_scale)
    win = max(win, tp.rcv_adv - tp.rcv_nxt)
    win = (win >> tp.rcv_scale) << tp.rcv_scale
    if not win and tp.linux is not None:
        tp.linux.zero_window()
    return win


def _send(tp: TcpControlBlock, length: int, off: int, fin: bool, space: int,
          sb_cc: int) -> None:
    """Build and transmit one segment, then update the send state (``send:``);
    *sb_cc*: the bytes in the send buffer."""
    counters = tp.counters
    flags = ACK | (FIN if fin else 0)
    if fin and tp.sentfin and tp.snd_nxt == tp.snd_max:
        tp.snd_nxt -= 1
    if length:
        if tp.force and tp.snd_wnd == 0:
            counters.zero_window_probes += 1
        if tp.snd_nxt < tp.snd_max:
            counters.retransmitted_segments += 1
            counters.retransmitted_bytes += length
        else:
            counters.data_segments_sent += 1
            counters.bytes_sent += length
        if off + length == sb_cc:
            flags |= PSH
    elif tp.acknow:
        counters.acks_sent += 1
    elif not fin:
        counters.window_updates += 1
    if length or fin or tp.persist_timer.running:
        seq = tp.snd_nxt
    else:
        seq = tp.snd_max
    window = _advertised_window(tp, space)
    segment = Segment(tp.name, tp.peer or "", seq, tp.rcv_nxt, length, flags, window)
    if tp.optlen:
        segment.tsval, segment.tsecr = tp.sim.now, tp.ts_recent
    tp.last_ack_sent = tp.rcv_nxt

    if not tp.force or not tp.persist_timer.running:
        start = tp.snd_nxt
        tp.snd_nxt += length + (1 if fin else 0)
        if fin:
            tp.sentfin = True
        if tp.snd_nxt > tp.snd_max:
            tp.snd_max = tp.snd_nxt
            if tp.rtt_seq is None:
                tp.rtt_seq = start
                tp.rtt_start = tp.sim.now
        if tp.rexmt_timer.deadline is None and tp.snd_nxt != tp.snd_una:  # not running
            tp.rexmt_timer.start(tp.rtt.rto)
            if tp.persist_timer.running:
                tp.persist_timer.stop()
                tp.rtt.shift = 0
    elif tp.snd_nxt + length > tp.snd_max:
        tp.snd_max = tp.snd_nxt + length

    if window > 0 and tp.rcv_nxt + window > tp.rcv_adv:
        tp.rcv_adv = tp.rcv_nxt + window
    tp.acknow = False
    tp.delack = False
    tp.segments_unacked = 0
    if tp.linux is not None:
        tp.linux.pushed = False  # tcp_event_ack_sent clears the pending ACK's flags
    counters.segments_sent += 1
    tp.transmit(segment)


def send_syn(tp: TcpControlBlock) -> None:
    """Send our SYN (SYN_SENT) or SYN-ACK (SYN_RECEIVED) with its options.

    MSS option: the interface MSS, not yet clamped (tcp_mss(tp, 0)).
    Window-scale and timestamps options: on a SYN if enabled; on a SYN-ACK
    only if the peer's SYN carried the same option (RFC 1323 sections 2.2
    and 3.2). The window of a SYN is never scaled.
    """
    cfg = tp.config
    syn_ack = tp.state is State.SYN_RECEIVED
    offer_scale = cfg.window_scaling and (not syn_ack or tp.peer_wscale is not None)
    window = min(max(tp.so_rcv.space, 0) if tp.linux is None else tp.linux.initial,
                 MAX_WINDOW_FIELD)
    segment = Segment(tp.name, tp.peer or "", tp.iss, tp.rcv_nxt if syn_ack else 0,
                      0, SYN | (ACK if syn_ack else 0), window, mss=cfg.interface_mss,
                      wscale=cfg.window_shift if offer_scale else None)
    if cfg.timestamps and (not syn_ack or tp.optlen):
        segment.tsval, segment.tsecr = tp.sim.now, tp.ts_recent
    tp.last_ack_sent = segment.ack
    tp.snd_nxt = tp.snd_max = tp.iss + 1
    if syn_ack:
        tp.rcv_adv = max(tp.rcv_adv, tp.rcv_nxt + window)
    if not tp.rexmt_timer.running:
        tp.rexmt_timer.start(tp.rtt.rto)
    tp.counters.segments_sent += 1
    tp.transmit(segment)


def setpersist(tp: TcpControlBlock) -> None:
    """tcp_setpersist(): start the persist timer and step its backoff."""
    cfg = tp.config
    tp.persist_timer.start(tp.rtt.persist_interval(cfg.persist_min, cfg.persist_max))
    if tp.rtt.shift < cfg.max_retransmits:
        tp.rtt.shift += 1


__all__ = ["send_syn", "setpersist", "tcp_output"]
