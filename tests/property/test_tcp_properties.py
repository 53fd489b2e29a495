"""TCP invariants under random writes, buffers, options, delays and losses.

One segment of the run (data, ACK, SYN or FIN, either direction) may be lost.
Every byte written reaches the reader exactly once and in order (the reader's
total equals the writer's, end of stream comes after it, and no read ever
returns bytes not yet written), and neither socket buffer ever holds more than
its size.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from fcsim.engine.simulation import Simulation
from fcsim.transport import Segment, TcpConfig, TcpEndpoint
from tests.unit.test_tcp import Reader, Wire, Writer


class CheckedWire(Wire):
    """A wire that checks the buffer bounds of both endpoints at every segment."""

    def _carry(self, seg: Segment, src: str) -> None:
        for ep in (self.a, self.b):
            assert 0 <= ep.tcb.unread <= ep.tcb.rcvbuf
            assert 0 <= ep.tcb.sb_cc <= ep.tcb.sndbuf
            assert ep.tcb.unsent + ep.tcb.unacked == ep.tcb.sb_cc
        super()._carry(seg, src)


class CheckedReader(Reader):
    """A reader that never gets more than the sender has accepted from its writer."""

    def __init__(self, ep: TcpEndpoint, size: int, sender: TcpEndpoint) -> None:
        super().__init__(ep, size)
        self.sender = sender

    def _got(self, n: int) -> None:
        assert self.total + n == self.ep.counters.bytes_read
        assert self.total + n <= self.sender.counters.bytes_written
        super()._got(n)


@settings(max_examples=60, deadline=None)
@given(
    total=st.integers(min_value=0, max_value=120_000),
    msg=st.integers(min_value=1, max_value=40_000),
    rsize=st.integers(min_value=1, max_value=70_000),
    sndbuf=st.integers(min_value=2048, max_value=70_000),
    rcvbuf=st.integers(min_value=2048, max_value=70_000),
    mtu=st.sampled_from([576, 1500, 4352, 9000, 65280]),
    nodelay=st.booleans(),
    ack_every=st.sampled_from([0, 1, 2]),
    update_fraction=st.sampled_from([0.35, 0.5]),
    sosend_chunk=st.sampled_from([0, 2048]),
    delay=st.floats(min_value=1e-6, max_value=5e-3),
    rate=st.sampled_from([1e6, 12.5e6, 100e6]),
    lose=st.one_of(st.none(), st.integers(min_value=0, max_value=120)),
)
def test_every_byte_arrives_once_in_order_within_buffer_bounds(
    total, msg, rsize, sndbuf, rcvbuf, mtu, nodelay, ack_every, update_fraction, sosend_chunk,
    delay, rate, lose,
):
    cfg = TcpConfig(sndbuf=sndbuf, rcvbuf=rcvbuf, mtu=mtu, nodelay=nodelay, ack_every=ack_every,
                    window_update_fraction=update_fraction, sosend_chunk=sosend_chunk)
    sent = [0]

    def drop(_seg: Segment) -> bool:
        """Lose the segment number *lose* of the run, in either direction."""
        sent[0] += 1
        return sent[0] - 1 == lose

    sim = Simulation()
    wire = CheckedWire(sim, cfg, cfg, delay=delay, rate=rate, drop=drop)
    writer = Writer(wire.a, msg, total)
    reader = CheckedReader(wire.b, rsize, wire.a)
    wire.b.open_passive()
    wire.a.open_active("b", connected=writer.start)
    reader.start()
    sim.run(120.0)
    assert reader.eof_at is not None
    assert reader.total == writer.written == total
    assert wire.a.counters.bytes_acked == total
    assert wire.a.tcb.sb_cc == 0 and wire.b.tcb.unread == 0
