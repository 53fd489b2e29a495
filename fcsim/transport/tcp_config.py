"""TCP configuration: socket options, kernel constants and the tcp_mss() rules.

Every field names its unit, its default and where the default comes from.
"BSD" means the 4.4BSD-Lite2 networking code (``tcp_output.c`` 8.4,
``tcp_input.c`` 8.12, ``tcp_timer.c``, ``uipc_socket.c``), the ancestor of
the HP-UX 10 and SunOS 4 stacks of the 1990s; where those stacks are known to
differ the field says so. Behaviour that differs between the stacks is a field,
never a hidden branch.
"""

from __future__ import annotations

from dataclasses import dataclass

from fcsim.transport.segment import HEADER_BYTES, MAX_WINDOW_FIELD
from fcsim.transport.sockbuf import MCLBYTES, MSIZE

MAX_WINDOW_SHIFT = 14
"""Largest window-scale shift (RFC 1323 section 2.3; TCP_MAX_WINSHIFT)."""

WINDOW_RULES = ("4.4bsd", "linux-2.4")
"""The receive-window and ACK rules a TCP may follow (*window_rule*)."""


@dataclass(frozen=True)
class Negotiated:
    """Values fixed when the SYN with the peer's MSS option is processed.

    *mss*: maximum segment size this side sends, bytes. *sndbuf*, *rcvbuf*:
    socket buffer sizes after tcp_mss() rounding, bytes.
    """

    mss: int
    sndbuf: int
    rcvbuf: int


@dataclass(frozen=True)
class TcpConfig:
    """One socket's TCP settings (SI units: bytes, seconds).

    Buffers and MSS:

    - *sndbuf*: SO_SNDBUF, bytes. Bounds the send buffer: unacknowledged plus
      unsent data (BSD ``so_snd.sb_hiwat``). No default: netperf ``-s/-S``.
    - *rcvbuf*: SO_RCVBUF, bytes. The receive buffer; the advertised window is
      its free space (BSD ``so_rcv.sb_hiwat``). No default.
    - *mtu*: IP MTU of the interface, bytes. The interface MSS is
      ``mtu - 40`` (IP and TCP headers), then *mclbytes* rounding. No default;
      RFC 2625 IP over FC uses 65280.
    - *mclbytes*: mbuf cluster size, bytes (default 2048, BSD MCLBYTES on
      i386/hp300; some ports use 4096). tcp_mss() rounds an MSS above it down
      to a multiple of it. 0 turns the rounding off. Socket buffers store data
      in clusters of this size (*mbuf_accounting*).
    - *clamp_mss_to_sndbuf*: tcp_mss(): if SO_SNDBUF < MSS then MSS = SO_SNDBUF
      (default True, BSD).
    - *round_buffers_to_mss*: tcp_mss(): otherwise round SO_SNDBUF up to a
      multiple of the MSS, and SO_RCVBUF too when it exceeds the MSS, each at
      most *sb_max*, and keep the rounded size only if ``sbreserve()`` takes
      it (default True, BSD).
    - *round_buffers_down*: with *round_buffers_to_mss*, round the buffers
      *down* to a multiple of the MSS instead, each at most *sb_max*, kept only
      if ``sbreserve()`` takes it (default False; True is 4.3BSD-Reno and
      Net/2 tcp_mss(), ``tcp_input.c`` 7.25-7.28: ``bufsize = min(bufsize,
      SB_MAX) / mss * mss``, before 4.4BSD's 7.29 "round user buffer spec up,
      not down").
    - *sb_max*: the kernel's socket-buffer limit, bytes (default 262144, BSD
      SB_MAX, "patchable"): ``sbreserve()`` refuses a buffer larger than
      ``sb_max * MCLBYTES / (MSIZE + MCLBYTES)`` and caps a buffer's mbuf
      bytes (``sb_mbmax``) at it. The socket options themselves are taken
      as given.
    - *sosend_chunk*: bytes sosend() hands to tcp_output() per PRU_SEND call,
      bytes. 4.4BSD copies one mbuf cluster (MCLBYTES) per call for stream
      sockets, so with TCP_NODELAY a large write leaves as cluster-sized
      segments; 0 (default) hands over the whole copy at once (one tcp_output
      per write, as later stacks do).
    - *send_lowat*: SO_SNDLOWAT, bytes (default 2048, BSD soreserve() sets
      MCLBYTES). A write that does not fit blocks until this much space is free;
      never more than *sndbuf* (sbreserve() lowers it to the buffer's size).
    - *mbuf_accounting*: the free space of both buffers is also limited by the
      mbuf memory holding their data: ``sbspace() = min(sb_hiwat - sb_cc,
      sb_mbmax - sb_mbcnt)`` with ``sb_mbmax = min(2 x buffer, sb_max)``
      (default True, 4.4BSD sbreserve()/sbspace(); mbufs and clusters as in
      :mod:`~fcsim.transport.sockbuf`, clusters of *mclbytes*, or 2048 bytes
      when that is 0). False: only the data bytes count.

    Options:

    - *window_scaling*: RFC 1323 window scale option (default True). The shift
      asked for is the smallest with ``65535 << shift >= rcvbuf`` (BSD
      request_r_scale); used only if both SYNs carry the option.
    - *timestamps*: RFC 1323 timestamps option (default False: the HP-UX 10.20
      stacks of the FC measurements had none; HP's LAN/9000 manual dates
      RFC 1323 timestamps to HP-UX 10.30). Sent on the SYN (and on a SYN-ACK
      only if the peer's SYN carried it); once both SYNs did, every segment
      carries the 12-byte option, a full segment MSS - 12 data bytes (4.4BSD
      tcp_output ``if (len > t_maxseg - optlen) len = t_maxseg - optlen``;
      Lite2's tcp_mss() does not take the option off the MSS), and every ACK
      of new data is an RTT sample from the echoed timestamp (tcp_input).
    - *nodelay*: TCP_NODELAY, Nagle's algorithm (RFC 896) off (default False).

    Receiver (acknowledgements and window updates):

    - *delayed_ack*: delay ACKs of in-order data (default True, RFC 1122
      4.2.3.2). False: every data segment is acknowledged at once.
    - *delack_tick*: period of the host-wide fast timer, s (default 0.2: BSD
      ``tcp_fasttimo`` at PR_FASTHZ = 5). A delayed ACK leaves at the next tick
      of that clock, 0-200 ms after the data, not 200 ms after it.
    - *ack_every*: acknowledge at once when this many data segments are
      unacknowledged (default 2, RFC 1122 4.2.3.2 "at least every second
      full-sized segment"). 0: never at input, as 4.4BSD-Lite2, where only the
      window update of a read (tcp_output) or the fast timer sends the ACK.
    - *ack_full_sized_only*: count only segments of a full MSS toward
      *ack_every* (default True, RFC 1122 wording); False counts every data
      segment (FreeBSD's later DELAY_ACK).
    - *window_update_segments*: send a window update when the window can open
      by this many MSS (default 2.0, BSD tcp_output ``adv >= 2 * t_maxseg``).
    - *window_update_fraction*: ... or by this fraction of the receive buffer
      (default 0.5, BSD ``2 * adv >= sb_hiwat``; 4.3BSD-era derivatives and the
      XNS SPP code used 0.35).
    - *rcv_sws_fraction*: receiver SWS avoidance: advertise 0 while the free
      space is below this fraction of the buffer and below one MSS (default
      0.25, BSD tcp_output ``win < sb_hiwat / 4 && win < t_maxseg``; RFC 1122
      4.2.3.3 asks for min(1/2 buffer, MSS)).
    - *window_rule*: "4.4bsd" (default: the rules above) or "linux-2.4": the
      window offered, the ACKs after data and after reads and the window
      updates of Linux 2.4 (:mod:`fcsim.transport.linux`; the ACK and
      window-update fields above then do not apply).
    - *rx_truesize*: with the "linux-2.4" rule, the buffer memory each
      received segment takes until read (skb truesize), bytes (default 0).

    Sender:

    - *initial_cwnd_segments*: initial congestion window, MSS (default 1,
      BSD tcp_mss() ``snd_cwnd = mss``; RFC 2581 allows 2).
    - *slow_start_after_idle*: cwnd back to one MSS when the connection has
      been idle for an RTO (default True, BSD tcp_output).
    - *dupack_threshold*: duplicate ACKs that trigger fast retransmit
      (default 3, BSD tcprexmtthresh; RFC 2581 section 3.2).
    - *fast_recovery*: after a fast retransmit set cwnd to ssthresh + 3 MSS and
      inflate it per further duplicate ACK, deflating on the new ACK (default
      True: Reno, as 4.4BSD-Lite2 tcp_input). False: Tahoe, cwnd = 1 MSS.
    - *rto_initial*: retransmission timeout before any RTT sample, s
      (default 3.0, RFC 1122 4.2.3.1; BSD derives it from TCPTV_SRTTDFLT).
    - *rto_min*: lower bound of the RTO, s (default 1.0, BSD TCPTV_MIN = 2
      ticks of the 500 ms slow timer). fcsim runs the timers in continuous
      time rather than in 500 ms ticks.
    - *rto_max*: upper bound of the RTO, s (default 64.0, BSD TCPTV_REXMTMAX).
    - *max_retransmits*: timeouts of one segment before the connection is
      dropped (default 12, BSD TCP_MAXRXTSHIFT).
    - *persist_min*, *persist_max*: bounds of the persist (zero-window probe)
      interval, s (defaults 5.0 and 60.0, BSD TCPTV_PERSMIN/PERSMAX).
    """

    sndbuf: int
    rcvbuf: int
    mtu: int
    window_scaling: bool = True
    timestamps: bool = False
    nodelay: bool = False
    delayed_ack: bool = True
    delack_tick: float = 0.2
    ack_every: int = 2
    ack_full_sized_only: bool = True
    window_update_segments: float = 2.0
    window_update_fraction: float = 0.5
    rcv_sws_fraction: float = 0.25
    window_rule: str = "4.4bsd"
    rx_truesize: int = 0
    clamp_mss_to_sndbuf: bool = True
    round_buffers_to_mss: bool = True
    round_buffers_down: bool = False
    mclbytes: int = 2048
    sb_max: int = 262144
    sosend_chunk: int = 0
    send_lowat: int = 2048
    mbuf_accounting: bool = True
    initial_cwnd_segments: int = 1
    slow_start_after_idle: bool = True
    dupack_threshold: int = 3
    fast_recovery: bool = True
    rto_initial: float = 3.0
    rto_min: float = 1.0
    rto_max: float = 64.0
    max_retransmits: int = 12
    persist_min: float = 5.0
    persist_max: float = 60.0

    def __post_init__(self) -> None:
        if self.sndbuf < 1 or self.rcvbuf < 1:
            raise ValueError(f"socket buffers must be >= 1 byte, got {self.sndbuf}/{self.rcvbuf}")
        if self.mtu <= HEADER_BYTES:
            raise ValueError(f"mtu must exceed the {HEADER_BYTES} header bytes, got {self.mtu}")
        if self.delack_tick <= 0 or self.rto_min <= 0 or self.rto_initial <= 0:
            raise ValueError("delack_tick, rto_min and rto_initial must be > 0 s")
        if self.ack_every < 0 or self.dupack_threshold < 1 or self.initial_cwnd_segments < 1:
            raise ValueError("ack_every >= 0, dupack_threshold >= 1, initial_cwnd_segments >= 1")
        if self.sosend_chunk < 0 or self.send_lowat < 1 or self.mclbytes < 0:
            raise ValueError("sosend_chunk >= 0, send_lowat >= 1, mclbytes >= 0")
        if self.window_rule not in WINDOW_RULES or self.rx_truesize < 0:
            raise ValueError(f"window_rule must be one of {', '.join(WINDOW_RULES)} and "
                             f"rx_truesize >= 0, got {self.window_rule!r}/{self.rx_truesize}")

    @property
    def interface_mss(self) -> int:
        """The MSS this side offers in its SYN, bytes (tcp_mss() with no offer).

        ``mtu - 40``, rounded down to a multiple of *mclbytes* when above it;
        at most 65535, the option field's range.
        """
        mss = self.mtu - HEADER_BYTES
        if self.mclbytes and mss > self.mclbytes:
            mss -= mss % self.mclbytes
        return min(mss, MAX_WINDOW_FIELD)

    @property
    def window_shift(self) -> int:
        """The window-scale shift this side asks for (0 without *window_scaling*).

        The smallest shift with ``65535 << shift >= rcvbuf``, at most 14
        (4.4BSD tcp_input/tcp_usrreq request_r_scale loop).
        """
        if not self.window_scaling:
            return 0
        shift = 0
        while shift < MAX_WINDOW_SHIFT and (MAX_WINDOW_FIELD << shift) < self.rcvbuf:
            shift += 1
        return shift

    def negotiate(self, offer: int) -> Negotiated:
        """Apply 4.4BSD tcp_mss() to the peer's MSS option *offer*, bytes.

        MSS = min(interface MSS, offer), at least 32 bytes. Then, if
        SO_SNDBUF < MSS and *clamp_mss_to_sndbuf*, MSS = SO_SNDBUF; otherwise,
        with *round_buffers_to_mss*, SO_SNDBUF is rounded up (down with
        *round_buffers_down*) to a multiple of the MSS, and SO_RCVBUF too if
        it exceeds the MSS, each at most *sb_max*; a size ``sbreserve()``
        refuses (above ``sb_max * MCLBYTES / (MSIZE + MCLBYTES)``) leaves the
        buffer as it was (4.4BSD-Lite2
        tcp_input.c tcp_mss(), uipc_socket2.c sbreserve()).
        """
        mss = max(min(self.interface_mss, offer), 32)
        sndbuf, rcvbuf = self.sndbuf, self.rcvbuf
        if sndbuf < mss:
            if self.clamp_mss_to_sndbuf:
                mss = sndbuf
        elif self.round_buffers_to_mss:
            sndbuf = self._reserved(sndbuf, mss)
        if self.round_buffers_to_mss and rcvbuf > mss:
            rcvbuf = self._reserved(rcvbuf, mss)
        return Negotiated(mss, sndbuf, rcvbuf)

    def _reserved(self, size: int, mss: int) -> int:
        """tcp_mss()'s new size for a buffer of *size* bytes: rounded up (or,
        with *round_buffers_down*, down) to a multiple of *mss*, at most
        *sb_max*, if sbreserve() takes it, bytes."""
        cluster = self.mclbytes or MCLBYTES
        if self.round_buffers_down:
            wanted = min(size, self.sb_max) // mss * mss
        else:
            wanted = min(_roundup(size, mss), self.sb_max)
        return wanted if wanted <= self.sb_max * cluster // (MSIZE + cluster) else size


def _roundup(value: int, step: int) -> int:
    """*value* rounded up to a multiple of *step*."""
    return -(-value // step) * step


__all__ = ["MAX_WINDOW_SHIFT", "Negotiated", "TcpConfig", "WINDOW_RULES"]
