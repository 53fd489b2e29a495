"""The 4.4BSD send path (one mbuf copied, then handed to TCP, at a time), the
host models' ACK policies and user-mode background load that other work preempts."""

from __future__ import annotations

import dataclasses
import gc
from typing import TYPE_CHECKING

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fcsim.apps.netperf import Netperf, NetperfOptions
from fcsim.engine.simulation import Simulation
from fcsim.host.cpu import INTERRUPT, PROCESS, BackgroundLoad, Cpu
from fcsim.host.host import Host
from fcsim.host.host_model import load_host_model
from fcsim.topology.point_to_point import build_point_to_point
from fcsim.transport.sockbuf import MCLBYTES, MHLEN, MINCLSIZE, sosend_mbuf
from fcsim.transport.tcp import TcpEndpoint
from tests.builders import p2p

if TYPE_CHECKING:
    from fcsim.transport import TcpConfig
    from tests.unit.test_tcp import Wire


def test_sosend_takes_a_cluster_while_enough_remains_and_is_free() -> None:
    assert sosend_mbuf(2_000_000, 262144) == MCLBYTES
    assert sosend_mbuf(MINCLSIZE, 262144) == MINCLSIZE
    assert sosend_mbuf(MINCLSIZE - 1, 262144) == MHLEN  # a header mbuf, then the rest
    assert sosend_mbuf(50, 262144) == 50
    assert sosend_mbuf(4096, MCLBYTES - 1) == MHLEN  # less than a cluster free
    assert sosend_mbuf(4096, 60) == 60


def _pair(model: str, send_size: int):
    scenario = p2p((), duration=60.0)
    sim = Simulation(1)
    net = build_point_to_point(sim, scenario.nodes, scenario.links)
    host = load_host_model(model)
    a, b = Host(sim, "a", host, net.nodes["a"]), Host(sim, "b", host, net.nodes["b"])
    options = NetperfOptions(send_size=send_size, local_socket=262144, remote_socket=262144,
                             nodelay=True, length=0.5)
    return sim, a, b, Netperf(sim, "np", a, b, options)


def test_the_mbuf_path_hands_tcp_one_mbuf_per_pru_send(monkeypatch: pytest.MonkeyPatch) -> None:
    handed: list[int] = []
    original = TcpEndpoint.pru_send

    def spy(self: TcpEndpoint, nbytes: int, space: int, more_to_come: bool = False) -> int:
        assert not more_to_come  # 4.4BSD has no PRUS_MORETOCOME
        handed.append(nbytes)
        return original(self, nbytes, space, more_to_come)

    monkeypatch.setattr(TcpEndpoint, "pru_send", spy)
    sim, _a, _b, run = _pair("hp-c110", 2 * 1024 * 1024)
    sim.run(0.6)
    assert handed and max(handed) == MCLBYTES
    assert run.bytes > 0
    assert run.bytes <= sum(handed)  # nothing arrives that was not handed over


def test_the_buffer_path_hands_tcp_whole_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    monkeypatch.setattr(TcpEndpoint, "pru_send", lambda *a: calls.append(1) or 0)
    sim, _a, _b, run = _pair("workstation-120mhz", 2 * 1024 * 1024)
    sim.run(0.6)
    assert not calls and run.bytes > 0


def test_host_models_name_their_ack_policy() -> None:
    assert load_host_model("hp-c110").tcp_ack_every == 0
    assert load_host_model("ibm-rs6000-mca").tcp_ack_every == 0
    assert load_host_model("ibm-rs6000-h70").tcp_ack_every == 2
    _sim, a, _b, run = _pair("hp-j210", 1)
    assert a.tcp_socket(7000, run.options.config(65536)).endpoint.config.ack_every == 0
    plain = dataclasses.replace(load_host_model("hp-j210"), tcp_ack_every=None)
    a.model = plain  # a model that names no policy leaves the socket's own
    assert a.tcp_socket(7001, run.options.config(65536)).endpoint.config.ack_every == 2


@pytest.mark.parametrize("level", [PROCESS, INTERRUPT])
def test_work_preempts_a_background_job_which_resumes_after(level: int) -> None:
    sim = Simulation(1)
    cpu = Cpu(sim, "cpu")
    ends: list[tuple[str, float]] = []
    cpu.run(10e-3, lambda: ends.append(("background", sim.now)), background=True)
    sim.call_later(2e-3, lambda _e: cpu.run(1e-3, lambda: ends.append(("work", sim.now)),
                                             level))
    sim.run(1.0)
    assert ends == [("work", pytest.approx(3e-3)), ("background", pytest.approx(11e-3))]
    assert cpu.busy_time == pytest.approx(11e-3)
    assert cpu.background_time == pytest.approx(10e-3)


def test_background_jobs_do_not_preempt_each_other() -> None:
    sim = Simulation(1)
    cpu = Cpu(sim, "cpu")
    ends: list[float] = []
    cpu.run(4e-3, lambda: ends.append(sim.now), background=True)
    sim.call_later(1e-3, lambda _e: cpu.run(1e-3, lambda: ends.append(sim.now),
                                             background=True))
    sim.run(1.0)
    assert ends == [pytest.approx(4e-3), pytest.approx(5e-3)]


def test_a_woken_process_does_not_wait_for_the_background_load() -> None:
    """With every background job preempted, a 30 % load leaves process work on
    time: each item ends exactly its cost after it was asked for."""
    sim = Simulation(3)
    cpu = Cpu(sim, "cpu")
    BackgroundLoad(sim, cpu, utilisation=0.3, mean_job=1e-3, stream="bg")
    delays: list[float] = []

    def ask(_event: object) -> None:
        start = sim.now
        cpu.run(50e-6, lambda: delays.append(sim.now - start), PROCESS)
        sim.call_later(7e-3, ask)

    sim.call_later(1e-3, ask)
    sim.run(2.0)
    assert len(delays) > 200
    assert max(delays) == pytest.approx(50e-6)
    assert cpu.busy_time / 2.0 == pytest.approx(0.3 + 50e-6 / 7e-3, rel=0.08)


def test_a_send_buffer_smaller_than_the_low_water_mark_still_moves_data() -> None:
    """4.4BSD sbreserve() lowers SO_SNDLOWAT (2048) to a 1 KB send buffer, so a
    4 KB write through 1 KB sockets goes out buffer by buffer (RD11's test)."""
    scenario = p2p((), duration=60.0)
    sim = Simulation(1)
    net = build_point_to_point(sim, scenario.nodes, scenario.links)
    host = load_host_model("ibm-rs6000-mca")
    assert host.send_path == "mbuf"
    a, b = Host(sim, "a", host, net.nodes["a"]), Host(sim, "b", host, net.nodes["b"])
    options = NetperfOptions(send_size=4096, local_socket=1024, remote_socket=1024,
                             nodelay=True, length=0.2)
    test = Netperf(sim, "np", a, b, options)
    sim.run(0.3)
    assert test.bytes > 20 * 4096  # 0 if sosend waited for 2048 free bytes of 1024


# -- the send paths HP-UX 10 might have had: 4.3BSD-Tahoe's whole write and
# -- FreeBSD's PRUS_MORETOCOME (docs/tcp.md, "Send paths")

def _connected(cfg: TcpConfig) -> tuple[Simulation, Wire]:
    from tests.unit.test_tcp import Wire
    sim = Simulation(1)
    wire = Wire(sim, cfg, cfg, rate=1e12)
    wire.b.open_passive()
    wire.a.open_active("b")
    sim.run(0.01)
    return sim, wire


def test_more_to_come_holds_a_part_segment_until_a_full_mss_is_buffered() -> None:
    """FreeBSD tcp_output(): with TF_MORETOCOME the 'last buffer of a write, idle
    or NODELAY' rule does not send, so PRU_SENDs of one cluster each leave as
    whole segments of t_maxseg: k x MSS handed over give k segments, the first
    after MSS / MCLBYTES mbufs. Without the flag (4.4BSD) each mbuf leaves at
    once, while the first congestion window (one MSS) lasts."""
    from fcsim.transport import TcpConfig
    cfg = TcpConfig(sndbuf=262144, rcvbuf=262144, mtu=65280, nodelay=True)
    for more in (True, False):
        sim, wire = _connected(cfg)
        mss = wire.a.tcb.mss
        per_segment = mss // MCLBYTES
        space = wire.a.tcb.so_snd.space
        handed = 3 * per_segment
        for i in range(handed):
            space -= wire.a.pru_send(MCLBYTES, space, more_to_come=more and i < handed - 1)
            if more and i == per_segment - 2:
                assert wire.data_sent("a") == []  # a cluster short of a segment: held
        at_once = [s.length for _t, s in wire.data_sent("a")]
        assert at_once == ([mss] if more else [MCLBYTES] * per_segment)
        sim.run(1.0)
        if more:
            assert [s.length for _t, s in wire.data_sent("a")] == [mss] * 3


def test_a_part_segment_held_for_more_leaves_with_the_last_pru_send() -> None:
    """The write's last mbuf comes without PRUS_MORETOCOME, so what is held goes."""
    from fcsim.transport import TcpConfig
    cfg = TcpConfig(sndbuf=262144, rcvbuf=262144, mtu=65280, nodelay=True)
    _sim, wire = _connected(cfg)
    space = wire.a.tcb.so_snd.space
    for _ in range(4):
        space -= wire.a.pru_send(MCLBYTES, space, more_to_come=True)
    assert wire.data_sent("a") == []
    wire.a.pru_send(MCLBYTES, space, more_to_come=False)
    assert [s.length for _t, s in wire.data_sent("a")] == [5 * MCLBYTES]


@pytest.mark.parametrize("path", ["whole", "moretocome"])
def test_the_large_segment_paths_send_few_segments_of_a_large_write(
        path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """2 MB writes through 262144-byte sockets, -D: the 4.4BSD path sends 2 KB
    segments; 4.3BSD-Tahoe's whole write and FreeBSD's PRUS_MORETOCOME send
    segments of about the MSS (63488 bytes over IP over FC), so a second's
    transfer takes about bytes / MSS data segments, and the same data arrive."""
    handed: list[int] = []
    original = TcpEndpoint.pru_send

    def spy(self: TcpEndpoint, nbytes: int, space: int, more_to_come: bool = False) -> int:
        handed.append(nbytes)
        return original(self, nbytes, space, more_to_come)

    monkeypatch.setattr(TcpEndpoint, "pru_send", spy)
    model = dataclasses.replace(load_host_model("hp-c110"), send_path=path)
    scenario = p2p((), duration=60.0)
    sim = Simulation(1)
    net = build_point_to_point(sim, scenario.nodes, scenario.links)
    a, b = Host(sim, "a", model, net.nodes["a"]), Host(sim, "b", model, net.nodes["b"])
    options = NetperfOptions(send_size=2 * 1024 * 1024, local_socket=262144,
                             remote_socket=262144, nodelay=True, length=0.5)
    run = Netperf(sim, "np", a, b, options)
    sim.run(0.6)
    tcb = run.local.endpoint.tcb
    counters = run.local.endpoint.counters
    assert run.bytes > 1_000_000
    mean = counters.bytes_sent / counters.data_segments_sent
    assert mean > 0.7 * tcb.mss  # the 4.4BSD path's mean is at most MCLBYTES
    if path == "whole":
        assert max(handed) > 16 * MCLBYTES  # one PRU_SEND carries many clusters
    else:
        assert max(handed) == MCLBYTES  # still one mbuf per PRU_SEND


def test_sosend_pass_copies_what_fits_by_sosends_count() -> None:
    """4.3BSD-Tahoe's sosend copies in one pass what the free space holds: clusters
    while a cluster's worth is free, then small mbufs; the count is the one
    append_written() charges."""
    from fcsim.transport.sockbuf import SocketBuffer, sosend_pass
    assert sosend_pass(2_000_000, 262144) == 262144
    assert sosend_pass(5000, 262144) == 5000
    assert sosend_pass(10_000, 5000) == 2 * MCLBYTES + 5000 - 2 * MCLBYTES
    buf = SocketBuffer(262144, 278527)
    space = 7000
    n = sosend_pass(1_000_000, space)
    assert buf.append_written(n, space) == space


@given(resid=st.integers(1, 3_000_000), space=st.integers(1, 300_000))
def test_a_sosend_pass_fills_the_space_or_takes_the_whole_write(resid: int, space: int) -> None:
    """One pass never takes more of the free space than there is, by sosend's
    count, and stops only when the write or the space is used up."""
    from fcsim.transport.sockbuf import SocketBuffer, sosend_pass
    n = sosend_pass(resid, space)
    used = SocketBuffer(1 << 22, 1 << 23).append_written(n, space)
    assert 0 < n <= resid
    assert used <= space
    assert n == resid or used == space


def test_a_host_model_sets_its_sockets_cluster_size_and_buffer_rounding() -> None:
    """mclbytes and tcp_buffer_rounding reach every TCP socket of the host (the
    4.3BSD-Reno alternative of docs/validation.md); bad values are refused."""
    model = dataclasses.replace(load_host_model("hp-c110"), mclbytes=4096,
                                tcp_buffer_rounding="down")
    _sim, a, _b, run = _pair("hp-c110", 1)
    a.model = model
    config = a.tcp_socket(7000, run.options.config(262143)).endpoint.config
    assert (config.mclbytes, config.round_buffers_down) == (4096, True)
    for bad in ({"mclbytes": 3000}, {"tcp_buffer_rounding": "sideways"}, {"send_path": "x"}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            dataclasses.replace(load_host_model("hp-c110"), **bad)


@pytest.mark.parametrize("path", ["mbuf", "moretocome", "whole", "buffer"])
def test_a_finished_send_leaves_no_reference_cycle(path: str) -> None:
    """Every write of a small-message stream, on each send path, is freed by
    reference counting alone: after the run the cyclic collector finds no
    object of the host's send path (before, each send() left its steps'
    closures in a cycle, three functions and their cells a write)."""
    model = dataclasses.replace(load_host_model("hp-c110"), send_path=path)
    scenario = p2p((), duration=60.0)
    sim = Simulation(1)
    net = build_point_to_point(sim, scenario.nodes, scenario.links)
    a, b = Host(sim, "a", model, net.nodes["a"]), Host(sim, "b", model, net.nodes["b"])
    options = NetperfOptions(send_size=1024, local_socket=32768, remote_socket=32768,
                             nodelay=True, length=0.05)
    run = Netperf(sim, "np", a, b, options)
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        sim.run(0.06)
        gc.collect()
        left = [o for o in gc.garbage
                if getattr(o, "__module__", "").startswith("fcsim.host")
                or type(o).__name__ == "cell"]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert run.bytes > 100 * 1024  # many writes made
    assert left == []
