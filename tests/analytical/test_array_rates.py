"""Disk arrays: the RAID 5 layout, the disk commands a write costs, and RAID 0
scaling with its drives until the channel or the FC link binds."""

from __future__ import annotations

import dataclasses
import math
import random
import statistics

import pytest

from fcsim.engine.simulation import Simulation
from fcsim.runner import run_scenario
from fcsim.storage.array import DiskArray
from fcsim.storage.config import FioConfig
from fcsim.storage.device_model import ArrayModel, load_array_model, load_disk_model
from fcsim.workload.fio import FioOptions
from tests.builders import p2p

DISK = load_disk_model("fc-disk-10k")
UNIT = 65536


def test_raid5_parity_rotates_left_symmetric() -> None:
    array = DiskArray(Simulation(1), "a", ArrayModel("a", DISK, 4, 5, UNIT))
    disks = [piece[1] for piece in array.pieces(0, 9 * UNIT)]
    assert [array.parity_disk(s) for s in range(3)] == [3, 2, 1]
    assert disks == [0, 1, 2, 3, 0, 1, 2, 3, 0]
    assert [p[2] for p in array.pieces(0, 9 * UNIT)] == [0, 0, 0] + [UNIT] * 3 + [2 * UNIT] * 3
    raid0 = DiskArray(Simulation(1), "a", ArrayModel("a", DISK, 4, 0, UNIT))
    assert [p[1] for p in raid0.pieces(UNIT // 2, 4 * UNIT)] == [0, 1, 2, 3, 0]


def _run(model: ArrayModel, write: bool, offset: int, length: int) -> tuple[DiskArray, float]:
    sim = Simulation(1)
    array = DiskArray(sim, "a", model)
    done: list[float] = []
    array.submit(write, offset, length, lambda: done.append(sim.now))
    sim.run(1.0)
    assert len(done) == 1
    return array, done[0]


def _cost(whole: int, data: int) -> tuple[int, int]:
    """Member reads and writes of a RAID 5 write of *whole* stripe units of one
    stripe of *data* data disks: read-modify-write reads the units and the
    parity (whole + 1), reconstruct-write the other data units (data -
    whole); the fewer win, reconstruct-write on a tie; both write the units
    and the parity."""
    return min(whole + 1, data - whole), whole + 1


@pytest.mark.parametrize("disks", [3, 4, 5, 10])
def test_a_raid5_write_costs_the_cheaper_of_its_two_methods(disks: int) -> None:
    data = disks - 1
    for whole in range(1, data + 1):
        for stripe in (0, 1, disks):
            model = ArrayModel("a", dataclasses.replace(DISK, write_cache=False), disks, 5, UNIT)
            offset = (stripe * data + data - whole) * UNIT  # the stripe's last units
            array, _ = _run(model, True, offset, whole * UNIT)
            reads, writes = _cost(whole, data)
            assert array.member_commands == reads + writes
            assert sum(m.stats.commands for m in array.members) == reads + writes
            assert sum(m.stats.written for m in array.members) == writes * UNIT
            assert sum(m.stats.bytes - m.stats.written for m in array.members) == reads * UNIT
            parity = array.members[array.parity_disk(stripe)].stats
            assert parity.written == UNIT  # once per stripe, not per unit


def test_a_partial_unit_write_reads_only_the_rows_it_covers() -> None:
    """4 KiB into one unit of a 5-disk array: read-modify-write reads 4 KiB of
    data and 4 KiB of parity (2 reads) where reconstruct-write would read 4
    KiB from each of the 3 other data disks; a whole unit and 4 KiB of the
    next: the rows span the unit, read-modify-write reads 3 (two data, the
    parity), reconstruct-write 3 too (the rest of the second unit and two
    whole units) and wins the tie."""
    model = ArrayModel("a", dataclasses.replace(DISK, write_cache=False), 5, 5, UNIT)
    array, _ = _run(model, True, UNIT + 8192, 4096)
    assert array.member_commands == 2 + 2
    assert sum(m.stats.bytes for m in array.members) == 4 * 4096
    array, _ = _run(model, True, 0, UNIT + 4096)
    assert array.member_commands == 3 + 3
    assert sum(m.stats.bytes - m.stats.written for m in array.members) == (
        UNIT - 4096) + 2 * UNIT
    assert sum(m.stats.written for m in array.members) == UNIT + 4096 + UNIT


def _cycle(model: ArrayModel, bs: int) -> tuple[int, int, int]:
    """Writes of *bs* bytes (whole stripe units) at every position of the cycle
    after which their alignment to the stripes repeats: the writes, and the
    member reads and writes they cost (:func:`_cost` per stripe touched)."""
    data, unit = model.data_disks, model.stripe_unit
    cycle = math.lcm(bs, data * unit) // bs
    reads = writes = 0
    for k in range(cycle):
        first, last = k * bs // unit, (k * bs + bs) // unit - 1
        for stripe in range(first // data, last // data + 1):
            whole = min(last, stripe * data + data - 1) - max(first, stripe * data) + 1
            r, w = _cost(whole, data)
            reads, writes = reads + r, writes + w
    return cycle, reads, writes


def test_aligned_writes_cost_their_mean_over_the_stripe_positions() -> None:
    """128 KiB writes on the 9 + 1 array of 64 KiB units at each 128 KiB
    position of the 1152 KiB cycle: two units of one stripe (read-modify-write,
    3 reads and 3 writes), or one unit in each of two stripes (4 commands
    each), 56 / 9 = 6.22 commands a write on average."""
    model = dataclasses.replace(load_array_model("stk-9176-class"), cache=0, prefetch=0)
    bs = 2 * UNIT
    cycle, reads, writes = _cycle(model, bs)
    sim = Simulation(1)
    array = DiskArray(sim, "a", model)
    for k in range(cycle):
        array.submit(True, k * bs, bs, lambda: None)
    sim.run(5.0)
    assert array.member_commands == reads + writes
    assert (reads + writes) / cycle == pytest.approx(56 / 9)


def test_sequential_writes_through_a_full_cache_run_at_the_channels_rate() -> None:
    """512 KiB writes in sequence into a 4 MiB cache on the 9 + 1 array: once
    the cache is full they go at the rate the back-end channel carries their
    data, their parity and the reads of their parity updates (8 units of a
    stripe, or the end of one and the start of the next; a whole unit crosses
    per member command), the channel busy all the time."""
    model = dataclasses.replace(load_array_model("stk-9176-class"), cache=4 * 2**20)
    bs = 8 * UNIT
    cycle, reads, writes = _cycle(model, bs)
    rate = model.channel_rate * cycle * bs / ((reads + writes) * model.stripe_unit)
    sim = Simulation(1)
    array = DiskArray(sim, "a", model)
    done, sent = [0], [0]

    def issue() -> None:
        array.submit(True, sent[0] * bs, bs, finished)
        sent[0] += 1

    def finished() -> None:
        done[0] += 1
        issue()
    for _ in range(4):
        issue()
    sim.run(1.0)
    array.reset_stats()
    start = done[0]
    sim.run(4.0)
    assert (done[0] - start) * bs / 3.0 == pytest.approx(rate, rel=0.01)
    assert array.utilisations(3.0)["back-end channel"] == pytest.approx(1.0, rel=1e-3)


def test_a_write_back_cache_answers_before_the_disks() -> None:
    through = ArrayModel("a", DISK, 4, 5, UNIT, controller_overhead=1e-4)
    cached = dataclasses.replace(through, cache=2**20)
    _, slow = _run(through, True, 0, 4096)
    array, fast = _run(cached, True, 0, 4096)
    assert fast == pytest.approx(1e-4) and slow > 5e-3
    assert array.member_commands == 4  # written behind all the same


def _stream(disks: int, channel: float, speed: str) -> dict:
    array = ArrayModel("a", DISK, disks, 0, UNIT, channel_rate=channel)
    job = FioConfig("job", "a", "b", FioOptions("read", UNIT * disks, iodepth=4))
    base = p2p((job,), 1.0, 0.1, speed=speed)  # 177 commands of 512 KiB at 1GFC
    a, b = base.nodes
    result = run_scenario(dataclasses.replace(base, nodes=(a, dataclasses.replace(
        b, target=array))))["repetitions"][0]["storage"]
    return {"rate": result["jobs"]["job"]["throughput_bytes_per_s"],
            "limit": result["targets"]["b"]["limit"]}


@pytest.mark.parametrize(("disks", "channel", "speed", "rate", "limit"), [
    (1, 100e6, "2GFC", DISK.outer_rate, "member disks"),
    (2, 100e6, "2GFC", 2 * DISK.outer_rate, "member disks"),
    (4, 100e6, "2GFC", 100e6, "back-end channel"),
    (8, 400e6, "1GFC", None, "FC link to the initiators"),
])
def test_raid0_scales_with_disks_until_something_else_binds(
        disks: int, channel: float, speed: str, rate: float | None, limit: str) -> None:
    figures = _stream(disks, channel, speed)
    assert figures["limit"] == limit
    if rate is not None:
        assert figures["rate"] == pytest.approx(rate, rel=0.01)
    else:  # 1GFC: 2048-byte frames, 36 bytes of framing and 24 of idles per frame
        assert figures["rate"] == pytest.approx(1.0625e9 / 10 * 2048 / (2048 + 36 + 24),
                                                rel=0.01)


def _sustained_writes(cache: int, warm: float, span: float) -> tuple[float, list[int]]:
    """Random 8 KiB writes kept 256 deep into the 9 + 1 array with a write-back
    *cache* of that many bytes: the completions a second over *span* s after
    *warm* s (the cache full), and the most commands each member held."""
    model = dataclasses.replace(load_array_model("stk-9176-class"), cache=cache)
    sim = Simulation(1)
    array = DiskArray(sim, "a", model)
    draw = random.Random(7)
    bs = 8192
    done = [0]

    def issue() -> None:
        array.submit(True, draw.randrange(model.capacity // bs) * bs, bs, finished)

    def finished() -> None:
        done[0] += 1
        issue()
    for _ in range(256):
        issue()
    sim.run(warm)
    array.reset_stats()
    start = done[0]
    sim.run(warm + span)
    return (done[0] - start) / span, [m.max_queued for m in array.members]


def test_destaging_keeps_each_member_within_its_queue_depth() -> None:
    """A write-back cache hides the drives only until it is full; then the
    writes go at the rate the drives destage them, each drive holding its
    queue depth at most (the rest wait at the controller). A cache of 4 MiB
    already fills every drive's queue; one four times larger holds more
    waiting commands at the controller and gives the drives nothing more to
    reorder, so the sustained rate is the same (within the count's noise
    over 0.6 s, about 530 completions)."""
    depth = load_array_model("stk-9176-class").disk.queue_depth
    small, queues_small = _sustained_writes(4 * 2**20, 0.4, 0.6)
    large, queues_large = _sustained_writes(16 * 2**20, 0.4, 0.6)
    assert max(queues_small) == max(queues_large) == depth
    assert large == pytest.approx(small, rel=0.03)


def test_independent_spindles_make_a_read_modify_write_wait_the_later_rotation() -> None:
    """A 4 KiB write at the array's start (5 drives: read-modify-write, two
    reads where reconstruct-write needs three) reads the data and the parity
    at offset 0 of two members, no seek from the heads' start: each waits
    for sector 0 to come round, a uniform rotation as each platter's angle is
    drawn on its own, and the writes wait for both. With the drives' write
    caches on, the write's latency is two drive overheads, E[max of two
    uniform rotations] = 2/3 of a revolution, the media transfer and three
    channel crossings (the later read's, then the data's and the parity's)."""
    disk = dataclasses.replace(DISK, write_cache=True)
    model = ArrayModel("a", disk, 5, 5, UNIT, channel_rate=100e6)
    bs = 4096
    latencies = []
    for seed in range(1, 401):
        sim = Simulation(seed)
        array = DiskArray(sim, "a", model)
        done: list[float] = []
        array.submit(True, 0, bs, lambda done=done, sim=sim: done.append(sim.now))
        sim.run(1.0)
        assert array.member_commands == 4
        latencies.append(done[0])
    rotation = 2 / 3 * disk.revolution
    expected = (2 * disk.command_overhead + rotation + bs / disk.outer_rate
                + 3 * bs / model.channel_rate)
    mean = statistics.fmean(latencies)
    error = statistics.stdev(latencies) / math.sqrt(len(latencies))
    assert abs(mean - expected) < 3 * error
    assert abs(mean - (expected - rotation / 4)) > 10 * error  # not in phase: 1/2 a turn
