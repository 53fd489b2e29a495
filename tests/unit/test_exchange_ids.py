"""An N_Port's exchange IDs: given in turn, never two open exchanges with one
OX_ID, never 0xFFFF, freed when an exchange ends (R_A_TOV later after an
abnormal end), and no exchange state left behind by a stream that opens one
exchange per sequence."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fcsim.build import build_workloads
from fcsim.engine.simulation import Simulation
from fcsim.fc2.exchange_ids import ExchangeIds
from fcsim.fc2.header import TYPE_VENDOR, UNASSIGNED_ID
from fcsim.fc2.login import R_A_TOV, ServiceParameters
from fcsim.scenario.workload_model import StreamConfig
from fcsim.topology.point_to_point import build_point_to_point
from tests.builders import p2p


def test_ids_are_given_in_turn_and_a_freed_one_comes_back_after_the_others() -> None:
    ids = ExchangeIds(4)
    assert [ids.take() for _ in range(3)] == [0, 1, 2]
    ids.give_back(1)
    assert ids.take() == 3  # the one after the last given, not the one just freed
    assert ids.take() == 1  # round the pool: the first free one
    with pytest.raises(RuntimeError, match="all 4 exchange IDs are in use"):
        ids.take()


def test_the_unassigned_id_is_never_given() -> None:
    ids = ExchangeIds()
    assert ids.size == UNASSIGNED_ID
    taken = [ids.take() for _ in range(UNASSIGNED_ID)]
    assert sorted(taken) == list(range(UNASSIGNED_ID)) and UNASSIGNED_ID not in taken
    with pytest.raises(RuntimeError):
        ids.take()


@given(st.integers(1, 12), st.lists(st.integers(0, 30), max_size=80))
@settings(max_examples=200, deadline=None)
def test_held_ids_are_distinct_and_each_take_is_the_first_free_in_turn(
        size: int, steps: list[int]) -> None:
    """Against a plain model: a step takes an ID (when one is free) or gives
    back the held one it names; the ID taken is the first free one from the
    one after the last taken, cyclically."""
    ids = ExchangeIds(size)
    held: list[int] = []
    last = -1
    for step in steps:
        if step % 3 and len(held) < size:
            expected = next((last + 1 + i) % size for i in range(size)
                            if (last + 1 + i) % size not in held)
            got = ids.take()
            assert got == expected
            held.append(got)
            last = got
        elif held:
            ids.give_back(held.pop(step % len(held)))
        assert ids.held == len(held) == len(set(held))


def _run(stream: StreamConfig, duration: float, b: ServiceParameters | None = None):
    scenario = p2p((stream,), duration=duration, b=b)
    sim = Simulation(scenario.run.seed)
    net = build_point_to_point(sim, scenario.nodes, scenario.links)
    seen: list[int] = []
    receiver = net.nodes["b"]

    def received(seq, _time) -> bool:
        seen.append(seq.exchange.ox_id)
        return True
    receiver.register((TYPE_VENDOR,), received)
    (workload,) = build_workloads(sim, scenario, net)
    sim.run(duration)
    return net.nodes["a"], receiver, workload, seen


def test_a_stream_of_one_exchange_per_sequence_reuses_ids_round_the_pool() -> None:
    """70,000 one-frame Class 3 sequences, three open at once: each opens an
    exchange with the next OX_ID and frees it when its frame is sent, so the
    65,536th sequence has OX_ID 0 again, and at the end no OX_ID is held and
    no exchange is left in either port's state."""
    n = 70_000
    a, b, w, seen = _run(StreamConfig("s", "a", "b", 64, outstanding=3, count=n,
                                      exchanges="per-sequence"), duration=1.0)
    assert w.stats.sequences == n
    assert seen == [i % UNASSIGNED_ID for i in range(n)]
    assert a.exchange_ids.held == 0
    assert not a._streams and not b._inbound_of_exchange and not b._inbound


def test_class2_exchanges_per_sequence_leave_no_rx_id_behind() -> None:
    """Class 2: the responder gives each exchange an RX_ID and forgets it with
    the exchange's last sequence, so many exchanges leave none behind."""
    a, b, w, seen = _run(StreamConfig("s", "a", "b", 4096, cls=2, outstanding=2, count=2000,
                                      exchanges="per-sequence"), duration=0.5)
    assert w.stats.sequences == 2000 and len(set(seen)) == 2000
    assert a.exchange_ids.held == 0 and not b._rx_ids


def test_a_stream_keeping_its_exchanges_holds_one_id_per_slot() -> None:
    a, _, w, seen = _run(StreamConfig("s", "a", "b", 4096, outstanding=3, count=300),
                         duration=0.05)
    assert w.stats.sequences == 300 and set(seen) == {0, 1, 2}
    assert a.exchange_ids.held == 3


def test_an_exchange_that_ended_abnormally_holds_its_id_for_r_a_tov() -> None:
    """A sequence rejected (Class 1 refused by a port without it) ends its
    exchange abnormally: its OX_ID stays held R_A_TOV."""
    no_class1 = ServiceParameters(classes=frozenset({2, 3}))
    scenario = p2p((StreamConfig("s", "a", "b", 4096, cls=1, count=1,
                                 exchanges="per-sequence"),), duration=1e-3, b=no_class1)
    sim = Simulation(scenario.run.seed)
    net = build_point_to_point(sim, scenario.nodes, scenario.links)
    (workload,) = build_workloads(sim, scenario, net)
    sim.run(1e-3)
    assert workload.stats.rejected == 1 and net.nodes["a"].exchange_ids.held == 1
    sim.run(R_A_TOV + 2e-3)
    assert net.nodes["a"].exchange_ids.held == 0


def test_fcp_commands_free_their_exchanges() -> None:
    """Each FCP command is an exchange that ends with its FCP_RSP: after 400
    writes and reads, the initiator holds only its PRLI's exchange."""
    import dataclasses

    from fcsim.storage.build import Storage
    from fcsim.storage.config import FioConfig
    from fcsim.storage.device_model import RamDiskModel
    from fcsim.workload.fio import FioOptions

    job = FioConfig("job", "a", "b", FioOptions("randrw", 4096, iodepth=4, count=400))
    base = p2p((job,), 0.05)
    a, b = base.nodes
    scenario = dataclasses.replace(base, nodes=(a, dataclasses.replace(
        b, target=RamDiskModel("ram", 2**30, 10e-6, 1e9))))
    sim = Simulation(scenario.run.seed)
    net = build_point_to_point(sim, scenario.nodes, scenario.links)
    storage = Storage(sim, scenario, net, {})
    sim.run(0.05)
    assert storage.results(0.05)["jobs"]["job"]["ios"] == 400
    assert net.nodes["a"].exchange_ids.held == 1


@given(st.integers(1, 4), st.integers(1, 120), st.sampled_from([2, 3]),
       st.integers(1, 3 * 2112))
@settings(max_examples=15, deadline=None)
def test_per_sequence_streams_end_every_exchange_they_open(
        outstanding: int, count: int, cls: int, size: int) -> None:
    """Whatever the class, size and sequences open at once: every sequence
    is delivered in an exchange of its own (no OX_ID twice among fewer than
    65,535), and once all are done no OX_ID is held."""
    a, b, w, seen = _run(StreamConfig("s", "a", "b", size, cls=cls, outstanding=outstanding,
                                      count=count, exchanges="per-sequence"), duration=0.05)
    assert w.stats.sequences == count and len(set(seen)) == count
    assert a.exchange_ids.held == 0 and not a._streams and not b._inbound
