"""Linux 2.4 TCP: where its receive side differs from 4.4BSD-Lite2.

A host whose model names ``tcp_stack = "linux-2.4"`` runs the same TCP
(:mod:`fcsim.transport`) with the settings and the receive-window rules of
the Linux 2.4 kernels (2.4.27 sources: ``net/core/sock.c``,
``net/ipv4/tcp_input.c``, ``tcp_output.c``, ``tcp.c``, ``include/net/tcp.h``):

- ``setsockopt(SO_SNDBUF/SO_RCVBUF, w)`` caps w at ``net.core.wmem_max`` /
  ``rmem_max`` and stores ``2 w`` (sock.c: "if (val > sysctl_wmem_max) val =
  sysctl_wmem_max; ... sk->sndbuf = (val * 2)", at least SOCK_MIN_SNDBUF
  2048 / SOCK_MIN_RCVBUF 256), so iperf's ``-w w`` gives buffers of 2 w; the
  limits are the kernel's defaults for a host of 512 MB or more, 131071
  bytes (sk_init);
- the buffer counts memory, not data: every received segment is charged its
  buffer's *truesize* (skbuff.c ``skb->truesize = size + sizeof(struct
  sk_buff)``; a driver's receive buffer, :func:`e1000_truesize`), and the
  window is ``tcp_win_from_space(free) = free - free / 2^adv_win_scale``, 3/4
  of the free memory with ``tcp_adv_win_scale = 2`` (the 2.4 default);
- ``tcp_init_buffer_space``: the window never exceeds ``window_clamp``, the
  full space less one MSS reserved ("Force reservation of one segment") once
  the full space exceeds two MSS; ``rcv_ssthresh`` starts at the initial
  window (``tcp_select_initial_window``: the full space rounded down to whole
  MSS, at most 2 MSS above 4380-byte segments, 3 above 1460, 4 otherwise) and
  ``tcp_grow_window`` raises it by 2 MSS per data segment while the segment's
  truesize is small enough for its length (check #2: ``tcp_win_from_space(
  truesize) <= len``, else only while ``rcv_ssthresh`` is below half the full
  space, halving both again while the truesize test fails);
- ``__tcp_select_window``: the window offered is the free window capped at
  ``rcv_ssthresh``, rounded down to whole ``rcv_mss`` (the peer's segment size
  as measured, ``tcp_measure_rcv_mss``; it keeps the current offer while
  within one ``rcv_mss`` of it), 0 when less than one ``rcv_mss`` is free
  and less than half the full space, never shrinking what was offered;
- ACKs (``__tcp_ack_snd_check``): at once when more than one ``rcv_mss`` has
  arrived since the last ACK, in quick-ACK mode (the first segments of a
  connection: ``tcp_incr_quickack``, up to 16, as many as half the initial
  window holds; one more each time the window grows), otherwise delayed (the
  40 ms ``TCP_DELACK_MIN`` timer, modelled as the host's fast clock at 40 ms);
- a read (``tcp_cleanup_rbuf``) sends an ACK if one is owed and more than one
  ``rcv_mss`` is unacknowledged, or the read emptied the buffer of a short
  ("pushed") segment, or if the window can now at least double (when the
  current one is at most half the clamp); Linux sends no other pure window
  updates;
- initial congestion window 2 segments (``tcp_v4_init_sock``: ``snd_cwnd =
  2``), RTO at least 200 ms (``TCP_RTO_MIN = HZ/5``), MSS the MTU less 40
  bytes (no cluster rounding), less the 12-byte timestamps option when used
  (Linux asks for it by default, ``sysctl_tcp_timestamps = 1``: a Linux host
  model says so in its ``tcp_timestamps``).

Not modelled: the receive queue's pruning and collapsing when its truesize
exceeds the buffer (``tcp_prune_queue``), the prequeue that copies into a
waiting reader before the protocol's own accounting (the memory of a segment
is charged from its arrival to its read here), the send buffer's skb
overhead (data bytes count, up to 2 w), the sender's MSS bound of half the
largest window (``tcp_sync_mss``) and Linux's per-connection delayed-ACK timer
(adaptive ``ato``).
"""

from __future__ import annotations

from collections import deque
from dataclasses import replace

from fcsim.transport.tcp_config import WINDOW_RULES, TcpConfig

STACKS = WINDOW_RULES
"""TCP stacks a host model may name (``tcp_stack``)."""

LINUX_2_4 = "linux-2.4"
"""The Linux 2.4 stack's name."""

RMEM_MAX = WMEM_MAX = 131071
"""``net.core.rmem_max`` and ``wmem_max`` of a Linux 2.4 host with 512 MB or
more (sock.c sk_init: num_physpages >= 131072), bytes."""
SOCK_MIN_SNDBUF, SOCK_MIN_RCVBUF = 2048, 256
"""The least buffers setsockopt sets (include/net/sock.h), bytes."""
ADV_WIN_SCALE = 2
"""``sysctl_tcp_adv_win_scale`` default of Linux 2.4 (tcp_input.c)."""
MAX_QUICKACKS = 16
"""``TCP_MAX_QUICKACKS`` (include/net/tcp.h)."""
MIN_RCVMSS = 536
"""``TCP_MIN_RCVMSS``: the first estimate of the peer's segment size, bytes."""
MIN_MSS = 88
"""``TCP_MIN_MSS``: the least estimate of the peer's segment size, bytes."""
MAX_TCP_WINDOW = 32767
"""``MAX_TCP_WINDOW``: the largest initial window offered, bytes."""
SKB_OVERHEAD = 18 + 176
"""Bytes a receive buffer's truesize adds to the driver's buffer: the 16
bytes ``dev_alloc_skb`` reserves and 2 of alignment (e1000), and ``struct
sk_buff`` (about 176 bytes on i386 in 2.4; an estimate, it hardly matters
beside a 2-16 KiB buffer)."""
E1000_BUFFERS = (2048, 4096, 8192, 16384)
"""Receive buffer sizes the e1000 driver picks from (``E1000_RXBUFFER_*``), bytes."""


RX_BUFFERS = ("frame", "e1000")
"""How a host's NIC driver sizes its receive buffers (host model ``rx_buffers``)."""


def rx_truesize(mtu: int, buffers: str = "frame") -> int:
    """Memory a received frame's skb takes, bytes: with *buffers* "e1000"
    :func:`e1000_truesize`, with "frame" a buffer just holding the frame
    (MTU + 18 bytes), each rounded up to 32-byte cache lines, plus
    :data:`SKB_OVERHEAD`."""
    if buffers == "e1000":
        return e1000_truesize(mtu)
    return -(-(mtu + 18 + 18) // 32) * 32 + SKB_OVERHEAD - 18


def e1000_truesize(mtu: int) -> int:
    """Memory a received frame's skb takes with the e1000 driver, bytes: the
    smallest of :data:`E1000_BUFFERS` holding the frame (MTU + 18 bytes of
    header and FCS; e1000_change_mtu, driver 5.2.52 of Linux 2.4.27), rounded
    up to 32-byte cache lines (SKB_DATA_ALIGN), plus :data:`SKB_OVERHEAD`."""
    frame = mtu + 18
    buffer = next((b for b in E1000_BUFFERS if frame <= b), E1000_BUFFERS[-1])
    return -(-(buffer + 18) // 32) * 32 + SKB_OVERHEAD - 18


def win_from_space(space: int) -> int:
    """``tcp_win_from_space``: the window a buffer's free memory allows, bytes."""
    return space - (space >> ADV_WIN_SCALE)


def linux_2_4(config: TcpConfig, truesize: int) -> TcpConfig:
    """*config* (socket options as given to setsockopt) as Linux 2.4 applies
    it, each received segment charged *truesize* bytes of buffer memory."""
    sndbuf = max(2 * min(config.sndbuf, WMEM_MAX), SOCK_MIN_SNDBUF)
    rcvbuf = max(2 * min(config.rcvbuf, RMEM_MAX), SOCK_MIN_RCVBUF)
    return replace(config, sndbuf=sndbuf, rcvbuf=rcvbuf,
                   window_rule=LINUX_2_4, rx_truesize=truesize, mclbytes=0,
                   clamp_mss_to_sndbuf=False, round_buffers_to_mss=False,
                   mbuf_accounting=False, sb_max=max(config.sb_max, sndbuf, rcvbuf),
                   initial_cwnd_segments=2, rto_min=0.2, delack_tick=0.04)


class LinuxReceiveWindow:
    """The Linux 2.4 receive window of one connection: its clamp,
    ``rcv_ssthresh``, the measured ``rcv_mss``, the memory of unread segments
    and the quick-ACK count (see the module's docstring). Sizes in bytes."""

    __slots__ = ("rcvbuf", "truesize", "advmss", "clamp", "ssthresh", "initial", "rcv_mss",
                 "last_seg", "quick", "pushed", "rmem", "_unread")

    def __init__(self, rcvbuf: int, truesize: int) -> None:
        self.rcvbuf, self.truesize = rcvbuf, truesize
        self.advmss = self.clamp = self.ssthresh = self.initial = 0
        self.rcv_mss = MIN_RCVMSS
        self.last_seg = 0
        self.quick = 0
        self.pushed = False
        self.rmem = 0
        """Memory of the segments not yet read (``rmem_alloc``)."""
        self._unread: deque[list[int]] = deque()

    @property
    def full_space(self) -> int:
        """``tcp_full_space``: the window the whole buffer allows."""
        return win_from_space(self.rcvbuf)

    @property
    def free_space(self) -> int:
        """``tcp_space``: the window the free memory allows."""
        return win_from_space(self.rcvbuf - self.rmem)

    def established(self, advmss: int) -> int:
        """Set the clamp, ``rcv_ssthresh``, ``rcv_mss`` and quick ACKs for
        segments of *advmss* data bytes (tcp_select_initial_window,
        tcp_init_buffer_space, tcp_initialize_rcv_mss, tcp_incr_quickack);
        returns the initial window, bytes (also kept as *initial*)."""
        self.advmss = advmss
        space = self.full_space
        initial = min((space // advmss) * advmss if space > advmss else space, MAX_TCP_WINDOW)
        segments = 2 if advmss > 3 * 1460 else 3 if advmss > 1460 else 4
        initial = min(initial, segments * advmss)
        clamp = space
        if clamp > 2 * advmss and clamp + advmss > space:
            clamp = max(2 * advmss, space - advmss)
        self.clamp = clamp
        self.ssthresh = min(initial, clamp)
        self.rcv_mss = max(min(advmss, initial // 2, MIN_RCVMSS), MIN_MSS)
        self.quick = min(MAX_QUICKACKS, initial // (2 * self.rcv_mss) or 2)
        self.initial = initial
        return initial

    def data(self, length: int) -> None:
        """An in-order segment of *length* data bytes has joined the buffer:
        measure ``rcv_mss`` (tcp_measure_rcv_mss), charge its memory, grow
        ``rcv_ssthresh`` (tcp_grow_window, for segments of 128 bytes or more)."""
        last, self.last_seg = self.last_seg, 0
        if length >= self.rcv_mss:
            self.rcv_mss = length
        elif length >= MIN_RCVMSS + 20 - 32:  # whole segment of 556 bytes with a 32-byte header
            self.last_seg = length
            if length == last:
                self.rcv_mss = length
            else:
                self.pushed = True
        else:
            self.pushed = True
        self.rmem += self.truesize
        self._unread.append([length, self.truesize])
        if length >= 128 and self.ssthresh < self.clamp and self.ssthresh < self.free_space:
            if win_from_space(self.truesize) <= length:
                grow = 2 * self.advmss
            else:
                grow = self._slow_grow(length)
            if grow:
                self.ssthresh = min(self.ssthresh + grow, self.clamp)
                self.quick = max(self.quick, 1)

    def _slow_grow(self, length: int) -> int:
        """``__tcp_grow_window``: 2 ``rcv_mss`` while the halved truesize
        test passes below the halved full space, else 0."""
        truesize = win_from_space(self.truesize) // 2
        window = self.full_space // 2
        while self.ssthresh <= window:
            if truesize <= length:
                return 2 * self.rcv_mss
            truesize >>= 1
            window >>= 1
        return 0

    def read(self, nbytes: int) -> bool:
        """The reader took *nbytes*; free the memory of segments read whole.
        True if the buffer is now empty."""
        unread = self._unread
        while nbytes > 0 and unread:
            head = unread[0]
            if head[0] > nbytes:
                head[0] -= nbytes
                break
            nbytes -= head[0]
            self.rmem -= head[1]
            unread.popleft()
        return not unread

    def window(self, last: int) -> int:
        """``__tcp_select_window``, *last* the size of the window advertised
        with the last ACK (``rcv_wnd``); the caller keeps the offer from
        shrinking."""
        full = min(self.clamp, self.full_space)
        mss = min(self.rcv_mss, full)
        free = self.free_space
        if free < full // 2:
            self.quick = 0
            if free < mss:
                return 0
        free = min(free, self.ssthresh)
        if last <= free - mss or last > free:
            return (free // mss) * mss
        return last

    def ack_now(self, unacked: int, last: int) -> bool:
        """After in-order data: ACK at once rather than delay it (quick-ACK
        mode, or more than one ``rcv_mss`` since the last ACK, *unacked*
        bytes, unless the window would fall below the *last* one advertised)."""
        if self.quick:
            self.quick -= 1
            return True
        return unacked > self.rcv_mss and self.window(last) >= last

    def read_ack(self, owed: bool, unacked: int, emptied: bool, offered: int,
                 last: int) -> bool:
        """After a read: whether tcp_cleanup_rbuf sends an ACK (*owed*: a
        delayed ACK is pending; *unacked*: bytes since the last ACK;
        *emptied*: the read emptied the buffer; *offered*: the window still
        open beyond rcv_nxt; *last*: the size advertised with the last ACK)."""
        if owed and (unacked > self.rcv_mss or self.pushed and emptied):
            self.pushed = False
            return True
        if 2 * offered <= self.clamp:
            new = self.window(last)
            return bool(new) and new >= 2 * offered
        return False


__all__ = ["ADV_WIN_SCALE", "E1000_BUFFERS", "LINUX_2_4", "LinuxReceiveWindow", "RX_BUFFERS",
           "STACKS", "e1000_truesize", "linux_2_4", "rx_truesize", "win_from_space"]
