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
  model says so in its ``tcp_timestamps``);
- receive memory (tcp_input.c ``tcp_rcv_established``, ``tcp_data_queue``,
  ``tcp_prune_queue``, ``tcp_clamp_window``, ``tcp_collapse``; tcp.c
  ``tcp_mem_schedule``; include/net/tcp.h ``tcp_set_owner_r``,
  ``tcp_fast_path_check``, ``tcp_mem_reclaim``): a segment charges its
  truesize to ``rmem_alloc`` and takes it from the socket's
  ``forward_alloc``, which grows by whole pages (``TCP_MEM_QUANTUM``) when
  short and by each buffer a read frees, and is trimmed below a page by
  ``tcp_mem_reclaim`` (at a prune and when the delayed-ACK timer runs). A
  segment on the header-prediction fast path is queued without any look at
  the buffer while its truesize fits in ``forward_alloc``; on the slow path,
  when ``rmem_alloc`` exceeds ``rcvbuf``, ``tcp_prune_queue`` runs first:
  ``tcp_clamp_window`` (when ``rmem_alloc >= rcvbuf``: the clamp falls to the
  unread data, halved when the memory is twice the buffer, less one
  ``rcv_mss``, at least 2 ``advmss``; ``rcv_ssthresh`` to ``min(clamp, 2
  advmss)``) and ``tcp_collapse`` of the unread data from the first buffer
  that is bloated (``tcp_win_from_space(truesize) > len``) or partly read,
  copied into new buffers of at most :func:`collapse_chunk` bytes, each
  charged :func:`collapsed_truesize`; if the memory still exceeds the buffer
  the segment is dropped (:meth:`LinuxReceiveWindow.arrive` returns False).
  Header prediction is off after a zero window is offered, an out-of-order
  segment or a failed prune, and back on when in-order data on the slow path
  leave a window open and the memory below the buffer.

The receive buffer's own tuning does not apply: ``tcp_fixup_rcvbuf`` and
``tcp_clamp_window``'s growth of ``rcvbuf`` for out-of-order data only touch
a socket whose SO_RCVBUF was never set (setsockopt sets
``SOCK_RCVBUF_LOCK``, sock.c, as every iperf ``-w`` and netperf ``-s``
socket here has it), and 2.4.27's ``tcp_rcv_space_adjust`` grows
``rcvbuf`` only with ``sysctl_tcp_moderate_rcvbuf``, 0 by default.

Not modelled: the prequeue that copies into a waiting reader before the
protocol's own accounting (the memory of a segment is charged from its
arrival to its read here; include/net/tcp.h ``tcp_prequeue`` hands its
queue to the protocol at once when the queue's truesize exceeds ``rcvbuf``,
as one 16 KiB e1000 buffer does below ``-w`` 8 KiB), out-of-order segments' memory (charged when
they come in order, never pruned while they wait),
the global ``tcp_mem`` limits (a few sockets a host stay far below
``tcp_mem[0]``), the send buffer's skb overhead (data bytes count, up to 2
w) and Linux's per-connection delayed-ACK timer (adaptive ``ato``).
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
SKB_STRUCT = 176
"""``sizeof(struct sk_buff)`` on i386 in 2.4, bytes (an estimate, as in
:data:`SKB_OVERHEAD`)."""
SKB_OVERHEAD = 18 + SKB_STRUCT
"""Bytes a receive buffer's truesize adds to the driver's buffer: the 16
bytes ``dev_alloc_skb`` reserves and 2 of alignment (e1000), and ``struct
sk_buff`` (about 176 bytes on i386 in 2.4; an estimate, it hardly matters
beside a 2-16 KiB buffer)."""
SKB_SHARED_INFO = 3 * 4 + 6 * 8
"""``sizeof(struct skb_shared_info)`` on i386 in 2.4.27 (include/linux/skbuff.h:
``dataref``, ``nr_frags``, ``frag_list``, ``MAX_SKB_FRAGS`` = 6 frags of a
page pointer and two 16-bit fields), bytes."""
CACHE_LINE = 32
"""``SMP_CACHE_BYTES`` of a Pentium III: ``SKB_DATA_ALIGN`` rounds to it, bytes."""
PAGE_SIZE = 4096
"""i386 ``PAGE_SIZE``: ``TCP_MEM_QUANTUM`` and the page ``tcp_collapse`` fills, bytes."""
RX_HEADROOM = 16 + 2 + 14 + 20 + 20
"""Headroom of a received TCP segment's buffer once its headers are pulled,
less its TCP options, bytes: ``dev_alloc_skb``'s 16, the e1000's 2 of
alignment, the Ethernet, IP and TCP headers (``tcp_collapse`` copies it,
``skb_headroom``)."""
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


def collapse_chunk(headroom: int) -> int:
    """Data bytes ``tcp_collapse`` copies into one new buffer: a page less the
    skb, its shared info, the *headroom* and 31 bytes of alignment, in
    16-byte steps (``copy = (PAGE_SIZE - sizeof(struct sk_buff) -
    sizeof(struct skb_shared_info) - header - 31) & ~15``)."""
    return (PAGE_SIZE - SKB_STRUCT - SKB_SHARED_INFO - headroom - 31) & ~15


def collapsed_truesize(data: int, headroom: int) -> int:
    """Truesize of a buffer ``tcp_collapse`` made for *data* bytes:
    ``alloc_skb(copy + header)`` charges ``SKB_DATA_ALIGN(size) +
    sizeof(struct sk_buff)`` (skbuff.c)."""
    return -(-(data + headroom) // CACHE_LINE) * CACHE_LINE + SKB_STRUCT


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
                 "last_seg", "quick", "pushed", "rmem", "forward", "fast", "headroom",
                 "collapsed", "_unread")

    def __init__(self, rcvbuf: int, truesize: int) -> None:
        self.rcvbuf, self.truesize = rcvbuf, truesize
        self.advmss = self.clamp = self.ssthresh = self.initial = 0
        self.rcv_mss = MIN_RCVMSS
        self.last_seg = 0
        self.quick = 0
        self.pushed = False
        self.rmem = 0
        """Memory of the segments not yet read (``rmem_alloc``)."""
        self.forward = 0
        """Memory scheduled for the socket and not yet charged (``forward_alloc``)."""
        self.fast = True
        """Header prediction is on (``pred_flags`` set)."""
        self.headroom = RX_HEADROOM
        """Headroom of a received segment's buffer (``skb_headroom``)."""
        self.collapsed = 0
        """Buffers ``tcp_collapse`` has released (the ``TCPRcvCollapsed`` count)."""
        self._unread: deque[list[int]] = deque()
        """Unread buffers, oldest first: [bytes unread, truesize, ``skb->len``]."""

    @property
    def full_space(self) -> int:
        """``tcp_full_space``: the window the whole buffer allows."""
        return win_from_space(self.rcvbuf)

    @property
    def free_space(self) -> int:
        """``tcp_space``: the window the free memory allows."""
        return win_from_space(self.rcvbuf - self.rmem)

    def established(self, advmss: int, options: int = 0) -> int:
        """Set the clamp, ``rcv_ssthresh``, ``rcv_mss`` and quick ACKs for
        segments of *advmss* data bytes and *options* bytes of TCP options
        (tcp_select_initial_window, tcp_init_buffer_space,
        tcp_initialize_rcv_mss, tcp_incr_quickack); returns the initial
        window, bytes (also kept as *initial*)."""
        self.advmss = advmss
        self.headroom = RX_HEADROOM + options
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

    def arrive(self, length: int, rcv_wnd: int) -> bool:
        """An in-order segment of *length* data bytes arrives, *rcv_wnd* the
        window offered with the last ACK: queue it (:meth:`data`) and return
        True, or return False if it must be dropped. On the fast path
        (header prediction on and its truesize within ``forward_alloc``) it
        is queued as it is; on the slow path ``tcp_data_queue`` first prunes
        the queue if the memory exceeds the buffer, drops the segment if that
        did not bring it within, and turns header prediction back on
        (``tcp_fast_path_check``) if the window is open and the memory below
        the buffer."""
        if self.fast and self.truesize <= self.forward:
            self.data(length)
            return True
        if self.rmem > self.rcvbuf and not self.prune():
            return False
        self._schedule()
        self.data(length)
        if rcv_wnd and self.rmem < self.rcvbuf:
            self.fast = True
        return True

    def _schedule(self) -> None:
        """``tcp_rmem_schedule``: whole pages into ``forward_alloc`` when a
        segment's truesize exceeds it (``tcp_mem_schedule``; the global
        ``tcp_mem`` limits are not reached)."""
        if self.truesize > self.forward:
            self.forward += -(-self.truesize // PAGE_SIZE) * PAGE_SIZE

    def prune(self) -> bool:
        """``tcp_prune_queue``: clamp the window if the memory has reached the
        buffer, collapse the unread data, reclaim ``forward_alloc``; True if
        the memory is now within the buffer (else header prediction goes
        off and the arriving segment is dropped)."""
        if self.rmem >= self.rcvbuf:
            self._clamp_window()
        self._collapse()
        self.reclaim()
        if self.rmem <= self.rcvbuf:
            return True
        self.fast = False
        return False

    def _clamp_window(self) -> None:
        """``tcp_clamp_window`` with no out-of-order data: leave quick-ACK
        mode; if the memory exceeds the buffer, clamp the window to the
        unread data (halved when the memory is twice the buffer), less one
        ``rcv_mss``, at least 2 ``advmss``, and ``rcv_ssthresh`` to the clamp
        or 2 ``advmss``, the smaller."""
        self.quick = 0
        if self.rmem > self.rcvbuf:
            app_win = sum(entry[0] for entry in self._unread)
            if self.rmem >= 2 * self.rcvbuf:
                app_win >>= 1
            if app_win > self.rcv_mss:
                app_win -= self.rcv_mss
            app_win = max(app_win, 2 * self.advmss)
            self.clamp = min(self.clamp, app_win)
            self.ssthresh = min(self.clamp, 2 * self.advmss)

    def _collapse(self) -> None:
        """``tcp_collapse`` of the receive queue from ``copied_seq`` to
        ``rcv_nxt``: skip the buffers that are whole, unread and not bloated
        (``tcp_win_from_space(truesize) <= len``); from the first other one
        on, copy all the unread data into new buffers of
        :func:`collapse_chunk` bytes, the last holding the rest, and free
        the old ones (their memory back to ``forward_alloc``, which the new
        ones are charged to as they are, ``tcp_set_owner_r``)."""
        unread = self._unread
        skip = 0
        for entry in unread:
            if entry[0] < entry[2] or win_from_space(entry[1]) > entry[2]:
                break
            skip += 1
        if skip == len(unread):
            return
        kept = [unread.popleft() for _ in range(skip)]
        data = 0
        while unread:
            entry = unread.popleft()
            data += entry[0]
            self.rmem -= entry[1]
            self.forward += entry[1]
            self.collapsed += 1
        chunk = collapse_chunk(self.headroom)
        while data > 0:
            size = min(chunk, data)
            truesize = collapsed_truesize(size, self.headroom)
            self.rmem += truesize  # tcp_set_owner_r, no scheduling
            self.forward -= truesize
            unread.append([size, truesize, size])
            data -= size
        unread.extendleft(reversed(kept))

    def reclaim(self) -> None:
        """``tcp_mem_reclaim``: give whole pages of ``forward_alloc`` back."""
        if self.forward >= PAGE_SIZE:
            self.forward &= PAGE_SIZE - 1

    def zero_window(self) -> None:
        """A zero window was offered: header prediction off (tcp_select_window)."""
        self.fast = False

    def out_of_order(self) -> None:
        """An out-of-order segment arrived: header prediction off (tcp_data_queue)."""
        self.fast = False

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
        self.forward -= self.truesize
        self._unread.append([length, self.truesize, length])
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
            self.forward += head[1]  # tcp_rfree
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
           "STACKS", "collapse_chunk", "collapsed_truesize", "e1000_truesize", "linux_2_4",
           "rx_truesize", "win_from_space"]
