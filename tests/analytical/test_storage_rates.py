"""Closed forms of SCSI over FC: a disk's sequential and random rates, a RAM
disk's latency, the extra round trip of a write."""

from __future__ import annotations

import dataclasses

import pytest

from fcsim.fc0.speed import speed_named
from fcsim.host.adapter import ADAPTER_COMMAND_TIME
from fcsim.host.host_model import load_host_model
from fcsim.runner import run_scenario
from fcsim.scenario.model import NodeConfig, Scenario
from fcsim.scenario.workload_model import FioConfig
from fcsim.storage.device_model import DiskModel, RamDiskModel, load_disk_model
from fcsim.workload.fio import FioOptions
from tests.builders import p2p

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
