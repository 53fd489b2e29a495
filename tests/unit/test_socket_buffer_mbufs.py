"""Socket buffers with 4.4BSD mbuf accounting: the mbufs a segment or a write
occupies, sbspace(), and what the limit does to the windows of a connection.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from fcsim.engine.simulation import Simulation
from fcsim.transport import TcpConfig
from fcsim.transport.segment import SYN
from fcsim.transport.sockbuf import (
    MCLBYTES,
    MHLEN,
    MINCLSIZE,
    MLEN,
    MSIZE,
    SocketBuffer,
    received_chain,
)
from tests.unit.test_tcp import Wire, Writer, drop_first, transfer

CLUSTER = MSIZE + MCLBYTES
"""Charge of an mbuf with a cluster, bytes."""


def test_constants_are_those_of_a_32_bit_4_4bsd():
    assert (MSIZE, MLEN, MHLEN, MINCLSIZE, MCLBYTES) == (128, 108, 100, 208, 2048)


@pytest.mark.parametrize(("length", "chain"), [
    # one small mbuf, the datagram max_linkhdr = 16 bytes into the packet-header mbuf:
    # data start 8 + 16 + 40 = 64 bytes into m_dat, so 108 - 64 - length bytes remain
    (1, [(1, 43, MSIZE)]),
    (16, [(16, 28, MSIZE)]),
    (44, [(44, 0, MSIZE)]),
    (45, [(45, 15, MSIZE)]),  # 85 + 16 > MHLEN: no room left for the link header
    (100, [(60, 0, MSIZE), (40, 68, MSIZE)]),  # 140 bytes: MHLEN, then an mbuf of MLEN
    (167, [(60, 0, MSIZE), (107, 1, MSIZE)]),  # 207 bytes: just below MINCLSIZE
    (168, [(168, -1, CLUSTER)]),  # 208 bytes: a cluster
    (256, [(256, -1, CLUSTER)]),
    (2008, [(2008, -1, CLUSTER)]),
    (2009, [(2008, -1, CLUSTER), (1, 107, MSIZE)]),
    (4096, [(2008, -1, CLUSTER), (2048, -1, CLUSTER), (40, 68, MSIZE)]),
])
def test_received_segment_mbufs(length: int, chain: list[tuple[int, int, int]]):
    assert list(received_chain(length)) == chain


@pytest.mark.parametrize(("length", "mbcnt"), [
    (1, 128), (16, 128), (256, 2176), (1460, 2176), (4096, 4480), (32768, 16 * 2176 + 128),
    (63488, 31 * 2176 + 128),
])
def test_one_received_segment_charges(length: int, mbcnt: int):
    sb = SocketBuffer(262144, 262144)
    sb.append_received(length)
    assert (sb.cc, sb.mbcnt) == (length, mbcnt)


def test_sbreserve_allows_twice_the_buffer_in_mbufs_up_to_sb_max():
    assert SocketBuffer(32768, 262144).mbmax == 65536
    assert SocketBuffer(262144, 262144).mbmax == 262144
    sb = SocketBuffer(8192, 262144)
    sb.reserve(131072)
    assert (sb.hiwat, sb.mbmax, sb.space) == (131072, 262144, 131072)


@pytest.mark.parametrize(("length", "per_mbuf"), [(1, 43), (16, 2), (44, 1)])
def test_sbcompress_packs_small_segments_into_the_last_mbuf(length: int, per_mbuf: int):
    sb = SocketBuffer(65536, 262144)
    for _ in range(10 * per_mbuf):
        sb.append_received(length)
    assert (sb.mbufs, sb.mbcnt) == (10, 10 * MSIZE)


def test_clusters_are_never_compressed_into():
    sb = SocketBuffer(65536, 262144)
    for _ in range(3):
        sb.append_received(256)
    sb.append_received(1)  # no room after a cluster
    assert (sb.mbufs, sb.mbcnt) == (4, 3 * CLUSTER + MSIZE)


@pytest.mark.parametrize(("length", "segments"), [(1, 43990), (16, 2047), (256, 61)])
def test_tiny_segments_use_up_the_mbufs_long_before_the_bytes(length: int, segments: int):
    # 64 KB buffer: sb_mbmax = 128 KB = 1024 small mbufs or 60 clusters.
    sb = SocketBuffer(65536, 262144)
    for n in range(1, segments + 1):
        assert sb.space > 0, n
        sb.append_received(length)
    assert sb.space <= 0
    assert sb.hiwat - sb.cc > 0  # bytes alone would still leave a window


def test_reading_frees_whole_mbufs_only():
    sb = SocketBuffer(65536, 262144)
    for _ in range(4):
        sb.append_received(256)
    sb.drop(255)
    assert (sb.cc, sb.mbcnt) == (769, 4 * CLUSTER)
    sb.drop(1)
    assert (sb.cc, sb.mbcnt) == (768, 3 * CLUSTER)
    sb.drop(768)
    assert (sb.cc, sb.mbcnt, sb.mbufs, sb.space) == (0, 0, 0, 65536)


def test_trimmed_segments_keep_the_mbufs_they_arrived_in():
    sb = SocketBuffer(65536, 262144)
    sb.append_received(100, skip=30)  # 30 duplicate bytes cut from the front (m_adj)
    assert (sb.cc, sb.mbcnt, sb.mbufs) == (70, 2 * MSIZE, 2)
    sb.append_received(67)  # the second mbuf, 40 bytes, still has 68 free
    assert (sb.mbufs, sb.mbcnt) == (2, 2 * MSIZE)
    clusters = SocketBuffer(65536, 262144)
    clusters.append_received(4096, skip=2008, count=10)  # bytes of the second cluster only
    assert (clusters.cc, clusters.mbcnt) == (10, CLUSTER)
    tail = SocketBuffer(65536, 262144)
    tail.append_received(100, count=50)  # tail cut: the second mbuf emptied and freed
    assert (tail.cc, tail.mbufs) == (50, 1)
    tail.append_received(9)  # the 10 bytes cut are room again
    assert (tail.cc, tail.mbufs) == (59, 1)


def test_sbcompress_copies_data_out_of_a_cluster_into_room_before_it():
    sb = SocketBuffer(65536, 262144)
    sb.append_received(100)  # last mbuf: 40 bytes, 68 free
    sb.append_received(4096, skip=2008, count=10)  # 10 bytes in a cluster: copied, freed
    assert (sb.cc, sb.mbcnt, sb.mbufs) == (110, 2 * MSIZE, 2)


def test_sosend_puts_writes_of_minclsize_or_more_in_a_cluster_each():
    sb = SocketBuffer(32768, 262144)
    assert sb.append_written(1024, sb.space) == MCLBYTES  # counted as MCLBYTES by sosend
    assert sb.append_written(207, sb.space) == 207  # small mbufs of MHLEN
    assert (sb.cc, sb.mbcnt, sb.mbufs) == (1231, CLUSTER + 3 * MSIZE, 4)
    for _ in range(92):  # 1-byte writes fill the last mbuf but for its last byte
        sb.append_written(1, sb.space)
    assert (sb.mbufs, sb.mbcnt) == (4, CLUSTER + 3 * MSIZE)
    sb.append_written(1, sb.space)
    assert sb.mbufs == 5


def test_sosend_uses_small_mbufs_when_less_than_a_cluster_is_free():
    sb = SocketBuffer(32768, 262144)
    assert sb.append_written(1000, 1500) == 1000
    assert (sb.mbufs, sb.mbcnt) == (10, 10 * MSIZE)


def test_accounting_off_counts_bytes_only():
    sb = SocketBuffer(65536, 262144, accounting=False)
    for _ in range(1000):
        sb.append_received(1)
    assert (sb.cc, sb.mbcnt, sb.space) == (1000, 0, 64536)
    assert sb.append_written(1024, sb.space) == 1024


# -- a connection -------------------------------------------------------------------------


SMALL = TcpConfig(sndbuf=65536, rcvbuf=65536, mtu=1500, nodelay=True,
                  round_buffers_to_mss=False)
"""64 KB buffers kept at 65536 bytes (no rounding to the 1460-byte MSS)."""


def _trickle(cfg: TcpConfig, msg: int, until: float) -> tuple[Simulation, Wire]:
    """A *msg*-byte write from a every 100 us to b, which does not read; run to *until* s.

    b acknowledges every second segment whatever its size, so a is never held by
    its congestion window and each write leaves as a segment of its own.
    """
    sim = Simulation()
    w = Wire(sim, cfg, replace(cfg, ack_full_sized_only=False))

    def write(_event: object = None) -> None:
        w.a.write(msg, lambda: sim.call_later(100e-6, write))

    w.b.open_passive()
    w.a.open_active("b", connected=write)
    sim.run(until)
    return sim, w


def test_tiny_segments_close_the_window_and_only_freed_mbufs_reopen_it():
    # 16-byte segments, two per mbuf: the 64 KB window the receiver offered while
    # empty fills 2048 mbufs, 256 KB, twice sb_mbmax. The mbuf limit cannot take back
    # a window already offered (tcp_output never shrinks it); it stops the window from
    # moving on, and keeps it shut until the reads have freed enough mbufs.
    sim, w = _trickle(SMALL, 16, 1.0)
    b = w.b
    assert b.tcb.unread == 65536 and b.tcb.rcv_wnd == 0
    assert b.tcb.so_rcv.mbcnt == 2048 * MSIZE and b.tcb.so_rcv.space == 131072 - 2048 * MSIZE
    updates = b.counters.window_updates
    got: list[int] = []
    b.read(32768, got.append)  # half the bytes read: 1024 mbufs freed, still sb_mbmax
    sim.run(sim.now + 0.5)
    assert got == [32768] and b.tcb.so_rcv.space == 0
    assert b.tcb.rcv_wnd == 0 and b.counters.window_updates == updates
    b.read(32768, got.append)  # all read: every mbuf free, a window update reopens it
    assert b.tcb.so_rcv.mbcnt == 0 and b.tcb.rcv_wnd == 65536
    assert b.counters.window_updates == updates + 1
    sim.run(sim.now + 0.1)
    assert got == [32768, 32768] and b.tcb.unread > 0  # the sender has resumed


def test_without_accounting_the_same_flood_reopens_on_a_half_read():
    sim, w = _trickle(replace(SMALL, mbuf_accounting=False), 16, 1.0)
    b = w.b
    assert b.tcb.unread == 65536 and b.tcb.rcv_wnd == 0
    updates = b.counters.window_updates
    b.read(32768, lambda n: None)
    assert b.tcb.rcv_wnd == 32768 and b.counters.window_updates == updates + 1


def test_a_send_buffer_of_clusters_holds_fewer_small_writes():
    # b never acknowledges: a's writer blocks when sbspace(so_snd) < SO_SNDLOWAT.
    # 1 KB writes take a cluster each: 30 of them use 65280 of sb_mbmax = 65536 bytes.
    cfg = TcpConfig(sndbuf=32768, rcvbuf=32768, mtu=1500, nodelay=True,
                    round_buffers_to_mss=False)
    sim = Simulation()
    w = Wire(sim, cfg, cfg, drop=lambda seg: seg.src == "b" and not seg.flags & SYN)
    writer = Writer(w.a, 1024)
    w.b.open_passive()
    w.a.open_active("b", connected=writer.start)
    sim.run(0.5)
    assert w.a.tcb.sb_cc == 30 * 1024
    assert w.a.tcb.so_snd.mbcnt == 30 * CLUSTER


def test_a_lossy_transfer_frees_every_mbuf():
    # Out-of-order segments wait in the reassembly queue; their mbufs join the buffer
    # once the gap is filled, and every one is freed when the data is read.
    cfg = TcpConfig(sndbuf=65536, rcvbuf=65536, mtu=1500, nodelay=True)
    total = 200_000
    w, _, reader = transfer(cfg, cfg, total, 3000, 65536, until=30.0,
                            drop=drop_first(lambda seg: seg.src == "a" and seg.seq > 20000, 3))
    assert reader.total == total and reader.eof_at is not None
    assert w.a.counters.retransmitted_segments >= 1
    for sb in (w.a.tcb.so_snd, w.b.tcb.so_rcv):
        assert (sb.cc, sb.mbcnt, sb.mbufs) == (0, 0, 0)


@pytest.mark.parametrize(("msg", "per_tick"), [(256, 123 * 256), (1024, 121 * 1024)])
def test_small_writes_fill_a_256k_send_buffer_below_the_update_threshold(
        msg: int, per_tick: int):
    # Each write of 208 bytes or more takes a cluster (2176 bytes of sb_mbmax = 262144),
    # so the send buffer holds 120 of them and a few small mbufs: less than the 2 MSS
    # (126976 bytes) the receiver must read before it sends a window update. Every round
    # waits for the receiver's 200 ms delayed-ACK tick (docs/tcp.md, delayed-ACK deadlocks).
    big = TcpConfig(sndbuf=262144, rcvbuf=262144, mtu=65280, nodelay=True)
    w, _, reader = transfer(big, big, None, msg, 262144, until=2.0, rate=25e6)
    assert sum(n for t, n in reader.reads if 1.0 <= t < 2.0) == 5 * per_tick
    assert w.b.counters.delayed_acks >= 9
    without = replace(big, mbuf_accounting=False)
    _, _, reader = transfer(without, without, None, msg, 262144, until=0.3, rate=25e6)
    assert reader.total > 10 * per_tick  # counted in bytes only, no stall
