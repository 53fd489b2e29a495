"""The small-write stall of a 4.4BSD stream (docs/netperf-curve.md): writes of
MINCLSIZE bytes or more each take a 2 KB cluster, so the sender's buffer is
full in mbuf bytes (sb_mbmax) with less data than the receiver must read
before it sends a window update (half its buffer, or two segments); only the
200 ms delayed-ACK timer then acknowledges, so each tick moves one buffer-full
of writes: throughput = writes x size / 0.2 s, with the writes counted as
sosend() takes them (:func:`_writes`)."""

from __future__ import annotations

import dataclasses

import pytest

from fcsim.apps.netperf import Netperf, NetperfOptions
from fcsim.engine.simulation import Simulation
from fcsim.host.host import Host
from fcsim.host.host_model import load_host_model
from fcsim.topology.point_to_point import build_point_to_point
from fcsim.transport.sockbuf import MCLBYTES, MINCLSIZE, MSIZE
from tests.builders import p2p

TICK = 0.2  # BSD fast timer, s (PR_FASTHZ = 5)
HP_SB_MAX = 278527  # models/hosts/hp-c110.toml


def _writes(mbmax: int, size: int) -> int:
    """Writes of *size* bytes an empty send buffer of *mbmax* mbuf bytes takes:
    a cluster each (charged MSIZE + MCLBYTES) while sbspace() is at least
    MCLBYTES, then one more in plain mbufs if the space left still holds it
    (sosend() blocks only when sbspace() < resid)."""
    clusters = (mbmax - MCLBYTES) // (MSIZE + MCLBYTES) + 1
    return clusters + (mbmax - clusters * (MSIZE + MCLBYTES) >= size)


def _rate(size: int, socket: int, sb_max: int = HP_SB_MAX) -> float:
    """Bytes/s netperf reads between 1 and 3 s of a C110->C110 TCP_STREAM of
    *size*-byte writes through *socket*-byte buffers, the C110 given *sb_max*."""
    scenario = p2p((), duration=4.0)
    sim = Simulation(1)
    net = build_point_to_point(sim, scenario.nodes, scenario.links)
    c110 = dataclasses.replace(load_host_model("hp-c110"), sb_max=sb_max)
    a, b = Host(sim, "a", c110, net.nodes["a"]), Host(sim, "b", c110, net.nodes["b"])
    options = NetperfOptions(send_size=size, local_socket=socket, remote_socket=socket,
                             nodelay=True, length=3.5)
    run = Netperf(sim, "np", a, b, options)
    sim.run(1.0)
    before = run.bytes
    sim.run(3.0)
    return (run.bytes - before) / 2.0


@pytest.mark.parametrize(("socket", "size", "mbmax"), [
    (32768, 256, 2 * 32768),     # sb_mbmax = 2 x sb_hiwat
    (32768, 512, 2 * 32768),
    (262143, 256, HP_SB_MAX),    # sb_mbmax = sb_max (HP-UX)
])
def test_each_delayed_ack_tick_moves_one_buffer_of_cluster_writes(
        socket: int, size: int, mbmax: int) -> None:
    assert size >= MINCLSIZE
    assert _rate(size, socket) == pytest.approx(_writes(mbmax, size) * size / TICK, rel=0.01)


def test_sb_max_decides_whether_1_kb_writes_stall_a_262143_byte_socket() -> None:
    """With 4.4BSD's SB_MAX the send buffer holds 121 1 KB writes (123,904 B),
    less than the half buffer (131,072 B) the receiver must read before its
    window update: the stream waits for the timer. HP-UX's sb_max, 278,527,
    holds 128 (131,072 B) and the updates flow."""
    assert _writes(262144, 1024) * 1024 < 262143 / 2 <= _writes(HP_SB_MAX, 1024) * 1024
    stalled, flowing = _rate(1024, 262143, sb_max=262144), _rate(1024, 262143)
    assert stalled == pytest.approx(_writes(262144, 1024) * 1024 / TICK, rel=0.01)
    assert flowing > 10 * stalled
