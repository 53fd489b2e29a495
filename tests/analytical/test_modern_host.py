"""A current server (PCI Express 3.0 x8, small per-packet costs) drives TCP over
10GBASE-R at the wire's limit: goodput MSS / (MSS + 78) of 10 Gbit/s once slow
start is over; with a 32GFC HBA on PCI Express 4.0 x8 it drives TCP over IP
over FC at 32GFC's limit."""

from __future__ import annotations

import pytest

from fcsim.apps.netperf import NetperfOptions
from fcsim.ethernet.frame import GAP, frame_chars
from fcsim.fc0.cable import Cable
from fcsim.fc0.speed import speed_named
from fcsim.fc4.ip import LLC_SNAP, MTU, NETWORK_HEADER
from fcsim.host.host_model import load_host_model
from fcsim.runner import run_scenario
from fcsim.scenario.model import LinkConfig, NodeConfig, RunConfig, Scenario
from fcsim.scenario.workload_model import NetperfConfig
from fcsim.transport.segment import HEADER_BYTES
from fcsim.transport.tcp_config import TcpConfig
from tests.analytical.test_host_tcp import _netperf, _steady_rate, _wire_chars


def test_tcp_over_10gbase_r_reaches_the_wire_limit() -> None:
    host = load_host_model("server-pcie3")
    speed = speed_named("10GBASE-R")
    nodes = tuple(NodeConfig(f"h{i + 1}", host=host, mtu=1500) for i in range(2))
    link = LinkConfig("l", ("h1", "h2"), speed, Cable(10.0))
    test = NetperfConfig("tcp", "h1", "h2", NetperfOptions(length=10.0),
                         send_sizes=(65536,), sockets=(2**21,))
    warmup, window = 0.25, 0.03  # past slow start and its first delayed ACK
    rep = run_scenario(Scenario("eth", "ethernet", RunConfig(warmup + window, warmup), nodes,
                                (link,), (test,)))["repetitions"][0]
    frames = rep["links"]["l"]["directions"]["h1->h2"]["frames"]
    mss = TcpConfig(sndbuf=2**21, rcvbuf=2**21, mtu=1500).interface_mss
    per_frame = frame_chars(mss + 40) + GAP  # TCP/IP headers, MAC framing, gap
    wire = speed.char_rate * mss / per_frame
    assert frames * mss / window == pytest.approx(wire, rel=0.005)
    assert rep["hosts"]["h1"]["bus_utilisation"] < 0.9  # the bus has room: not the limit


def test_a_current_server_feeds_a_32gfc_hba() -> None:
    """TCP over IP over FC between two current servers with 32GFC HBAs on PCIe
    4.0 x8: the link, not the host, is the limit (a 64 KB IP-over-FC sequence
    per segment, each frame with its framing and fill words)."""
    host = load_host_model("server-pcie4-32gfc")
    options = NetperfOptions(send_size=65536, local_socket=2**21, remote_socket=2**21,
                             nodelay=True, length=5.0)
    tcp = TcpConfig(sndbuf=2**21, rcvbuf=2**21, mtu=MTU, mbuf_accounting=False)
    sim, run = _netperf(options, speed="32GFC", sender=host, receiver=host, tcp=tcp)
    rate = _steady_rate(sim, run, 0.3, 0.33)
    mss = run.local.endpoint.tcb.mss
    iu = mss + HEADER_BYTES + NETWORK_HEADER + LLC_SNAP
    assert rate == pytest.approx(speed_named("32GFC").char_rate * mss / _wire_chars(iu),
                                 rel=0.005)
