"""The output side of TCP: what to send, when, and the timers that force it.

:meth:`TcpOutput._output` follows 4.4BSD-Lite2 ``tcp_output()`` (tcp_output.c
8.4) decision by decision:

1. Usable window = min(snd_wnd, cwnd); a forced call (persist timer) into a
   zero window may send one byte.
2. Sender silly-window avoidance (RFC 1122 4.2.3.4, RFC 896): send data if a
   full MSS is ready; or if the connection is idle (nothing unacknowledged) or
   TCP_NODELAY is set *and* this segment empties the send buffer; or if forced;
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

Timers (4.4BSD tcp_timer.c): retransmission (Jacobson/Karels RTO, backoff,
ssthresh = max(min(wnd, cwnd)/2, 2 MSS), cwnd = 1 MSS, go back to snd_una),
persist (tcp_setpersist interval, forced probe) and the host-wide fast timer
that releases delayed ACKs (tcp_fasttimo).
"""

from __future__ import annotations

from collections.abc import Callable

from fcsim.engine.simulation import Simulation
from fcsim.transport.segment import ACK, FIN, HEADER_BYTES, MAX_WINDOW_FIELD, PSH, SYN, Segment
from fcsim.transport.tcb import SENDS_FIN, SYNCHRONIZED, State, TcpControlBlock
from fcsim.transport.tcp_config import TcpConfig
from fcsim.transport.timer import Timer


class TcpOutput(TcpControlBlock):
    """tcp_output() and the timers of one endpoint."""

    def __init__(
        self,
        sim: Simulation,
        name: str,
        config: TcpConfig,
        transmit: Callable[[Segment], None],
        tick_phase: float = 0.0,
    ) -> None:
        super().__init__(sim, name, config, transmit, tick_phase)
        self._rexmt_timer = Timer(sim, self._on_rexmt)
        self._persist_timer = Timer(sim, self._on_persist)
        self._fast_timer = Timer(sim, self._on_fast_tick)

    # -- the send decision ----------------------------------------------------

    def _output(self) -> None:
        """Send whatever the 4.4BSD rules allow now (possibly several segments)."""
        if self.state not in SYNCHRONIZED:
            return
        cfg = self.config
        idle = self.snd_max == self.snd_una
        if (idle and cfg.slow_start_after_idle
                and self.sim.now - self._last_input >= self.rtt.rto):
            self.cwnd = self.mss
        mss = self._mss_now()
        while True:
            off = self.snd_nxt - self.snd_una
            win = min(self.snd_wnd, self.cwnd)
            fin = self.state in SENDS_FIN
            if self._force:
                if win == 0:
                    if off < self.sb_cc:
                        fin = False
                    win = 1
                else:
                    self._persist_timer.stop()
                    self.rtt.shift = 0
            length = min(self.sb_cc, win) - off
            if length < 0:
                length = 0
                if win == 0:
                    self._rexmt_timer.stop()
                    self.snd_nxt = self.snd_una
            sendalot = length > mss
            if sendalot:
                length = mss
            if self.snd_nxt + length < self.snd_una + self.sb_cc:
                fin = False
            space = self.so_rcv.space
            if not self._worth_sending(length, off, idle, space, fin, mss):
                if self.sb_cc and not self._rexmt_timer.running \
                        and not self._persist_timer.running:
                    self.rtt.shift = 0
                    self._set_persist()
                return
            if length > self.mss - self.optlen:  # the options take their room
                length = self.mss - self.optlen
                sendalot = True
                fin = False
            self._send(length, off, fin, space)
            if not sendalot:
                return

    def _mss_now(self) -> int:
        """The segment size the send rules use, bytes: t_maxseg (4.4BSD, its
        options then taken off the data). Linux 2.4's is the data a segment
        carries, options excluded, and at most half the largest window the
        peer has offered (tcp_sync_mss: ``if (mss_now > (tp->max_window>>1))
        mss_now = max((tp->max_window>>1), 68U - tp->tcp_header_len)``)."""
        if self.linux is None:
            return self.mss
        data = self.mss - self.optlen
        if not self.max_sndwnd:
            return data
        return min(data, max(self.max_sndwnd >> 1, 68 - (HEADER_BYTES - 20) - self.optlen))

    def _worth_sending(self, length: int, off: int, idle: bool, space: int, fin: bool,
                       mss: int) -> bool:
        """The tcp_output() tests between computing *length* and ``send:``
        (*mss*: the segment size now, :meth:`_mss_now`)."""
        cfg = self.config
        if length:
            if length == mss:
                return True
            if (idle or cfg.nodelay) and length + off >= self.sb_cc:
                return True
            if self._force or length >= self.max_sndwnd // 2 or self.snd_nxt < self.snd_max:
                return True
        if space > 0 and self.linux is None:  # Linux sends window updates only after reads
            adv = min(space, MAX_WINDOW_FIELD << self.rcv_scale) - (self.rcv_adv - self.rcv_nxt)
            if adv >= cfg.window_update_segments * self.mss:
                return True
            if adv >= cfg.window_update_fraction * self.rcvbuf:
                return True
        if self._acknow:
            return True
        return fin and (not self._sentfin or self.snd_nxt == self.snd_una)

    def _advertised_window(self, space: int) -> int:
        """Window field for a non-SYN segment, in bytes (a multiple of 2**rcv_scale)."""
        cfg = self.config
        if self.linux is not None:
            win = self.linux.window(self.rcv_adv - self.last_ack_sent)
        else:
            win = space
            if win < cfg.rcv_sws_fraction * self.rcvbuf and win < self.mss:
                win = 0
        win = min(win, MAX_WINDOW_FIELD << self.rcv_scale)
        win = max(win, self.rcv_adv - self.rcv_nxt)
        return (win >> self.rcv_scale) << self.rcv_scale

    def _send(self, length: int, off: int, fin: bool, space: int) -> None:
        """Build and transmit one segment, then update the send state (``send:``)."""
        counters = self.counters
        flags = ACK | (FIN if fin else 0)
        if fin and self._sentfin and self.snd_nxt == self.snd_max:
            self.snd_nxt -= 1
        if length:
            if self._force and self.snd_wnd == 0:
                counters.zero_window_probes += 1
            if self.snd_nxt < self.snd_max:
                counters.retransmitted_segments += 1
                counters.retransmitted_bytes += length
            else:
                counters.data_segments_sent += 1
                counters.bytes_sent += length
            if off + length == self.sb_cc:
                flags |= PSH
        elif self._acknow:
            counters.acks_sent += 1
        elif not fin:
            counters.window_updates += 1
        if length or fin or self._persist_timer.running:
            seq = self.snd_nxt
        else:
            seq = self.snd_max
        window = self._advertised_window(space)
        segment = Segment(self.name, self.peer or "", seq, self.rcv_nxt, length, flags, window)
        if self.optlen:
            segment.tsval, segment.tsecr = self.sim.now, self.ts_recent
        self.last_ack_sent = self.rcv_nxt

        if not self._force or not self._persist_timer.running:
            start = self.snd_nxt
            self.snd_nxt += length + (1 if fin else 0)
            if fin:
                self._sentfin = True
            if self.snd_nxt > self.snd_max:
                self.snd_max = self.snd_nxt
                if self._rtt_seq is None:
                    self._rtt_seq = start
                    self._rtt_start = self.sim.now
            if not self._rexmt_timer.running and self.snd_nxt != self.snd_una:
                self._rexmt_timer.start(self.rtt.rto)
                if self._persist_timer.running:
                    self._persist_timer.stop()
                    self.rtt.shift = 0
        elif self.snd_nxt + length > self.snd_max:
            self.snd_max = self.snd_nxt + length

        if window > 0 and self.rcv_nxt + window > self.rcv_adv:
            self.rcv_adv = self.rcv_nxt + window
        self._acknow = False
        self._delack = False
        self._segments_unacked = 0
        if self.linux is not None:
            self.linux.pushed = False  # tcp_event_ack_sent clears the pending ACK's flags
        counters.segments_sent += 1
        self._transmit(segment)

    def _send_syn(self) -> None:
        """Send our SYN (SYN_SENT) or SYN-ACK (SYN_RECEIVED) with its options.

        MSS option: the interface MSS, not yet clamped (tcp_mss(tp, 0)).
        Window-scale and timestamps options: on a SYN if enabled; on a SYN-ACK
        only if the peer's SYN carried the same option (RFC 1323 sections 2.2
        and 3.2). The window of a SYN is never scaled.
        """
        cfg = self.config
        syn_ack = self.state is State.SYN_RECEIVED
        offer_scale = cfg.window_scaling and (not syn_ack or self.peer_wscale is not None)
        window = min(max(self.so_rcv.space, 0) if self.linux is None else self.linux.initial,
                     MAX_WINDOW_FIELD)
        segment = Segment(self.name, self.peer or "", self.iss, self.rcv_nxt if syn_ack else 0,
                          0, SYN | (ACK if syn_ack else 0), window, mss=cfg.interface_mss,
                          wscale=cfg.window_shift if offer_scale else None)
        if cfg.timestamps and (not syn_ack or self.optlen):
            segment.tsval, segment.tsecr = self.sim.now, self.ts_recent
        self.last_ack_sent = segment.ack
        self.snd_nxt = self.snd_max = self.iss + 1
        if syn_ack:
            self.rcv_adv = max(self.rcv_adv, self.rcv_nxt + window)
        if not self._rexmt_timer.running:
            self._rexmt_timer.start(self.rtt.rto)
        self.counters.segments_sent += 1
        self._transmit(segment)

    # -- timers -----------------------------------------------------------------

    def _set_persist(self) -> None:
        """tcp_setpersist(): start the persist timer and step its backoff."""
        cfg = self.config
        self._persist_timer.start(self.rtt.persist_interval(cfg.persist_min, cfg.persist_max))
        if self.rtt.shift < cfg.max_retransmits:
            self.rtt.shift += 1

    def _on_persist(self) -> None:
        """Persist timeout: force a probe (one byte into a zero window)."""
        self._set_persist()
        self._force = True
        self._output()
        self._force = False

    def _on_rexmt(self) -> None:
        """Retransmission timeout (tcp_timers TCPT_REXMT)."""
        cfg = self.config
        self.rtt.back_off()
        if self.rtt.shift > cfg.max_retransmits:
            self._drop()
            return
        self.counters.timeouts += 1
        self._rtt_seq = None
        if self.state in (State.SYN_SENT, State.SYN_RECEIVED):
            self.counters.retransmitted_segments += 1
            self._send_syn()
            return
        self._rexmt_timer.start(self.rtt.rto)
        self.snd_nxt = self.snd_una
        self.ssthresh = max(min(self.snd_wnd, self.cwnd) // 2 // self.mss, 2) * self.mss
        self.cwnd = self.mss
        self._dupacks = 0
        self._output()

    def _on_fast_tick(self) -> None:
        """A tick of the host's fast clock: send the delayed ACK if still owed."""
        if not self._delack:
            return
        self._delack = False
        self._acknow = True
        self.counters.delayed_acks += 1
        self._output()

    def _delay_ack(self) -> None:
        """Owe a delayed ACK: it leaves at the next fast-clock tick unless sent before."""
        self._delack = True
        if not self._fast_timer.running:
            self._fast_timer.start(self._next_tick_delay())

    def _drop(self) -> None:
        """Give the connection up after too many timeouts (tcp_drop)."""
        self.state = State.CLOSED
        self._stop_timers()
        self._fast_timer.stop()

    def _stop_timers(self) -> None:
        self._rexmt_timer.stop()
        self._persist_timer.stop()


__all__ = ["TcpOutput"]
