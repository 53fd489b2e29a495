"""Closed forms of SCSI over FC: a disk's sequential and random rates, a RAM
disk's latency, the extra round trip of a write."""

from __future__ import annotations

import dataclasses
import math

import pytest

from fcsim.fc0.speed import speed_named
from fcsim.fc4.fcp import QUEUE_FULL_DELAY
from fcsim.host.adapter import ADAPTER_COMMAND_TIME
from fcsim.host.host_model import load_host_model
from fcsim.report import summary_text
from fcsim.runner import run_scenario
from fcsim.scenario.loader import load_scenario
from fcsim.scenario.model import NodeConfig, Scenario
from fcsim.storage.config import FioConfig
from fcsim.storage.device_model import DiskModel, RamDiskModel, load_disk_model
from fcsim.workload.fio import FioOptions
from tests.builders import fabric, p2p

DISK = load_disk_model("fc-disk-10k")
ONE_ZONE = dataclasses.replace(DISK, zones=1, inner_rate=DISK.outer_rate)
INSTANT = RamDiskModel("instant", 10**12, 1e-12, 1e15)
"""A RAM disk that takes no time: its latency is the fabric's alone."""


def san(device: DiskModel | RamDiskModel, options: FioOptions, duration: float,
        warmup: float = 0.0, length: float = 1.0, seed: int = 1) -> Scenario:
    """Host "a" runs the fio job *options* against target "b" holding *device*."""
    job = FioConfig("job", "a", "b", options)
    base = p2p((job,), duration, warmup, length=length, seed=seed)
    a, b = base.nodes
    return dataclasses.replace(base, nodes=(a, dataclasses.replace(b, target=device)))


def job(options: FioOptions, device: DiskModel | RamDiskModel, duration: float,
        warmup: float = 0.0, length: float = 1.0) -> dict:
    result = run_scenario(san(device, options, duration, warmup, length))
    return result["repetitions"][0]["storage"]["jobs"]["job"]


def test_a_sequential_read_runs_at_the_zones_media_rate_with_read_ahead() -> None:
    figures = job(FioOptions("read", 65536, size=64 * 2**20), DISK, 1.0, warmup=0.1)
    assert figures["throughput_bytes_per_s"] == pytest.approx(DISK.outer_rate, rel=0.01)


def test_without_read_ahead_each_sequential_read_loses_a_revolution() -> None:
    slow = dataclasses.replace(DISK, read_ahead=False)
    figures = job(FioOptions("read", 65536, size=64 * 2**20), slow, 1.0, warmup=0.1)
    assert figures["throughput_bytes_per_s"] < DISK.outer_rate * 0.7
    per_command = 1 / figures["iops"]
    assert per_command == pytest.approx(slow.revolution + 65536 / slow.outer_rate, rel=0.05)


@pytest.mark.parametrize("depth", [1, 4])
def test_sequential_writes_into_the_write_cache_stream_at_the_media_rate(depth: int) -> None:
    """Once the cache is full each write waits for room, and the media writes on
    from where it stopped without losing a turn."""
    cached = dataclasses.replace(DISK, write_cache=True)
    figures = job(FioOptions("write", 65536, depth, size=64 * 2**20), cached, 1.0, warmup=0.2)
    assert figures["throughput_bytes_per_s"] == pytest.approx(DISK.outer_rate, rel=0.01)


def test_random_reads_at_depth_one_pay_seek_half_a_turn_and_transfer() -> None:
    options = FioOptions("randread", 4096)
    fabric = job(options, INSTANT, 0.05)["latency_s"]["mean"]
    figures = job(options, ONE_ZONE, 30.0)
    service = (ONE_ZONE.average_seek + ONE_ZONE.revolution / 2 + 4096 / ONE_ZONE.outer_rate
               + ONE_ZONE.command_overhead + fabric)
    assert figures["ios"] > 3000
    assert figures["iops"] == pytest.approx(1 / service, rel=0.03)


def test_a_ram_disks_latency_is_its_access_latency_plus_transfer() -> None:
    ram = RamDiskModel("ram", 10**10, 20e-6, 200e6)
    options = FioOptions("randread", 65536)
    fabric = job(options, INSTANT, 0.05)["latency_s"]["mean"]
    latency = job(options, ram, 0.05)["latency_s"]["mean"]
    word = 40 / speed_named("1GFC").baud  # frames start on transmission-word boundaries
    assert latency - fabric == pytest.approx(20e-6 + 65536 / 200e6, abs=2 * word)


def test_a_write_costs_one_more_round_trip_than_a_read() -> None:
    length = 10_000.0  # 10 km: 50 us each way
    read = job(FioOptions("randread", 8192), INSTANT, 0.05, length=length)
    write = job(FioOptions("randwrite", 8192), INSTANT, 0.05, length=length)
    one_way = length * 5e-9
    xfer_rdy = (12 + 36) * 10 / speed_named("1GFC").baud  # payload + SOF..EOF, 8b/10b
    extra = write["latency_s"]["mean"] - read["latency_s"]["mean"]
    assert extra == pytest.approx(2 * one_way + xfer_rdy, rel=0.02)


def test_iops_scale_with_the_jobs_until_the_device_binds() -> None:
    ram = RamDiskModel("ram", 10**10, 200e-6, 1e12)
    one = job(FioOptions("randread", 512, iodepth=1), ram, 0.05)["iops"]
    four = job(FioOptions("randread", 512, iodepth=4), ram, 0.05)["iops"]
    assert four == pytest.approx(4 * one, rel=0.02)


def test_nodes_without_a_target_run_no_storage() -> None:
    scenario = p2p((), 1e-3)
    assert "storage" not in run_scenario(scenario)["repetitions"][0]
    assert NodeConfig("x").target is None


def test_a_frame_lost_in_class_3_ends_in_timeout_abts_and_a_retry() -> None:
    ram = RamDiskModel("ram", 2**30, 20e-6, 400e6)
    job_ = FioConfig("job", "a", "b", FioOptions("randrw", 16384, iodepth=4), timeout=1e-3)
    base = p2p((job_,), 0.2, bit_error_rate=1e-6)
    a, b = base.nodes
    result = run_scenario(dataclasses.replace(base, nodes=(a, dataclasses.replace(
        b, target=ram))))["repetitions"][0]
    storage = result["storage"]
    recovery = storage["initiators"]["a"]
    assert recovery["timeouts"] > 0 and recovery["retries"] >= recovery["timeouts"]
    assert storage["targets"]["b"]["aborts"] > 0
    lost = sum(n["dropped_frames"] for n in result["nodes"].values())
    assert lost > 0 and storage["jobs"]["job"]["errors"] == 0
    assert storage["jobs"]["job"]["ios"] > 1000


def test_a_drive_that_reorders_its_queue_gains_from_depth() -> None:
    """Shortest positioning time first: random reads at depth 32 go well over
    the depth-one rate; in arrival order they do not."""
    one = job(FioOptions("randread", 4096, iodepth=1), DISK, 3.0, 0.5)["iops"]
    deep = job(FioOptions("randread", 4096, iodepth=32), DISK, 3.0, 0.5)["iops"]
    fifo = job(FioOptions("randread", 4096, iodepth=32),
               dataclasses.replace(DISK, reorder=False), 3.0, 0.5)["iops"]
    assert deep > 2.0 * one
    assert fifo == pytest.approx(one, rel=0.05)


def test_task_set_full_refuses_only_the_commands_beyond_the_depth() -> None:
    """fio keeps numjobs x iodepth commands outstanding, more than the disk's
    task set holds: the first burst fills the task set and the rest are
    refused once; each waits at the initiator, with the commands issued after
    it, and is sent again when one of the initiator's own commands completes,
    one per completion, which frees exactly the slot it takes. So the
    refusals are numjobs x iodepth - queue_depth however long the run, and
    the resends as many once that many commands have completed (before, one
    per completion)."""
    options = FioOptions("randread", 8192, iodepth=DISK.queue_depth, numjobs=2)
    excess = options.iodepth * options.numjobs - DISK.queue_depth
    for duration in (0.05, 0.25):
        results = run_scenario(san(DISK, options, duration))
        storage = results["repetitions"][0]["storage"]
        assert storage["initiators"]["a"]["queue_full"] == excess
        completed = storage["jobs"]["job"]["ios"]
        assert storage["initiators"]["a"]["retries"] == min(excess, completed)
        assert storage["targets"]["b"]["task_set_full"] == excess
        assert storage["targets"]["b"]["max_queue_depth"] == DISK.queue_depth
    assert results["repetitions"][0]["warnings"] == [
        f"target b: its jobs keep up to {2 * DISK.queue_depth} commands outstanding "
        f"(iodepth x numjobs), more than its queue depth of {DISK.queue_depth}: the other "
        f"{excess} wait at the initiators after TASK SET FULL"]
    assert "WARNING: target b: its jobs keep up to" in summary_text(results)
    within = FioOptions("randread", 8192, iodepth=DISK.queue_depth // 2, numjobs=2)
    assert run_scenario(san(DISK, within, 0.01))["repetitions"][0]["warnings"] == []


@pytest.mark.parametrize("mib", [4, 16])
def test_dd_of_blocks_larger_than_the_buffer_streams_at_the_media_rate(mib: int) -> None:
    """A read larger than the drive's buffer cannot wait in it whole: the drive
    sends each segment as it is read and reads on, and the read-ahead covers
    the next command's arrival, so dd of 4 and 16 MiB blocks from the
    outermost zone runs at that zone's media rate (the first positioning and
    the last segment's trip over the link are under 1 % of the run)."""
    bs = mib * 2**20
    assert bs > DISK.buffer
    job_ = FioConfig("dd", "a", "b", FioOptions("read", bs, count=128 // mib), dd=True)
    base = p2p((job_,), 5.0)
    a, b = base.nodes
    result = run_scenario(dataclasses.replace(base, nodes=(a, dataclasses.replace(
        b, target=DISK))))["repetitions"][0]["storage"]["jobs"]["dd"]
    assert result["finished"] and result["bytes"] == 128 * 2**20
    assert result["bytes_per_s"] == pytest.approx(DISK.outer_rate, rel=0.01)


def test_a_refused_command_with_nothing_outstanding_is_sent_again_every_3_ms() -> None:
    """Host "a" holds the only slot of a RAM disk for 10 ms; host "c"'s command,
    0.5 ms later, is refused, and with none of its own outstanding to wake it
    the initiator sends it again after QUEUE_FULL_DELAY each time: refused at
    about 0.5, 3.5, 6.5 and 9.5 ms - every attempt before the slot frees at
    a's completion, floor((10 - 0.5) / 3) + 1 = 4 of them - then accepted,
    its latency the four delays and the disk's 10 ms."""
    latency, start = 10e-3, 0.5e-3
    ram = RamDiskModel("slow", 2**30, latency, 1e12, queue_depth=1)
    jobs = (FioConfig("first", "a", "t", FioOptions("randread", 4096, count=1)),
            FioConfig("second", "c", "t", FioOptions("randread", 4096, count=1), start=start))
    base = fabric({"a": "sw:0", "c": "sw:1", "t": "sw:2"}, jobs, 0.05, login=False)
    nodes = tuple(dataclasses.replace(n, target=ram) if n.name == "t" else n
                  for n in base.nodes)
    storage = run_scenario(dataclasses.replace(base, nodes=nodes))["repetitions"][0]["storage"]
    refusals = math.floor((latency - start) / QUEUE_FULL_DELAY) + 1
    assert storage["initiators"]["c"]["queue_full"] == refusals
    assert storage["initiators"]["c"]["retries"] == refusals
    assert storage["initiators"]["a"]["queue_full"] == 0
    second = storage["jobs"]["second"]
    assert second["ios"] == 1
    assert second["latency_s"]["mean"] == pytest.approx(
        refusals * QUEUE_FULL_DELAY + latency, rel=0.01)


DD = """\
topology = "point-to-point"

[run]
duration = "{duration} s"

[[nodes]]
name = "a"

[[nodes]]
name = "b"
target = "fc-disk-10k"

[[links]]
ends = ["a", "b"]
speed = "1GFC"

[[workloads]]
name = "dd"
type = "dd"
from = "a"
to = "b"
direction = "{direction}"
bs = "{bs} B"
count = {count}
{offset}
"""


def zones(model: DiskModel) -> list[tuple[int, float, float]]:
    """Each zone's first byte, bytes and media rate (bytes/s), from the rule the
    model states: zones of equal width, rates falling evenly from the outer to
    the inner, each zone holding data in proportion to its rate."""
    n = model.zones
    rates = [model.outer_rate - (model.outer_rate - model.inner_rate) * i / max(n - 1, 1)
             for i in range(n)]
    sizes = [model.capacity * r / sum(rates) for r in rates]
    return [(round(sum(sizes[:i])), sizes[i], rates[i]) for i in range(n)]


def dd(tmp_path, direction: str, bs: int, count: int, offset: str, duration: float) -> dict:
    path = tmp_path / "dd.toml"
    path.write_text(DD.format(direction=direction, bs=bs, count=count, offset=offset,
                              duration=duration), encoding="utf-8")
    result = run_scenario(load_scenario(path))["repetitions"][0]["storage"]
    return result["jobs"]["dd"]


@pytest.mark.parametrize("zone", [0, 7, 15])
def test_dd_skip_reads_the_zone_it_lands_in_at_that_zones_rate(tmp_path, zone: int) -> None:
    """dd if=/dev/sdX skip=N bs=BS: the reads start N x BS into the device, so
    they run at the media rate of the zone there (read-ahead streaming), less
    the first access's seek and rotation (at most a full stroke and a turn)."""
    bs, count = 65536, 300
    start, size, rate = zones(DISK)[zone]
    skip = -(-start // bs)
    assert (skip + count) * bs <= start + size  # within the zone
    job_ = dd(tmp_path, "read", bs, count, f"skip = {skip}", 1.0)
    moved = count * bs
    assert job_["bytes"] == moved
    first = DISK.command_overhead + DISK.full_stroke + DISK.revolution
    assert 0.0 <= job_["elapsed_s"] - moved / rate <= first  # never above the media rate


@pytest.mark.parametrize("zone", [0, 15])
def test_dd_seek_writes_in_the_zone_it_lands_in(tmp_path, zone: int) -> None:
    """dd if=/dev/zero of=/dev/sdX seek=N bs=BS: the writes start N x BS into
    the device. With the drive's write cache off, each write reaches the drive
    after its sector has passed under the head, so it waits for the turn:
    from one write's end to the next's is one revolution plus the transfer at
    the zone's rate."""
    assert not DISK.write_cache
    bs, count = 65536, 100
    start, size, rate = zones(DISK)[zone]
    seek = -(-start // bs)
    assert (seek + count) * bs <= start + size
    job_ = dd(tmp_path, "write", bs, count, f"seek = {seek}", 2.0)
    assert job_["bytes"] == count * bs
    first = DISK.command_overhead + DISK.full_stroke + DISK.revolution
    assert job_["elapsed_s"] == pytest.approx(count * (DISK.revolution + bs / rate), abs=first)


@pytest.mark.parametrize("command_time", [ADAPTER_COMMAND_TIME, 100e-6])
def test_the_adapters_time_per_command_caps_iops(command_time: float) -> None:
    """An initiator host whose FC adapter spends c per SCSI command it sends
    serves at most 1 / c commands a second: 512-byte random reads, 16 at a
    time, from a RAM disk that takes no time, otherwise cost nothing (the
    ideal host), so the card binds."""
    host = dataclasses.replace(load_host_model("ideal"), adapter_command_time=command_time)
    scenario = san(INSTANT, FioOptions("randread", 512, iodepth=16), 0.06, warmup=0.01)
    a, b = scenario.nodes
    scenario = dataclasses.replace(scenario, nodes=(dataclasses.replace(a, host=host), b))
    figures = run_scenario(scenario)["repetitions"][0]["storage"]["jobs"]["job"]
    assert figures["iops"] == pytest.approx(1 / command_time, rel=0.01)
    free = dataclasses.replace(host, adapter_command_time=0.0)  # the ideal host: no cap
    scenario = dataclasses.replace(scenario, nodes=(dataclasses.replace(a, host=free), b))
    figures = run_scenario(scenario)["repetitions"][0]["storage"]["jobs"]["job"]
    assert figures["iops"] > 1.5 / command_time
