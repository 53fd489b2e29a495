"""Linux 2.4 TCP (fcsim.transport.linux): setsockopt's doubled buffers, the
e1000's receive buffers, the receive window and the receive memory worked by
hand from the 2.4.27 sources (tcp_select_initial_window,
tcp_init_buffer_space, tcp_grow_window, __tcp_select_window,
__tcp_ack_snd_check, tcp_cleanup_rbuf, tcp_rcv_established, tcp_data_queue,
tcp_prune_queue, tcp_clamp_window, tcp_collapse, tcp_mem_schedule)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fcsim.build import build_hosts
from fcsim.engine.simulation import Simulation
from fcsim.ethernet.build import build_ethernet
from fcsim.host.host_model import HostModel
from fcsim.scenario.loader import load_scenario
from fcsim.transport.linux import (
    PAGE_SIZE,
    RMEM_MAX,
    RX_HEADROOM,
    LinuxReceiveWindow,
    collapse_chunk,
    collapsed_truesize,
    e1000_truesize,
    linux_2_4,
    rx_truesize,
    win_from_space,
)
from fcsim.transport.segment import HEADER_BYTES, TIMESTAMP_OPTION_BYTES
from fcsim.transport.tcp_config import TcpConfig
from fcsim.validation.checks import das2
from tests.unit.test_tcp import Reader, Wire, Writer

ROOT = Path(__file__).resolve().parents[2]
JUMBO_DATA = 9000 - 40 - 12  # MSS less the timestamps option: 8948 bytes a segment
TRUESIZE = e1000_truesize(9000)
TIMESTAMPS = 12
# 16 + 2 + 14 + 20 + 32: dev_alloc_skb, e1000, Ethernet, IP, TCP
HEADROOM = RX_HEADROOM + TIMESTAMPS


def test_e1000_buffers_follow_the_mtu() -> None:
    # 16 KiB buffers for a 9018-byte frame, 2 KiB for a standard one (e1000_change_mtu),
    # each rounded to 32-byte lines, plus the skb's own bytes
    assert TRUESIZE == 16416 + 176
    assert e1000_truesize(1500) == 2080 + 176
    assert rx_truesize(9000, "e1000") == TRUESIZE
    assert rx_truesize(9000) == 9056 + 176  # a buffer just the frame's size


def test_setsockopt_doubles_the_buffers_up_to_rmem_max() -> None:
    config = linux_2_4(TcpConfig(sndbuf=32768, rcvbuf=32768, mtu=9000), TRUESIZE)
    assert (config.sndbuf, config.rcvbuf) == (65536, 65536)
    assert config.interface_mss == 8960  # MTU - 40, no cluster rounding
    assert config.initial_cwnd_segments == 2 and config.rto_min == 0.2
    capped = linux_2_4(TcpConfig(sndbuf=262144, rcvbuf=262144, mtu=9000), TRUESIZE)
    assert capped.rcvbuf == 2 * RMEM_MAX
    tiny = linux_2_4(TcpConfig(sndbuf=100, rcvbuf=100, mtu=9000), TRUESIZE)
    assert (tiny.sndbuf, tiny.rcvbuf) == (2048, 256)  # SOCK_MIN_SNDBUF, SOCK_MIN_RCVBUF


def test_a_32k_window_with_jumbo_segments_by_hand() -> None:
    window = LinuxReceiveWindow(65536, TRUESIZE)  # iperf -w 32K, doubled
    assert window.full_space == 49152  # 3/4 of the buffer (tcp_adv_win_scale 2)
    assert window.established(JUMBO_DATA) == 2 * JUMBO_DATA  # two segments at first
    assert window.clamp == 49152 - JUMBO_DATA  # one segment reserved
    assert window.rcv_mss == 536 and window.quick == 16
    window.data(JUMBO_DATA)  # truesize 16.6 KB for 8.9 KB: the slow growth path
    assert window.rcv_mss == JUMBO_DATA
    assert window.ssthresh == 4 * JUMBO_DATA  # grown by 2 MSS (ssthresh below half the space)
    assert window.rmem == TRUESIZE
    assert window.free_space == win_from_space(65536 - TRUESIZE)
    assert window.window(2 * JUMBO_DATA) == 4 * JUMBO_DATA  # whole segments of the free space
    window.data(JUMBO_DATA)  # above half the space now: no more growth
    assert window.ssthresh == 4 * JUMBO_DATA
    assert window.window(4 * JUMBO_DATA) == 2 * JUMBO_DATA  # 2 unread: 3/4 of 32 KB free
    window.data(JUMBO_DATA)  # 3 unread: less than half the full space free
    assert window.window(2 * JUMBO_DATA) == JUMBO_DATA
    assert window.quick == 0  # leaves quick-ACK mode, as __tcp_select_window does
    window.data(JUMBO_DATA)  # 4 unread: their memory exceeds the buffer
    assert window.window(JUMBO_DATA) == 0
    assert window.read(4 * JUMBO_DATA) and window.rmem == 0


def test_the_window_keeps_an_offer_within_one_segment_of_the_free_space() -> None:
    window = LinuxReceiveWindow(32768, rx_truesize(9000))  # iperf -w 16K, frame-sized buffers
    window.established(JUMBO_DATA)
    assert window.clamp == 2 * JUMBO_DATA  # max(2 MSS, full - MSS)
    window.data(8192)  # iperf's first 8 KB write: rcv_mss 8192
    assert window.free_space == 17652  # 3/4 of 32768 - 9232
    assert window.window(2 * JUMBO_DATA) == 16384  # 2 x 8192 fits, 2 x 8948 does not
    window.read(8192)
    window.data(JUMBO_DATA)
    window.read(JUMBO_DATA)
    assert window.rcv_mss == JUMBO_DATA
    assert window.window(16384) == 16384  # within one rcv_mss of the free space: kept
    assert window.window(4000) == 2 * JUMBO_DATA  # further off: whole segments again


def test_acks_after_data_and_after_reads() -> None:
    window = LinuxReceiveWindow(131072, TRUESIZE)
    window.established(JUMBO_DATA)
    assert window.quick == 16  # the first segments are acknowledged at once
    window.data(JUMBO_DATA)
    window.read(JUMBO_DATA)
    window.quick = 0
    assert not window.ack_now(JUMBO_DATA, 2 * JUMBO_DATA)  # one segment: delay
    window.data(JUMBO_DATA)
    window.read(JUMBO_DATA)
    window.quick = 0
    assert window.ack_now(2 * JUMBO_DATA, 2 * JUMBO_DATA)  # more than one full segment
    window.data(100)  # a short segment marks a pushed ACK
    assert window.pushed
    assert window.read_ack(True, 100, True, 2 * JUMBO_DATA, 2 * JUMBO_DATA)
    assert not window.pushed
    assert window.read_ack(False, 0, True, 0, 2 * JUMBO_DATA)  # window opens from 0: update
    assert not window.read_ack(False, 0, True, 4 * JUMBO_DATA, 4 * JUMBO_DATA)


@settings(max_examples=200, deadline=None)
@given(buffer=st.integers(256, 2 * RMEM_MAX), mss=st.integers(88, 8948),
       segments=st.lists(st.integers(1, 8948), max_size=12),
       truesize=st.sampled_from([TRUESIZE, e1000_truesize(1500), rx_truesize(9000)]))
def test_the_window_is_bounded_and_whole_segments(buffer: int, mss: int, segments: list[int],
                                                  truesize: int) -> None:
    window = LinuxReceiveWindow(buffer, truesize)
    last = window.established(mss)
    assert 0 < last <= window.full_space
    for length in segments:
        window.data(length)
        assert window.ssthresh <= window.clamp <= window.full_space
        offer = window.window(last)
        full = min(window.clamp, window.full_space)
        assert 0 <= offer <= max(full, last)
        size = min(window.rcv_mss, full)
        assert offer == last or offer % size == 0
        last = max(offer, 1)
    window.read(sum(segments))
    assert window.rmem == 0


def test_collapse_fills_pages_by_the_code_s_arithmetic() -> None:
    # copy = (PAGE_SIZE - sizeof(sk_buff) - sizeof(skb_shared_info) - header - 31) & ~15
    assert HEADROOM == 84
    assert collapse_chunk(HEADROOM) == (4096 - 176 - 60 - 84 - 31) & ~15 == 3744
    # alloc_skb(copy + header): SKB_DATA_ALIGN to 32 bytes, plus the sk_buff
    assert collapsed_truesize(3744, HEADROOM) == 3840 + 176
    assert collapsed_truesize(2047, HEADROOM) == 2144 + 176
    assert collapsed_truesize(3744, HEADROOM) + 60 - 176 <= PAGE_SIZE  # one page a buffer


def test_iperf_w_2730_prunes_a_bloated_segment_by_hand() -> None:
    # 32 KiB over 12 flows: -w 2730, rcvbuf 5460, 2047-byte segments (half the window)
    window = LinuxReceiveWindow(5460, TRUESIZE)
    window.established(JUMBO_DATA, TIMESTAMPS)
    assert (window.full_space, window.clamp, window.ssthresh) == (4095, 4095, 4095)
    assert window.arrive(2047, 4094)  # memory below the buffer: queued, 5 pages scheduled
    assert (window.rmem, window.forward) == (TRUESIZE, 5 * PAGE_SIZE - TRUESIZE)
    assert window.arrive(2047, 2047)  # 16.6 KB over 5460: tcp_prune_queue first
    assert window.collapsed == 1  # the first segment copied out of its 16 KiB buffer
    assert window.rmem == collapsed_truesize(2047, HEADROOM) + TRUESIZE
    # tcp_clamp_window: half the 2047 unread (memory over twice the buffer), at least
    # 2 advmss: the clamp and rcv_ssthresh stay at the full space
    assert (window.clamp, window.ssthresh, window.quick) == (4095, 4095, 0)
    # forward_alloc: the freed 16.6 KB less the copy, reclaimed below a page, then
    # five pages more for the new segment
    freed = 5 * PAGE_SIZE - TRUESIZE + TRUESIZE - collapsed_truesize(2047, HEADROOM)
    assert window.forward == (freed & (PAGE_SIZE - 1)) + 5 * PAGE_SIZE - TRUESIZE
    assert window.window(2047) == 0  # still over the buffer until the reader reads
    assert window.read(4094) and window.rmem == 0


def test_fast_path_segments_skip_the_memory_check() -> None:
    window = LinuxReceiveWindow(5460, TRUESIZE)
    window.established(JUMBO_DATA, TIMESTAMPS)
    window.arrive(2047, 4094)
    window.read(2047)  # tcp_rfree: the buffer's memory back to forward_alloc
    assert window.forward == 5 * PAGE_SIZE
    assert window.arrive(2047, 4094) and window.collapsed == 0  # header prediction, room
    assert window.arrive(2047, 4094) and window.collapsed == 1  # forward_alloc short: slow path


def test_header_prediction_follows_the_window_and_the_memory() -> None:
    window = LinuxReceiveWindow(65536, TRUESIZE)  # iperf -w 32K
    window.established(JUMBO_DATA, TIMESTAMPS)
    window.zero_window()  # tcp_select_window offered 0: pred_flags = 0
    assert window.arrive(JUMBO_DATA, 0) and not window.fast  # window still shut
    assert window.arrive(JUMBO_DATA, JUMBO_DATA) and window.fast  # open, memory below
    window.arrive(JUMBO_DATA, JUMBO_DATA)
    window.arrive(JUMBO_DATA, JUMBO_DATA)  # four buffers: 66 KB, over the 64 KiB
    assert window.rmem > window.rcvbuf and window.collapsed == 0
    assert window.fast  # only a zero window, out-of-order data or a failed prune turn it off
    window.out_of_order()
    assert not window.fast


def test_a_segment_the_collapsed_queue_cannot_take_is_dropped() -> None:
    window = LinuxReceiveWindow(4096, TRUESIZE)
    window.established(JUMBO_DATA, TIMESTAMPS)
    window.data(4000)  # unread; collapsed it needs a page and a bit
    assert window.rmem > window.rcvbuf
    window.fast = False
    assert not window.arrive(1000, 1000)
    expected = collapsed_truesize(3744, HEADROOM) + collapsed_truesize(256, HEADROOM)
    assert window.rmem == expected > 4096 and not window.fast
    assert window.read(4000) and window.rmem == 0


@settings(max_examples=200, deadline=None)
@given(lengths=st.lists(st.integers(1, 8948), min_size=1, max_size=12),
       read=st.integers(0, 8948), options=st.sampled_from([0, TIMESTAMPS]))
def test_collapse_keeps_the_data_and_fills_whole_chunks(lengths: list[int], read: int,
                                                        options: int) -> None:
    window = LinuxReceiveWindow(256, TRUESIZE)  # SOCK_MIN_RCVBUF: every buffer is over it
    window.established(JUMBO_DATA, options)
    for length in lengths:
        window.data(length)
    read = min(read, sum(lengths) - 1)
    window.read(read)
    unread = sum(lengths) - read
    window.prune()
    # every e1000 buffer is bloated, so all the unread data are copied: whole chunks
    # and the rest, each charged alloc_skb's truesize (the closed form)
    headroom = RX_HEADROOM + options
    chunk = collapse_chunk(headroom)
    whole, rest = divmod(unread, chunk)
    expected = whole * collapsed_truesize(chunk, headroom)
    expected += collapsed_truesize(rest, headroom) if rest else 0
    assert window.rmem == expected < len(lengths) * TRUESIZE
    assert window.read(unread) and window.rmem == 0


def test_a_late_reader_s_queue_is_collapsed_and_every_byte_arrives() -> None:
    # iperf -w 2730 at both ends, the reader away for the first 50 ms: the second
    # 2047-byte segment finds the first's 16.6 KB over the 5460-byte buffer, so
    # tcp_data_queue prunes (the first copied into a 2.3 KB buffer) and takes it
    cfg = linux_2_4(TcpConfig(sndbuf=2730, rcvbuf=2730, mtu=9000, timestamps=True), TRUESIZE)
    sim = Simulation()
    wire = Wire(sim, cfg, cfg, rate=125e6)
    writer, reader = Writer(wire.a, 8192, 40_000), Reader(wire.b, 8192)
    wire.b.open_passive()
    wire.a.open_active("b", connected=writer.start)
    sim.call_later(0.05, lambda _event: reader.start())
    sim.run(2.0)
    receiver = wire.b.tcb.linux
    assert receiver is not None and receiver.collapsed >= 1
    assert reader.total == 40_000 and reader.eof_at is not None
    assert receiver.rmem == 0
    assert max(s.length for _t, s in wire.data_sent("a")) == 2047  # half the window


def test_32k_over_12_flows_is_bound_by_its_half_window_segments() -> None:
    # iperf -w 2730 (32 KiB over 12 flows): rcvbuf 5460, an initial window of 4095
    # (3/4 of it, below one segment: not rounded), so tcp_sync_mss bounds the sender's
    # segments at half of it; each then costs its TCP/IP headers and the Ethernet
    # framing, whatever the NIC, the send buffer or the receive memory do
    config = linux_2_4(TcpConfig(sndbuf=2730, rcvbuf=2730, mtu=9000), TRUESIZE)
    window = LinuxReceiveWindow(config.rcvbuf, TRUESIZE)
    mss_now = window.established(JUMBO_DATA, TIMESTAMPS) >> 1
    assert mss_now == 2047
    line = das2.line_bytes(mss_now + HEADER_BYTES + TIMESTAMP_OPTION_BYTES)
    bound = das2.GIGABIT * mss_now / line / 1e6
    assert line == 2137 and round(bound, 1) == 957.9 < das2.TCP_FLOOR
    # the least per-flow -w whose half-window segments could carry the floor
    need = next(w for w in range(2730, 8192)
                if das2.GIGABIT / 1e6 * ((win_from_space(2 * w) >> 1)
                                         / das2.line_bytes((win_from_space(2 * w) >> 1)
                                                           + HEADER_BYTES
                                                           + TIMESTAMP_OPTION_BYTES))
                >= das2.TCP_FLOOR)
    assert need * 12 > 32 * 1024  # a window sum of 45.5 KiB or more over 12 flows


def test_a_linux_host_applies_the_profile() -> None:
    scenario = load_scenario(ROOT / "scenarios" / "das2" / "tcp-1-flow.toml")
    sim = Simulation(1)
    hosts = build_hosts(sim, scenario, build_ethernet(sim, scenario))
    host = hosts["a1"]
    socket = host.tcp_socket(5001, TcpConfig(sndbuf=16384, rcvbuf=16384, mtu=9000))
    assert socket.endpoint.config.rcvbuf == 32768
    assert socket.endpoint.config.rx_truesize == TRUESIZE
    assert socket.endpoint.tcb.linux is not None
    assert host.cpu.processors == 2
    with pytest.raises(ValueError, match="tcp_stack"):
        HostModel(name="x", tcp_stack="solaris")
