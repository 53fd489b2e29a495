"""TCP and UDP endpoints over a tiny in-test wire: handshake, tcp_mss rules,
Nagle and delayed ACKs, loss recovery, persist, close; UDP counting.

:class:`Wire` joins two endpoints with a one-way delay and a serialisation
rate per direction (a FIFO: a segment occupies its direction for
(length + 40) / rate seconds), and can drop chosen segments. The analytical and
property tests import it from here.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from fcsim.engine.simulation import Simulation
from fcsim.transport import (
    HEADER_BYTES,
    Datagram,
    Segment,
    State,
    TcpConfig,
    TcpEndpoint,
    UdpEndpoint,
)
from fcsim.transport.udp import MAX_UDP_PAYLOAD


class Wire:
    """Endpoints "a" and "b" joined by a full-duplex link; *drop(segment)* loses a segment."""

    def __init__(
        self,
        sim: Simulation,
        cfg_a: TcpConfig,
        cfg_b: TcpConfig,
        delay: float = 50e-6,
        rate: float = 25e6,
        phase_a: float = 0.0,
        phase_b: float = 0.1,
        drop: Callable[[Segment], bool] | None = None,
    ) -> None:
        self.sim = sim
        self.delay = delay
        self.rate = rate
        self.drop = drop
        self.a = TcpEndpoint(sim, "a", cfg_a, lambda seg: self._carry(seg, "a"), phase_a)
        self.b = TcpEndpoint(sim, "b", cfg_b, lambda seg: self._carry(seg, "b"), phase_b)
        self._free = {"a": 0.0, "b": 0.0}
        self.log: list[tuple[float, Segment]] = []
        """Every segment handed to the wire, with its time, s."""

    def _carry(self, seg: Segment, src: str) -> None:
        now = self.sim.now
        self.log.append((now, seg))
        if self.drop is not None and self.drop(seg):
            return
        start = max(now, self._free[src])
        end = start + (seg.length + HEADER_BYTES) / self.rate
        self._free[src] = end
        dst = self.b if src == "a" else self.a
        self.sim.call_later(end + self.delay - now, lambda _event: dst.receive(seg))

    def data_sent(self, src: str = "a") -> list[tuple[float, Segment]]:
        """Segments with payload sent by *src*."""
        return [(t, s) for t, s in self.log if s.src == src and s.length]


class Writer:
    """Writes *size*-byte messages back to back; closes after *total* bytes if given."""

    def __init__(self, ep: TcpEndpoint, size: int, total: int | None = None) -> None:
        self.ep = ep
        self.size = size
        self.total = total
        self.written = 0

    def start(self) -> None:
        if self.total is not None and self.written >= self.total:
            self.ep.close()
            return
        n = self.size if self.total is None else min(self.size, self.total - self.written)
        self.written += n
        self.ep.write(n, self.start)


class Reader:
    """Reads up to *size* bytes at a time, each arrival at once, until end of stream."""

    def __init__(self, ep: TcpEndpoint, size: int) -> None:
        self.ep = ep
        self.size = size
        self.total = 0
        self.eof_at: float | None = None
        self.reads: list[tuple[float, int]] = []

    def start(self) -> None:
        self.ep.read(self.size, self._got)

    def _got(self, n: int) -> None:
        if n == 0:
            self.eof_at = self.ep.sim.now
            return
        self.total += n
        self.reads.append((self.ep.sim.now, n))
        self.ep.read(self.size, self._got)


def transfer(cfg_a: TcpConfig, cfg_b: TcpConfig, total: int | None, msg: int, rsize: int,
             until: float, **wire: object) -> tuple[Wire, Writer, Reader]:
    """Connect, stream *total* bytes (None: forever) from a to b in *msg* writes, run."""
    sim = Simulation()
    w = Wire(sim, cfg_a, cfg_b, **wire)  # type: ignore[arg-type]
    writer = Writer(w.a, msg, total)
    reader = Reader(w.b, rsize)
    w.b.open_passive()
    w.a.open_active("b", connected=writer.start)
    reader.start()
    sim.run(until)
    return w, writer, reader


def drop_first(predicate: Callable[[Segment], bool], times: int = 1) -> Callable[[Segment], bool]:
    """A drop rule losing the first *times* segments that match *predicate*."""
    left = [times]

    def drop(seg: Segment) -> bool:
        if left[0] and predicate(seg):
            left[0] -= 1
            return True
        return False

    return drop


ETHER = TcpConfig(sndbuf=65536, rcvbuf=65536, mtu=1500)


# -- handshake and negotiation --------------------------------------------------------


def test_handshake_takes_one_round_trip_for_the_active_side_and_one_and_a_half_for_the_passive():
    delay, rate = 1e-3, 1e6
    w, _, _ = transfer(ETHER, ETHER, 0, 1, 1, until=0.1, delay=delay, rate=rate)
    hop = delay + HEADER_BYTES / rate
    assert w.a.tcb.established_at == pytest.approx(2 * hop)
    assert w.b.tcb.established_at == pytest.approx(3 * hop)
    assert [s.flags for _, s in w.log[:3]] == [0x02, 0x12, 0x10]


def test_mss_is_the_smaller_offer_and_window_scale_needs_both_sides():
    big = TcpConfig(sndbuf=262144, rcvbuf=262144, mtu=9000, window_scaling=True)
    small = TcpConfig(sndbuf=262144, rcvbuf=262144, mtu=1500, window_scaling=True)
    w, _, _ = transfer(big, small, 0, 1, 1, until=0.1)
    assert w.a.tcb.mss == w.b.tcb.mss == 1460
    assert (w.a.tcb.snd_scale, w.a.tcb.rcv_scale) == (3, 3)  # 65535 << 2 < 262144 <= 65535 << 3
    off = TcpConfig(sndbuf=262144, rcvbuf=262144, mtu=1500, window_scaling=False)
    w, _, _ = transfer(big, off, 0, 1, 1, until=0.1)
    a, b = w.a.tcb, w.b.tcb
    assert (a.snd_scale, a.rcv_scale, b.snd_scale, b.rcv_scale) == (0, 0, 0, 0)
    syn = w.log[0][1]
    assert syn.wscale == 3 and syn.mss == 8192  # 8960 rounded down to 2048 multiples
    assert w.log[1][1].wscale is None  # no option on the SYN-ACK of a side without it


def test_window_field_is_capped_at_65535_shifted():
    cfg = TcpConfig(sndbuf=262144, rcvbuf=262144, mtu=1500)
    assert cfg.window_shift == 3
    w, _, _ = transfer(cfg, cfg, 100_000, 100_000, 262144, until=1.0)
    windows = [s.window for _, s in w.log if not s.flags & 0x02]
    assert windows and all(win <= 65535 << 3 and win % 8 == 0 for win in windows)
    syn_windows = [s.window for _, s in w.log if s.flags & 0x02]
    assert syn_windows == [65535, 65535]  # never scaled on a SYN (RFC 1323 2.2)


def test_tcp_mss_clamps_mss_to_a_smaller_send_buffer():
    cfg = TcpConfig(sndbuf=32768, rcvbuf=32768, mtu=65280)
    assert cfg.interface_mss == 63488  # 65240 rounded down to a multiple of 2048
    assert cfg.negotiate(65240).mss == 32768
    unclamped = TcpConfig(sndbuf=32768, rcvbuf=32768, mtu=65280, clamp_mss_to_sndbuf=False)
    assert unclamped.negotiate(65240).mss == 63488
    no_cluster = TcpConfig(sndbuf=32768, rcvbuf=32768, mtu=65280, mclbytes=0)
    assert no_cluster.interface_mss == 65240


def _buffers(negotiated) -> tuple[int, int]:
    return negotiated.sndbuf, negotiated.rcvbuf


def test_tcp_mss_rounds_buffers_up_to_mss_multiples_capped_by_sb_max():
    cfg = TcpConfig(sndbuf=10000, rcvbuf=10000, mtu=1500)
    assert cfg.negotiate(1460) == (cfg.negotiate(1460).__class__(1460, 10220, 10220))
    # 262000 rounds up to 262800, capped at sb_max = 262144, which sbreserve()
    # refuses (above 262144 x 2048 / 2176 = 246724): the buffer stays as it was
    capped = TcpConfig(sndbuf=262000, rcvbuf=262000, mtu=1500, sb_max=262144)
    assert _buffers(capped.negotiate(1460)) == (262000, 262000)
    taken = TcpConfig(sndbuf=131072, rcvbuf=131072, mtu=65280, sb_max=262144)
    assert _buffers(taken.negotiate(65240)) == (190464, 190464)  # 3 x 63488
    hp = TcpConfig(sndbuf=229376, rcvbuf=229376, mtu=65280, sb_max=278527)
    assert _buffers(hp.negotiate(65240)) == (253952, 253952)  # 4 x 63488 <= 262143
    plain = TcpConfig(sndbuf=10000, rcvbuf=10000, mtu=1500, round_buffers_to_mss=False)
    assert plain.negotiate(1460).sndbuf == 10000
    w, _, _ = transfer(cfg, cfg, 0, 1, 1, until=0.1)
    assert (w.a.tcb.sndbuf, w.b.tcb.rcvbuf) == (10220, 10220)


@pytest.mark.parametrize("socket", [65536, 131072, 229376, 245760, 262143])
def test_reno_rounds_buffers_down_to_whole_segments_with_4k_clusters(socket: int) -> None:
    """4.3BSD-Reno tcp_mss(): bufsize = min(bufsize, sb_max) / mss * mss. With 4 KB
    clusters the IP-over-FC MSS is 65240 rounded down to 61440, and the paper's
    sockets hold 1, 2, 3, 4 and 4 segments (docs/validation.md, socket sizes)."""
    cfg = TcpConfig(sndbuf=socket, rcvbuf=socket, mtu=65280, sb_max=278527, mclbytes=4096,
                    round_buffers_down=True)
    mss = cfg.interface_mss
    assert mss == (65280 - HEADER_BYTES) // 4096 * 4096 == 61440
    assert _buffers(cfg.negotiate(65240)) == (socket // mss * mss, socket // mss * mss)


# -- Nagle and delayed ACKs -------------------------------------------------------------


def _request_response(nodelay: bool, duration: float) -> int:
    """Client writes a 100-byte header and a 100-byte body, then reads a 100-byte reply."""
    sim = Simulation()
    cfg = TcpConfig(sndbuf=65536, rcvbuf=65536, mtu=1500, nodelay=nodelay)
    w = Wire(sim, cfg, cfg, delay=100e-6, rate=10e6)
    done = [0]
    need = [200]

    def client() -> None:
        w.a.write(100, lambda: w.a.write(100, lambda: w.a.read(100, answered)))

    def answered(_n: int) -> None:
        done[0] += 1
        client()

    def server_got(n: int) -> None:
        need[0] -= n
        if need[0] == 0:
            need[0] = 200
            w.b.write(100, lambda: None)
        w.b.read(65536, server_got)

    w.b.open_passive()
    w.a.open_active("b", connected=client)
    w.b.read(65536, server_got)
    sim.run(duration)
    return done[0]


def test_nagle_and_delayed_ack_give_one_transaction_per_fast_timer_tick():
    # The body waits (Nagle, RFC 896) for the ACK of the header, which the
    # server delays until its next 200 ms tick: one transaction per tick.
    assert _request_response(nodelay=False, duration=2.0) in (9, 10, 11)
    # TCP_NODELAY sends the body at once: one transaction per round trip.
    assert _request_response(nodelay=True, duration=2.0) > 1000


def test_delayed_ack_leaves_on_the_receivers_tick_not_200ms_after_the_data():
    cfg = TcpConfig(sndbuf=65536, rcvbuf=65536, mtu=1500)
    sim = Simulation()
    w = Wire(sim, cfg, cfg, phase_b=0.05)
    w.b.open_passive()
    w.a.open_active("b", connected=lambda: sim.call_later(0.23, lambda _e: w.a.write(100, _nop)))
    sim.run(1.0)
    (sent, _), = w.data_sent("a")
    acks = [t for t, s in w.log if s.src == "b" and s.ack == 101]
    assert sent == pytest.approx(0.23, abs=1e-3)
    assert acks[0] == pytest.approx(0.25)  # the tick at 0.05 + k * 0.2 after the data
    assert w.b.counters.delayed_acks == 1


def _nop() -> None:
    """A write completion nobody waits for."""


# -- loss recovery ------------------------------------------------------------------------


def test_fast_retransmit_recovers_one_lost_segment_without_a_timeout():
    lost = 1 + 50 * 1460
    drop = drop_first(lambda s: s.src == "a" and s.seq == lost and s.length > 0)
    w, _, reader = transfer(ETHER, ETHER, 1_000_000, 8192, 65536, until=5.0, drop=drop)
    assert reader.total == 1_000_000 and reader.eof_at is not None
    assert w.a.counters.fast_retransmits == 1
    assert w.a.counters.timeouts == 0
    assert w.a.counters.retransmitted_segments == 1
    assert reader.eof_at < 0.5


def test_a_lost_last_segment_is_recovered_by_the_retransmission_timer():
    total = 100_000
    drop = drop_first(lambda s: s.src == "a" and s.length > 0 and s.seq + s.length == 1 + total)
    w, _, reader = transfer(ETHER, ETHER, total, total, 65536, until=5.0, drop=drop)
    assert reader.total == total and reader.eof_at is not None
    assert w.a.counters.fast_retransmits == 0
    assert w.a.counters.timeouts == 1
    assert reader.eof_at > ETHER.rto_min  # waited at least the minimum RTO


def test_retransmission_timeout_doubles_on_each_retry():
    drop = drop_first(lambda s: s.src == "a" and s.length > 0, times=4)
    w, _, reader = transfer(ETHER, ETHER, 1000, 1000, 65536, until=30.0, drop=drop)
    assert reader.total == 1000
    times = [t for t, _ in w.data_sent("a")]
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    assert len(gaps) == 4
    for earlier, later in zip(gaps, gaps[1:], strict=False):
        assert later == pytest.approx(2 * earlier, rel=1e-6)
    assert gaps[0] == pytest.approx(ETHER.rto_min)  # SRTT + 4 RTTVAR of a 0.1 ms path


def test_a_lost_syn_is_sent_again_after_the_initial_timeout():
    drop = drop_first(lambda s: s.flags == 0x02)
    w, _, _ = transfer(ETHER, ETHER, 0, 1, 1, until=10.0, drop=drop)
    syns = [t for t, s in w.log if s.flags == 0x02]
    assert syns[1] - syns[0] == pytest.approx(ETHER.rto_initial)
    assert w.a.tcb.state is State.FIN_WAIT_2 and w.b.tcb.state is State.CLOSE_WAIT


def test_a_lost_syn_ack_is_answered_again_when_the_syn_is_repeated():
    drop = drop_first(lambda s: s.flags == 0x12)
    w, _, reader = transfer(ETHER, ETHER, 5000, 5000, 65536, until=10.0, drop=drop)
    syn_acks = [t for t, s in w.log if s.flags == 0x12]
    # Both the repeated SYN and the passive side's own timer answer at ~3 s.
    assert len(syn_acks) >= 2 and syn_acks[1] == pytest.approx(ETHER.rto_initial, abs=1e-3)
    assert reader.total == 5000 and w.b.counters.retransmitted_segments >= 1


# -- zero window, persist, close -----------------------------------------------------------


def test_zero_window_is_probed_by_the_persist_timer_until_the_reader_drains():
    cfg = TcpConfig(sndbuf=16384, rcvbuf=8192, mtu=1500)
    sim = Simulation()
    w = Wire(sim, cfg, cfg)
    writer = Writer(w.a, 4096, 40_000)
    reader = Reader(w.b, 65536)
    w.b.open_passive()
    w.a.open_active("b", connected=writer.start)
    sim.call_later(12.0, lambda _e: reader.start())
    sim.run(30.0)
    assert w.a.counters.zero_window_probes >= 1
    probe_times = [t for t, s in w.log if s.src == "a" and s.length == 1]
    assert probe_times and probe_times[0] > cfg.persist_min
    assert reader.total == 40_000 and reader.eof_at is not None


def test_close_sends_fin_after_the_data_and_the_reader_sees_end_of_stream():
    w, writer, reader = transfer(ETHER, ETHER, 50_000, 7000, 4096, until=2.0)
    fins = [s for _, s in w.log if s.src == "a" and s.flags & 0x01]
    assert fins and fins[0].seq + fins[0].length == 1 + 50_000
    assert reader.total == 50_000 and reader.eof_at is not None
    assert (w.a.tcb.state, w.b.tcb.state) == (State.FIN_WAIT_2, State.CLOSE_WAIT)
    w.b.close()
    w.b.sim.run(3.0)
    assert (w.a.tcb.state, w.b.tcb.state) == (State.TIME_WAIT, State.CLOSED)


def test_write_blocks_until_acks_free_the_send_buffer():
    cfg = TcpConfig(sndbuf=8192, rcvbuf=65536, mtu=1500)
    sim = Simulation()
    w = Wire(sim, cfg, ETHER, delay=10e-3)
    done_at: list[float] = []
    w.b.open_passive()
    w.a.open_active("b", connected=lambda: w.a.write(20_000, lambda: done_at.append(sim.now)))
    Reader(w.b, 65536).start()
    sim.run(1.0)
    assert w.a.tcb.sndbuf == 8760  # rounded up to 6 x 1460
    assert done_at and done_at[0] > 2 * 20e-3  # needed two rounds of ACKs
    assert w.a.counters.bytes_written == 20_000


def test_only_one_outstanding_write_or_read():
    sim = Simulation()
    w = Wire(sim, ETHER, ETHER)
    w.b.open_passive()
    w.a.open_active("b")
    sim.run(0.01)
    w.b.read(10, lambda _n: None)
    with pytest.raises(RuntimeError):
        w.b.read(10, lambda _n: None)
    w.a.write(1 << 20, _nop)
    with pytest.raises(RuntimeError):
        w.a.write(1, _nop)


# -- UDP ----------------------------------------------------------------------------------------


def test_udp_counts_datagrams_and_never_retransmits():
    sim = Simulation()
    got: list[Datagram] = []
    lost = [0]

    def carry(d: Datagram) -> None:
        if lost[0] < 2:
            lost[0] += 1
            return
        sim.call_later(1e-3, lambda _e: b.receive(d))

    a = UdpEndpoint(sim, "a", carry, peer="b")
    b = UdpEndpoint(sim, "b", lambda d: None, on_receive=got.append)
    for _ in range(10):
        a.send(1000)
    sim.run(10.0)
    assert (a.datagrams_sent, a.bytes_sent) == (10, 10_000)
    assert (b.datagrams_received, b.bytes_received) == (8, 8000)
    assert len(got) == 8 and got[0].wire_bytes == 1028


def test_udp_datagram_size_limits():
    sim = Simulation()
    a = UdpEndpoint(sim, "a", lambda d: None)
    assert a.max_payload == MAX_UDP_PAYLOAD == 65507
    a.send(65507)
    with pytest.raises(ValueError):
        a.send(65508)
    small = UdpEndpoint(sim, "s", lambda d: None, mtu=1500)
    assert small.max_payload == 1472
    with pytest.raises(ValueError):
        small.send(1473)
