"""The TCP control block: connection state, timers and counters (4.4BSD
``tcp_var.h``).

:class:`TcpControlBlock` holds the variables of RFC 793 section 3.2 and the
4.4BSD ``struct tcpcb`` additions (congestion window, RTT timing, delayed-ACK
and persist state, the flags of ``t_flags``, the reassembly queue, the
timers), the two socket buffers (:class:`~fcsim.transport.sockbuf.SocketBuffer`,
with mbuf accounting) and the counters: the state, every field declared here,
with only the bookkeeping of its own timers
(:meth:`~TcpControlBlock.delay_ack`, :meth:`~TcpControlBlock.stop_timers`).
The protocol is module functions that take the control block, as in 4.4BSD:
:func:`~fcsim.transport.tcp_input.tcp_input`,
:func:`~fcsim.transport.tcp_output.tcp_output`, the receive side's
reassembly (:mod:`~fcsim.transport.tcp_reass`) and the timer routines
(:mod:`~fcsim.transport.tcp_timer`); :class:`~fcsim.transport.tcp.TcpEndpoint`
holds one and serves the socket calls.

Sequence numbers are plain ints from an initial send sequence number of 0;
they never wrap (see :mod:`~fcsim.transport.segment`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from functools import partial

from fcsim.engine.simulation import Simulation
from fcsim.transport.linux import LINUX_2_4, LinuxReceiveWindow
from fcsim.transport.rtt import RttEstimator
from fcsim.transport.segment import MAX_WINDOW_FIELD, Segment
from fcsim.transport.sockbuf import MCLBYTES, SocketBuffer
from fcsim.transport.tcp_config import MAX_WINDOW_SHIFT, TcpConfig
from fcsim.transport.timer import Timer


class State(Enum):
    """Connection states (RFC 793 section 3.2, figure 6)."""

    CLOSED = "CLOSED"
    LISTEN = "LISTEN"
    SYN_SENT = "SYN_SENT"
    SYN_RECEIVED = "SYN_RECEIVED"
    ESTABLISHED = "ESTABLISHED"
    CLOSE_WAIT = "CLOSE_WAIT"
    FIN_WAIT_1 = "FIN_WAIT_1"
    CLOSING = "CLOSING"
    LAST_ACK = "LAST_ACK"
    FIN_WAIT_2 = "FIN_WAIT_2"
    TIME_WAIT = "TIME_WAIT"

    # Members are singletons: hashing by identity (in C) instead of Enum's hash of
    # the name (in Python) keeps the per-segment state tests cheap.
    __hash__ = object.__hash__


SYNCHRONIZED = frozenset({State.ESTABLISHED, State.CLOSE_WAIT, State.FIN_WAIT_1, State.CLOSING,
                          State.LAST_ACK, State.FIN_WAIT_2, State.TIME_WAIT})
"""States after the handshake, in which tcp_output() runs."""

SENDS_FIN = frozenset({State.FIN_WAIT_1, State.CLOSING, State.LAST_ACK})
"""States whose segments may carry FIN (4.4BSD tcp_outflags)."""

HAVE_RECEIVED_FIN = frozenset({State.CLOSE_WAIT, State.CLOSING, State.LAST_ACK,
                               State.TIME_WAIT})
"""States after the peer's FIN (TCPS_HAVERCVDFIN)."""


@dataclass
class TcpCounters:
    """What one endpoint has done, counted from the start (like BSD ``tcpstat``)."""

    segments_sent: int = 0
    """All segments handed to the layer below (data, ACKs, SYN, FIN)."""
    segments_received: int = 0
    """All segments given to tcp_input."""
    data_segments_sent: int = 0
    """Segments carrying new data (not retransmissions)."""
    bytes_sent: int = 0
    """New data bytes sent, bytes."""
    retransmitted_segments: int = 0
    """Data (or SYN) segments sent again, after a timeout or fast retransmit."""
    retransmitted_bytes: int = 0
    """Data bytes sent again, bytes."""
    timeouts: int = 0
    """Retransmission-timer expiries."""
    fast_retransmits: int = 0
    """Retransmissions triggered by duplicate ACKs."""
    acks_sent: int = 0
    """Pure ACKs (no data) sent because an ACK was owed (TF_ACKNOW)."""
    delayed_acks: int = 0
    """Delayed ACKs released by the fast timer (BSD tcps_delack)."""
    window_updates: int = 0
    """Pure window updates: no data, no ACK owed (BSD tcps_sndwinup)."""
    zero_window_probes: int = 0
    """Persist-timer probes into a zero window."""
    bytes_acked: int = 0
    """Data bytes acknowledged by the peer, bytes."""
    bytes_written: int = 0
    """Data bytes copied into the send buffer, bytes."""
    bytes_read: int = 0
    """Data bytes returned to the reader, bytes."""


TimerRoutine = Callable[["TcpControlBlock"], None]
"""What a timer of the control block does when it expires, given the block
(the routines of :mod:`~fcsim.transport.tcp_timer`)."""


class TcpControlBlock:
    """State of one end of a TCP connection (4.4BSD ``struct tcpcb`` with its
    socket's buffers), named *name* (the address in the ``src`` of its
    segments), its options *config*, *transmit(segment)* the layer below;
    *tick_phase* places the host's fast clock. The timers call
    *on_rexmt*, *on_persist* and *on_fast_tick* with the block when they
    expire."""

    def __init__(
        self,
        sim: Simulation,
        name: str,
        config: TcpConfig,
        transmit: Callable[[Segment], None],
        tick_phase: float,
        on_rexmt: TimerRoutine,
        on_persist: TimerRoutine,
        on_fast_tick: TimerRoutine,
    ) -> None:
        self.sim = sim
        self.name = name
        self.config = config
        self.transmit = transmit
        """The layer below: called at once with every segment sent."""
        self.tick_phase = tick_phase
        """Phase of this host's 200 ms fast clock: ticks at phase + k x delack_tick, s."""
        self.peer: str | None = None
        self.state = State.CLOSED
        self.counters = TcpCounters()
        self.established_at: float | None = None
        """Simulated time the connection reached ESTABLISHED, s."""
        self.connected: Callable[[], None] | None = None
        """Called (as a zero-delay event) when the connection is established
        (soisconnected), else None."""

        # Values negotiated on the SYNs (tcp_mss and RFC 1323).
        self.mss = config.interface_mss
        """Maximum segment size this side sends (t_maxseg), bytes."""
        cluster = config.mclbytes or MCLBYTES
        self.so_snd = SocketBuffer(config.sndbuf, config.sb_max, cluster, config.mbuf_accounting)
        """The send buffer: unacknowledged plus unsent data (so_snd)."""
        self.so_rcv = SocketBuffer(config.rcvbuf, config.sb_max, cluster, config.mbuf_accounting)
        """The receive buffer: data in order, not yet read (so_rcv)."""
        self.linux: LinuxReceiveWindow | None = None
        """The Linux 2.4 receive window (window_rule "linux-2.4"), else None."""
        if config.window_rule == LINUX_2_4:
            self.linux = LinuxReceiveWindow(config.rcvbuf, config.rx_truesize)
            options = 12 if config.timestamps else 0
            self.linux.established(config.interface_mss - options, options)
        self.snd_scale = 0
        """Shift applied to the peer's window fields (RFC 1323), 0 if not agreed."""
        self.rcv_scale = 0
        """Shift applied to our window fields (RFC 1323), 0 if not agreed."""
        self.peer_wscale: int | None = None
        """Shift the peer's SYN asked for; None if it carried no window-scale option."""
        self.optlen = 0
        """Option bytes on every segment after the SYNs (t_maxseg less the data a
        full segment carries): 12 once both SYNs carried the timestamps option
        (TF_REQ_TSTMP and TF_RCVD_TSTMP), else 0."""
        self.ts_recent = 0.0
        """The peer's timestamp to echo (ts_recent), simulated s."""
        self.last_ack_sent = 0
        """The acknowledgement field of the last segment sent (last_ack_sent)."""

        # Send sequence space and the send buffer.
        self.iss = 0
        self.snd_una = 0
        self.snd_nxt = 0
        self.snd_max = 0
        self.snd_wnd = 0
        """Peer's offered window from snd_una, bytes."""
        self.max_sndwnd = 0
        """Largest window the peer has offered, bytes (sender SWS avoidance)."""
        self.snd_wl1 = 0
        self.snd_wl2 = 0
        self.cwnd = config.interface_mss * config.initial_cwnd_segments
        """Congestion window, bytes."""
        self.ssthresh = MAX_WINDOW_FIELD << MAX_WINDOW_SHIFT
        """Slow-start threshold, bytes (BSD starts it at the largest window)."""
        self.dupacks = 0
        """Consecutive duplicate ACKs (t_dupacks)."""
        self.force = False
        """A persist probe is being sent (t_force)."""
        self.more_to_come = False
        """The PRU_SEND being served said more of the write follows (FreeBSD
        TF_MORETOCOME, set by tcp_usr_send() around tcp_output() for
        PRUS_MORETOCOME): tcp_output() then holds a part segment."""
        self.sentfin = False
        """Our FIN has been sent (TF_SENTFIN)."""
        self.rtt_seq: int | None = None
        """The sequence number being timed for an RTT sample (t_rtseq), None if none."""
        self.rtt_start = 0.0
        """When the timed sequence number was sent, s (t_rtt counts from it)."""
        self.rtt = RttEstimator(config.rto_initial, config.rto_min, config.rto_max)
        self.last_input = 0.0
        """When the last segment arrived, s (t_idle counts from it)."""

        # Receive sequence space and the receive buffer.
        self.irs = 0
        self.rcv_nxt = 0
        self.rcv_adv = 0
        """Right edge of the window last advertised, sequence number."""
        self.reass: list[tuple[int, int, bool, int, int]] = []
        """The reassembly queue, out-of-order segments: (start, end, FIN,
        length as received, its first sequence)."""
        self.fin_received = False
        """The peer's FIN has been taken in order."""
        self.delack = False
        """A delayed ACK is owed (TF_DELACK)."""
        self.acknow = False
        """An ACK is to be sent at once (TF_ACKNOW)."""
        self.segments_unacked = 0
        """Full-sized segments received since the last ACK sent (the *ack_every* count)."""

        # Timers (t_timer[]; the delayed ACK rides the host's fast clock).
        self.rexmt_timer = Timer(sim, partial(on_rexmt, self))
        """The retransmission timer (TCPT_REXMT)."""
        self.persist_timer = Timer(sim, partial(on_persist, self))
        """The persist timer (TCPT_PERSIST)."""
        self.fast_timer = Timer(sim, partial(on_fast_tick, self))
        """The next tick of the host's fast clock while a delayed ACK is owed."""

    # Read-only views for host models and invariant tests.

    @property
    def sndbuf(self) -> int:
        """Send buffer size after tcp_mss() rounding (so_snd.sb_hiwat), bytes."""
        return self.so_snd.hiwat

    @property
    def rcvbuf(self) -> int:
        """Receive buffer size after tcp_mss() rounding (so_rcv.sb_hiwat), bytes."""
        return self.so_rcv.hiwat

    @property
    def sb_cc(self) -> int:
        """Bytes in the send buffer: unacknowledged plus unsent (so_snd.sb_cc)."""
        return self.so_snd.cc

    @property
    def unread(self) -> int:
        """Bytes in the receive buffer not yet read (so_rcv.sb_cc)."""
        return self.so_rcv.cc

    @property
    def rcv_wnd(self) -> int:
        """Window currently advertised to the peer beyond rcv_nxt, bytes."""
        return max(self.rcv_adv - self.rcv_nxt, 0)

    @property
    def unsent(self) -> int:
        """Bytes in the send buffer not yet sent once, bytes."""
        return max(self.sb_cc - (self.snd_max - self.snd_una), 0)

    @property
    def unacked(self) -> int:
        """Bytes in the send buffer sent but not acknowledged, bytes."""
        return self.sb_cc - self.unsent

    # The control block's own bookkeeping.

    def delay_ack(self) -> None:
        """Owe a delayed ACK (TF_DELACK): it leaves at the next fast-clock tick
        unless a segment sent before carries it."""
        self.delack = True
        if self.fast_timer.deadline is None:  # not running
            self.fast_timer.start(self._next_tick_delay())

    def stop_timers(self) -> None:
        """Stop the retransmission and persist timers (tcp_canceltimers less the
        fast clock, which a delayed ACK still owed keeps)."""
        self.rexmt_timer.stop()
        self.persist_timer.stop()

    def _next_tick_delay(self) -> float:
        """Seconds to the next tick of the host's fast clock, strictly after now."""
        tick = self.config.delack_tick
        now = self.sim.now
        at = self.tick_phase + (math.floor((now - self.tick_phase) / tick) + 1) * tick
        if at - now < 1e-12:
            at += tick
        return at - now


__all__ = ["HAVE_RECEIVED_FIN", "SENDS_FIN", "SYNCHRONIZED", "State", "TcpControlBlock",
           "TcpCounters", "TimerRoutine"]
