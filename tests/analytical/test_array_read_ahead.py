"""A disk array's read path: cut-through from the back-end channel to the
front end in cache blocks, and read-ahead of a sequential stream into the
controller's cache. A cold random read still costs what store-and-forward
did; a single sequential stream, one command at a time, runs at the least of
the front end, the back-end channel and the members' media rate."""

from __future__ import annotations

import dataclasses
import random

import pytest

from fcsim.engine.simulation import Simulation
from fcsim.runner import run_scenario
from fcsim.storage.array import DiskArray
from fcsim.storage.config import FioConfig
from fcsim.storage.device_model import ArrayModel, load_array_model
from fcsim.workload.fio import FioOptions
from tests.builders import p2p

CATALOG = load_array_model("stk-9176-class")
STORE_AND_FORWARD = dataclasses.replace(CATALOG, cache_block=0, prefetch=0)
MIB = 2**20


def _expected_cold(array: DiskArray, offset: int, length: int) -> float:
    """The latency of a read of one piece on a cold array (every head at the
    outer edge, nothing cached): the controller's overhead, the member's
    overhead, seek from the edge, the rotation to the first sector, the media
    transfer, then the piece across the back-end channel whole."""
    model = array.model
    [(_, member, at, size)] = array.pieces(offset, length)
    disk = array.members[member]
    radius, angle, rate = disk.place(at)
    start = model.controller_overhead + model.disk.command_overhead
    seek = disk.seek_time(radius)
    rotation = disk.rotation(angle, start + seek)
    return start + seek + rotation + size / rate + size / model.channel_rate


def _read(model: ArrayModel, offset: int, length: int, seed: int = 1,
          stream: bool = True) -> tuple[DiskArray, float, list[tuple[float, int]]]:
    """A read on a fresh array: its completion time and the pieces it handed
    over before (time, bytes)."""
    sim = Simulation(seed)
    array = DiskArray(sim, "a", model)
    done: list[float] = []
    handed: list[tuple[float, int]] = []
    if stream:
        array.stream_read(offset, length, lambda n: handed.append((sim.now, n)),
                          lambda: done.append(sim.now))
    else:
        array.submit(False, offset, length, lambda: done.append(sim.now))
    sim.run(1.0)
    assert len(done) == 1
    return array, done[0], handed


@pytest.mark.parametrize("seed", range(1, 6))
def test_a_cold_random_read_costs_what_store_and_forward_did(seed: int) -> None:
    """One stripe unit at a random place: the closed form, with or without
    cut-through and read-ahead (nothing to read ahead of: the read is not
    sequential); a random 1 MiB read over every member completes when the old
    store-and-forward path did (the channel serves the same bytes in the same
    order, in cache blocks rather than whole pieces)."""
    draw = random.Random(seed)
    unit = CATALOG.stripe_unit
    offset = draw.randrange(CATALOG.capacity // unit) * unit
    for model in (STORE_AND_FORWARD, CATALOG):
        for stream in (False, True):
            array, took, _ = _read(model, offset, unit, seed, stream)
            assert took == pytest.approx(_expected_cold(array, offset, unit), rel=1e-9)
    big = draw.randrange(CATALOG.capacity // MIB - 1) * MIB
    _, old, handed_old = _read(STORE_AND_FORWARD, big, MIB, seed)
    array, new, handed = _read(CATALOG, big, MIB, seed)
    assert new == pytest.approx(old, rel=1e-9)
    assert handed_old == [] and handed
    assert array.prefetched == 0


def test_cut_through_hands_each_cache_block_over_as_it_crosses() -> None:
    """A cold read of one stripe unit: the member reads it whole, then its
    cache blocks cross the channel one after the other, each handed to the
    front end as it lands; the last with the completion."""
    unit, block = CATALOG.stripe_unit, CATALOG.cache_block
    array, took, handed = _read(CATALOG, 0, unit)
    crossing = block / CATALOG.channel_rate
    member_done = took - unit / CATALOG.channel_rate
    assert [n for _, n in handed] == [block] * (unit // block - 1)
    assert [t for t, _ in handed] == pytest.approx(
        [member_done + k * crossing for k in range(1, unit // block)], rel=1e-9)


def _sequential(model: ArrayModel, count: int, length: int, gap: float) -> tuple[
        DiskArray, list[float]]:
    """*count* reads of *length* bytes one after the other from offset 0, each
    issued *gap* s after the last completed: the latency of each."""
    sim = Simulation(1)
    array = DiskArray(sim, "a", model)
    latencies: list[float] = []

    def issue(k: int) -> None:
        began = sim.now

        def done() -> None:
            latencies.append(sim.now - began)
            if k + 1 < count:
                sim.call_later(gap, lambda *_: issue(k + 1))
        array.submit(False, k * length, length, done)
    issue(0)
    sim.run(10.0)
    assert len(latencies) == count
    return array, latencies


def test_a_sequential_read_finds_what_the_controller_read_ahead_in_its_cache() -> None:
    """The second of two back-to-back reads of consecutive ranges makes the
    controller read the next command's length ahead (a multiplier of 1);
    given time, the third read is all in the cache and costs only the
    controller's overhead, and so on; without read-ahead each pays the drives
    and the channel."""
    length = MIB
    array, latencies = _sequential(CATALOG, 4, length, 0.1)
    assert latencies[2] == pytest.approx(CATALOG.controller_overhead, rel=1e-9)
    assert latencies[3] == pytest.approx(CATALOG.controller_overhead, rel=1e-9)
    assert latencies[1] > length / CATALOG.channel_rate
    assert array.read_ahead_hits == 2 * length
    assert array.prefetched == 3 * length  # ahead of the 2nd, 3rd and 4th
    _, cold = _sequential(STORE_AND_FORWARD, 4, length, 0.1)
    assert min(cold) > length / CATALOG.channel_rate


def test_read_ahead_holds_no_more_than_the_cache() -> None:
    """Prefetched data wait in the controller's cache: with room for half a
    command's worth, half is read ahead."""
    model = dataclasses.replace(CATALOG, cache=MIB // 2)
    array, _ = _sequential(model, 3, MIB, 0.1)
    assert array.prefetched == 2 * (MIB // 2)
    assert array.read_ahead_hits == MIB // 2


def test_a_write_drops_what_was_read_ahead_of_it() -> None:
    """Data read ahead and then overwritten are no longer the stream's: the
    next read of them goes to the drives (and, sequential, reads on ahead)."""
    sim = Simulation(1)
    array = DiskArray(sim, "a", dataclasses.replace(CATALOG, cache=64 * MIB))
    array.submit(False, 0, MIB, lambda: None)
    sim.run(0.1)
    array.submit(False, MIB, MIB, lambda: None)
    sim.run(0.2)
    array.submit(True, 2 * MIB, MIB, lambda: None)
    sim.run(0.3)
    array.submit(False, 2 * MIB, MIB, lambda: None)
    sim.run(0.5)
    assert array.prefetched == 2 * MIB
    assert array.read_ahead_hits == 0


FRONT_1GFC = 1.0625e9 / 10 * 2048 / (2048 + 36 + 24)
"""1GFC's payload rate in full 2048-byte frames: 8b/10b, 36 bytes of framing
and 24 of idles a frame."""


def _stream_rate(model: ArrayModel) -> float:
    job = FioConfig("job", "a", "b", FioOptions("read", MIB, iodepth=1))
    base = p2p((job,), 1.0, 0.2, speed="1GFC")
    a, b = base.nodes
    result = run_scenario(dataclasses.replace(base, nodes=(a, dataclasses.replace(
        b, target=model))))["repetitions"][0]["storage"]
    return float(result["jobs"]["job"]["throughput_bytes_per_s"])


@pytest.mark.parametrize(("disks", "raid", "channel"), [
    (10, 5, 100e6),   # the back-end channel binds
    (10, 5, 400e6),   # the 1GFC front end binds
    (2, 0, 400e6),    # the members' media rate binds
])
def test_one_sequential_stream_runs_at_the_least_of_front_end_back_end_and_members(
        disks: int, raid: int, channel: float) -> None:
    """fio, 1 MiB reads one at a time (as an HPSS mover reads): with cut-through
    and read-ahead the controller keeps the back end busy while the front end
    sends, so the stream runs at min(front end, back-end channel, data drives
    x outer-zone media rate) within 2 % (the front end waits a command's
    turnaround each MiB when it binds); store-and-forward without read-ahead
    adds the back end's time to the front end's every command."""
    model = dataclasses.replace(CATALOG, disks=disks, raid=raid, channel_rate=channel)
    members = model.data_disks * model.disk.outer_rate
    bound = min(FRONT_1GFC, channel, members)
    assert _stream_rate(model) == pytest.approx(bound, rel=0.02)
    if bound != members:
        old = _stream_rate(dataclasses.replace(model, cache_block=0, prefetch=0))
        assert old < 0.8 * bound


def test_two_interleaved_streams_are_not_seen_as_sequential() -> None:
    """The controller compares each read with the last one only: two
    sequential streams taking turns never continue the read before theirs,
    so nothing is read ahead; one stream alone is."""
    sim = Simulation(1)
    array = DiskArray(sim, "a", CATALOG)
    far = 64 * MIB
    for k in range(4):
        for base in (0, far):
            array.submit(False, base + k * MIB, MIB, lambda: None)
            sim.run(sim.now + 0.05)
    assert array.prefetched == 0 and array.read_ahead_hits == 0
