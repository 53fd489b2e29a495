"""Invariants of Trapeze, NetRPC and Slice's block I/O under random use: the
pieces of a cluster cover its file range exactly once; every NetRPC call is
answered exactly once with the bytes it asked for, whatever the message
sizes, pipelining, cut-through delivery and interleaving; a dd through the client's read-ahead or
write-behind moves exactly its bytes, and the servers see exactly the calls
the client made."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from fcsim.engine.simulation import Simulation
from fcsim.host.block import Volume
from fcsim.trapeze.client import piece_units
from fcsim.trapeze.message import CONTROL, PAYLOAD_MAX
from fcsim.trapeze.netrpc import READ, WRITE, Call, pages
from tests.builders import slice_network, trapeze_pair

FEW = settings(max_examples=25, deadline=None)


@FEW
@given(servers=st.integers(1, 5), grains=st.integers(1, 64), per_cluster=st.integers(1, 8),
       cluster_index=st.integers(0, 50))
def test_a_cluster_s_pieces_cover_its_units_once(servers: int, grains: int, per_cluster: int,
                                                 cluster_index: int) -> None:
    grain = 512 * grains
    cluster = grain * per_cluster
    volume = Volume(Simulation(1), tuple(object() for _ in range(servers)),  # type: ignore[misc]
                    grain if servers > 1 else None)
    unit = grain if servers > 1 else cluster
    start = cluster_index * cluster
    pieces = volume.pieces(start, cluster)
    units = Counter(u for index, (at, size) in pieces.items()
                    for u in piece_units(index, at, size, servers, unit))
    assert set(units) == set(range(start // unit, (start + cluster) // unit))
    assert set(units.values()) == {1}
    assert sum(size for _at, size in pieces.values()) == cluster


@FEW
@given(calls=st.lists(st.tuples(st.booleans(), st.integers(0, 5 * PAYLOAD_MAX + 1000),
                                st.floats(0, 200e-6)), min_size=1, max_size=12),
       min_fragment=st.sampled_from([256, 1408, 4096, PAYLOAD_MAX]),
       cut_through=st.booleans(), receive_min=st.sampled_from([None, 1, 128, 1408, 9000]))
def test_every_call_is_answered_once_with_its_bytes(calls: list[tuple[bool, int, float]],
                                                    min_fragment: int, cut_through: bool,
                                                    receive_min: int | None) -> None:
    sim, client, server = trapeze_pair(min_fragment, cut_through, receive_min)
    served: list[Call] = []

    def serve(call: Call) -> None:
        served.append(call)
        server.reply(call)
    server.handler = serve
    answered: list[Call] = []
    at = 0.0
    for write, length, gap in calls:
        at += gap
        sim.call_later(at, lambda _e, w=write, n=length: client.call(
            "s", WRITE if w else READ, 0, n, answered.append))
    sim.run(at + 0.05)
    assert sorted(c.xid for c in answered) == list(range(1, len(calls) + 1))  # each once
    assert sorted(c.xid for c in served) == list(range(1, len(calls) + 1))
    written = sum(n for w, n, _g in calls if w)
    read = sum(n for w, n, _g in calls if not w)
    messages = sum(len(pages(n)) + 1 for _w, n, _g in calls)
    moved = client.card.stats.dma_bytes + server.card.stats.dma_bytes
    # every payload byte is fetched by its sender and put in place by its receiver,
    # and every control message put in place once
    assert moved == 2 * (written + read) + messages * CONTROL
    assert client.card.stats.messages_rx == sum(len(pages(0 if w else n)) for w, n, _g in calls)


@FEW
@given(direction=st.sampled_from(["read", "write"]), servers=st.integers(1, 3),
       count=st.integers(1, 40), readahead=st.sampled_from([0, 64 * 1024, 256 * 1024]))
def test_a_dd_moves_its_bytes_and_the_servers_see_the_client_s_calls(
        direction: str, servers: int, count: int, readahead: int) -> None:
    sim, slice_, _hosts = slice_network(direction, servers, readahead, count)
    sim.run(1.0)
    (figures,) = slice_.results(1.0)["jobs"].values()
    assert figures["finished"] and figures["bytes"] == count * 65536
    rpc = slice_.rpc["c"].results()
    assert rpc["answered"] == rpc["calls"]  # every call answered, none twice
    served = [s.results() for s in slice_.servers.values()]
    assert sum(s["requests"] for s in served) == rpc["calls"]
    if direction == "read":  # what dd read, and what read-ahead asked for past it
        assert sum(s["bytes_read"] for s in served) >= count * 65536
        assert sum(s["bytes_written"] for s in served) == 0
    else:  # whole clusters written behind; the last part cluster stays in the cache
        assert sum(s["bytes_written"] for s in served) == count * 65536 // 131072 * 131072
