"""What tcp_input() does with the data and FIN of an acceptable segment
(:func:`receive_data`, on the connection's control block).

In-order data join the receive buffer, as the mbufs the driver put them in
(:mod:`~fcsim.transport.sockbuf`), with a delayed ACK, or an ACK at once by
the *ack_every* rule (Linux 2.4's rules with its window rule,
:mod:`~fcsim.transport.linux`, which may also drop a segment its receive
memory cannot take); out-of-order data wait in the reassembly queue and are
acknowledged at once (4.4BSD's TCP_REASS macro and tcp_reass()); an in-order
FIN is acknowledged and advances the state (RFC 793 page 75).
"""

from __future__ import annotations

from fcsim.transport.segment import HEADER_BYTES
from fcsim.transport.tcb import State, TcpControlBlock


def receive_data(tp: TcpControlBlock, seq: int, length: int, fin: bool, received: int,
                 skip: int) -> None:
    """Data *seq* .. *seq* + *length* of a segment that carried *received* bytes.

    The first *skip* of those bytes were trimmed as duplicates.
    """
    if seq == tp.rcv_nxt and not tp.reass and tp.state is State.ESTABLISHED:
        if (tp.linux is not None and length
                and not tp.linux.arrive(length, tp.rcv_adv - tp.last_ack_sent)):
            return  # tcp_prune_queue could not make room: dropped, FIN and all
        tp.rcv_nxt += length
        tp.so_rcv.append_received(received, skip, length, HEADER_BYTES + tp.optlen)
        _owe_ack(tp, length)
    else:
        if tp.linux is not None:
            tp.linux.out_of_order()
        fin = tcp_reass(tp, seq, length, fin, received, seq - skip)
        tp.acknow = True
    if fin:
        _receive_fin(tp)


def _owe_ack(tp: TcpControlBlock, length: int) -> None:
    """ACK policy for in-order data: at once, every *ack_every* segments, or delayed.

    A full-sized segment carries the MSS less the options every segment
    carries (RFC 1122 4.2.2.6: the effective MSS excludes TCP options).
    """
    cfg = tp.config
    if not cfg.delayed_ack:
        tp.acknow = True
        return
    if tp.linux is not None:
        if tp.linux.ack_now(tp.rcv_nxt - tp.last_ack_sent, tp.rcv_adv - tp.last_ack_sent):
            tp.acknow = True
        else:
            tp.delay_ack()
        return
    if length and (not cfg.ack_full_sized_only or length >= tp.mss - tp.optlen):
        tp.segments_unacked += 1
    if cfg.ack_every and tp.segments_unacked >= cfg.ack_every:
        tp.acknow = True
    else:
        tp.delay_ack()


def tcp_reass(tp: TcpControlBlock, seq: int, length: int, fin: bool, received: int,
              first: int) -> bool:
    """Queue a segment and move what is now in order to the buffer; True at the FIN.

    *received* and *first* are the segment's length and first sequence
    number as it arrived: the mbufs that reach the buffer are those of the
    segment as received, less the bytes already there (tcp_reass, m_adj).
    """
    tp.reass.append((seq, seq + length, fin, received, first))
    tp.reass.sort()
    fin_reached = False
    while tp.reass and tp.reass[0][0] <= tp.rcv_nxt:
        _start, end, seg_fin, seg_length, seg_first = tp.reass.pop(0)
        if end > tp.rcv_nxt:
            tp.so_rcv.append_received(seg_length, tp.rcv_nxt - seg_first,
                                      end - tp.rcv_nxt, HEADER_BYTES + tp.optlen)
            if tp.linux is not None:
                tp.linux.data(end - tp.rcv_nxt)
            tp.rcv_nxt = end
        fin_reached = fin_reached or seg_fin
    return fin_reached


def _receive_fin(tp: TcpControlBlock) -> None:
    """The peer's FIN is in order: ACK it and advance the state (RFC 793 page 75)."""
    if not tp.fin_received:
        tp.fin_received = True
        tp.acknow = True
        tp.rcv_nxt += 1
    if tp.state in (State.SYN_RECEIVED, State.ESTABLISHED):
        tp.state = State.CLOSE_WAIT
    elif tp.state is State.FIN_WAIT_1:
        tp.state = State.CLOSING
    elif tp.state is State.FIN_WAIT_2:
        tp.state = State.TIME_WAIT
        tp.stop_timers()


__all__ = ["receive_data", "tcp_reass"]
