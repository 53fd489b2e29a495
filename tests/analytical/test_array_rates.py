"""Disk arrays: the RAID 5 layout, the disk commands a write costs, and RAID 0
scaling with its drives until the channel or the FC link binds."""

from __future__ import annotations

import dataclasses

import pytest

from fcsim.engine.simulation import Simulation
from fcsim.runner import run_scenario
from fcsim.scenario.workload_model import FioConfig
from fcsim.storage.array import DiskArray
from fcsim.storage.device_model import ArrayModel, load_disk_model
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


@pytest.mark.parametrize(("length", "writes", "reads"), [
    (4096, 2, 2),  # small write: read old data and parity, write both
    (3 * UNIT, 4, 0),  # a whole stripe of 3 data disks: 3 data writes and parity
    (UNIT + 4096, 4, 4),  # one whole unit and a piece, same stripe: read-modify-write each
])
def test_a_raid5_write_costs_its_disk_commands(length: int, writes: int, reads: int) -> None:
    model = ArrayModel("a", dataclasses.replace(DISK, write_cache=False), 4, 5, UNIT)
    array, _ = _run(model, True, 0, length)
    assert array.member_commands == writes + reads
    assert sum(m.stats.commands for m in array.members) == writes + reads
    assert sum(m.stats.written for m in array.members) == (
        length + UNIT if reads == 0 else 2 * length)


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
    base = p2p((job,), 0.5, 0.1, speed=speed)
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
