"""The TCP timers' routines, as 4.4BSD ``tcp_timers()`` (tcp_timer.c) runs them
on the control block whose timer expired.

- Retransmission (TCPT_REXMT): back the Jacobson/Karels RTO off; after
  *max_retransmits* give the connection up (tcp_drop); else resend the SYN
  in the handshake, or go back to snd_una with ssthresh = max(min(wnd,
  cwnd)/2, 2 MSS) and cwnd = 1 MSS.
- Persist (TCPT_PERSIST): restart the timer (tcp_setpersist) and force a
  probe, one byte into a zero window.
- The host's fast clock (tcp_fasttimo): send the delayed ACK if still owed.

:class:`~fcsim.transport.tcb.TcpControlBlock` calls them through its timers,
given at its construction (:class:`~fcsim.transport.tcp.TcpEndpoint`).
"""

from __future__ import annotations

from fcsim.transport.tcb import State, TcpControlBlock
from fcsim.transport.tcp_output import send_syn, setpersist, tcp_output


def rexmt_timeout(tp: TcpControlBlock) -> None:
    """Retransmission timeout (tcp_timers TCPT_REXMT)."""
    cfg = tp.config
    tp.rtt.back_off()
    if tp.rtt.shift > cfg.max_retransmits:
        tcp_drop(tp)
        return
    tp.counters.timeouts += 1
    tp.rtt_seq = None
    if tp.state in (State.SYN_SENT, State.SYN_RECEIVED):
        tp.counters.retransmitted_segments += 1
        send_syn(tp)
        return
    tp.rexmt_timer.start(tp.rtt.rto)
    tp.snd_nxt = tp.snd_una
    tp.ssthresh = max(min(tp.snd_wnd, tp.cwnd) // 2 // tp.mss, 2) * tp.mss
    tp.cwnd = tp.mss
    tp.dupacks = 0
    tcp_output(tp)


def persist_timeout(tp: TcpControlBlock) -> None:
    """Persist timeout: force a probe (one byte into a zero window)."""
    setpersist(tp)
    tp.force = True
    tcp_output(tp)
    tp.force = False


def fast_tick(tp: TcpControlBlock) -> None:
    """A tick of the host's fast clock: send the delayed ACK if still owed
    (Linux 2.4's delayed-ACK timer first reclaims the socket's spare
    receive memory, tcp_timer.c ``tcp_delack_timer``)."""
    if not tp.delack:
        return
    if tp.linux is not None:
        tp.linux.reclaim()
    tp.delack = False
    tp.acknow = True
    tp.counters.delayed_acks += 1
    tcp_output(tp)


def tcp_drop(tp: TcpControlBlock) -> None:
    """Give the connection up after too many timeouts (tcp_drop)."""
    tp.state = State.CLOSED
    tp.stop_timers()
    tp.fast_timer.stop()


__all__ = ["fast_tick", "persist_timeout", "rexmt_timeout", "tcp_drop"]
