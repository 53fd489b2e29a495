"""TCP throughput against closed forms, and the delayed-ACK deadlock.

With no host costs a bulk transfer runs at min(rate x MSS / (MSS + 40),
window / RTT): the link carries MSS payload bytes per MSS + 40 wire bytes, and
a window of W bytes is sent once per round trip. RTT here is both one-way
delays plus the serialisation of one full segment and of one ACK.

The deadlock tests follow docs/tcp.md: a send buffer smaller than the
receiver's window-update threshold (Moldeklev & Gunningberg's mechanism)
releases one buffer per 200 ms delayed-ACK tick; symmetric 32 KB buffers with
TCP_NODELAY and a draining reader (Ong & Farrell's netperf set-up) cannot
deadlock under the 4.4BSD rules, whatever the write size.
"""

from __future__ import annotations

import pytest

from fcsim.transport import HEADER_BYTES, TcpConfig
from tests.unit.test_tcp import Reader, transfer

RATE = 25e6
"""Link payload rate of the test wire, bytes/s (about a 266 Mbaud FC link)."""


def steady_rate(reader: Reader, start: float, end: float) -> float:
    """Bytes read per second between *start* and *end*, s."""
    return sum(n for t, n in reader.reads if start <= t < end) / (end - start)


@pytest.mark.parametrize("mtu", [1500, 9000, 65280])
def test_large_windows_run_at_the_link_rate_less_headers(mtu: int):
    cfg = TcpConfig(sndbuf=262144, rcvbuf=262144, mtu=mtu)
    w, _, reader = transfer(cfg, cfg, None, 65536, 262144, until=0.6, delay=50e-6, rate=RATE)
    mss = w.a.tcb.mss
    expected = RATE * mss / (mss + HEADER_BYTES)
    assert steady_rate(reader, 0.3, 0.6) == pytest.approx(expected, rel=0.02)


@pytest.mark.parametrize(("delay", "ack_every"), [(10e-3, 2), (20e-3, 2), (10e-3, 0)])
def test_small_windows_send_one_window_per_round_trip(delay: float, ack_every: int):
    # Buffers counted in data bytes only: with mbuf accounting a 256 KB send buffer of
    # clusters holds less than 256 KB (tests/unit/test_socket_buffer_mbufs.py).
    cfg = TcpConfig(sndbuf=262144, rcvbuf=262144, mtu=1500, ack_every=ack_every,
                    mbuf_accounting=False)
    w, _, reader = transfer(cfg, cfg, None, 65536, 262144, until=2.0, delay=delay, rate=RATE)
    window = min(w.a.tcb.sndbuf, w.b.tcb.rcvbuf)
    rtt = 2 * delay + (w.a.tcb.mss + HEADER_BYTES) / RATE + HEADER_BYTES / RATE
    expected = min(RATE * w.a.tcb.mss / (w.a.tcb.mss + HEADER_BYTES), window / rtt)
    assert expected == pytest.approx(window / rtt)  # window-limited, not link-limited
    assert steady_rate(reader, 1.0, 2.0) == pytest.approx(expected, rel=0.02)


# -- delayed-ACK deadlock ----------------------------------------------------------------


ONG_MTU = 65280
"""RFC 2625 IP-over-FC MTU, bytes."""


@pytest.mark.parametrize("msg", [4096, 8192, 32768])
def test_send_buffer_below_the_receivers_update_threshold_waits_for_every_tick(msg: int):
    # Sender: 32 KB buffer, MSS clamped to it. Receiver: 128 KB buffers, so its
    # MSS stays 63488 and its buffer is rounded up to 3 x 63488 = 190464 bytes:
    # a window update needs 2 MSS or half the buffer freed, more than the
    # sender can ever have outstanding. Each 32 KB round ends in a stall that
    # only the receiver's 200 ms fast timer breaks.
    sender = TcpConfig(sndbuf=32768, rcvbuf=32768, mtu=ONG_MTU, nodelay=True)
    receiver = TcpConfig(sndbuf=131072, rcvbuf=131072, mtu=ONG_MTU, nodelay=True)
    w, _, reader = transfer(sender, receiver, None, msg, 131072, until=3.0, rate=RATE)
    assert (w.a.tcb.mss, w.b.tcb.mss, w.b.tcb.rcvbuf) == (32768, 63488, 190464)
    assert steady_rate(reader, 1.0, 3.0) == pytest.approx(32768 / 0.2, rel=0.01)
    assert w.b.counters.window_updates <= 1  # the one after the SYN's unscaled window
    assert w.b.counters.delayed_acks >= 14


def test_large_buffers_do_not_deadlock():
    big = TcpConfig(sndbuf=262144, rcvbuf=262144, mtu=ONG_MTU, nodelay=True)
    for msg in (4096, 8192):
        _, _, reader = transfer(big, big, None, msg, 262144, until=1.0, rate=RATE)
        assert steady_rate(reader, 0.3, 1.0) > 0.9 * RATE


@pytest.mark.parametrize("update_fraction", [0.5, 0.35])
def test_symmetric_32k_buffers_with_nodelay_do_not_deadlock(update_fraction: float):
    # Ong & Farrell's 32 KB / TCP_NODELAY / RFC 2625 MTU set-up under the pure
    # BSD rules: 8 KB writes are not slower than 4 KB writes (docs/tcp.md
    # explains why no rule combination of this model stalls here).
    cfg = TcpConfig(sndbuf=32768, rcvbuf=32768, mtu=ONG_MTU, nodelay=True,
                    window_update_fraction=update_fraction)
    rates = {}
    for msg in (4096, 8192):
        w, _, reader = transfer(cfg, cfg, None, msg, 32768, until=1.0, rate=RATE)
        assert w.a.tcb.mss == 32768
        rates[msg] = steady_rate(reader, 0.3, 1.0)
    assert rates[8192] >= 0.95 * rates[4096]
    assert rates[4096] > 0.9 * RATE


@pytest.mark.parametrize(("msg", "stalls"), [(8192, False), (15500, True), (16000, True),
                                             (16384, False)])
def test_nagle_deadlocks_equal_32k_buffers_only_for_writes_just_under_half_the_buffer(
        msg: int, stalls: bool):
    # Without TCP_NODELAY: the first write leaves at once (idle), the second is
    # held by Nagle (< MSS, < max_sndwnd/2 = 16384, data unacknowledged), the
    # third finds less than SO_SNDLOWAT = 2048 bytes free and blocks when
    # 2 x msg > 30720; the receiver has read msg < 16384 bytes, below its
    # 50 % update threshold, and waits for the 200 ms tick (docs/tcp.md).
    cfg = TcpConfig(sndbuf=32768, rcvbuf=32768, mtu=ONG_MTU, nodelay=False)
    _, _, reader = transfer(cfg, cfg, None, msg, 32768, until=1.3, rate=RATE)
    rate = steady_rate(reader, 0.25, 1.25)  # five ticks of the receiver's clock
    if stalls:
        assert rate == pytest.approx(msg / 0.2, rel=0.02)  # one write per tick
    else:
        assert rate > 0.9 * RATE
