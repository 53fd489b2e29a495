"""Hosts on the edge switches of a generated fabric reading from storage
targets the `[fabric.storage]` table places on the cores: what they read
together is bounded by the targets, each carrying the lesser of its device's
internal rate and its link's FCP payload ceiling; and fan-out streams sharing
their source's link (closed forms from the model's own values)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fcsim.fc0.speed import speed_named
from fcsim.fc2.frame import frame_chars
from fcsim.fc2.login import ServiceParameters
from fcsim.fc2.port import MIN_FILL_WORDS
from fcsim.fc4.fcp import FCP_RSP_SIZE
from fcsim.runner import run_scenario
from fcsim.scenario.loader import load_scenario
from fcsim.storage.device_model import load_device_model

BS = 64 * 1024
FABRIC = """topology = "fabric"
description = "hosts on edges, RAM disks on the cores"
[run]
duration = "{duration}"
warmup = "5 ms"
login = false
[fabric]
kind = "core-edge"
switches = 4
cores = 2
model = "generic-nonblocking"
nodes_per_switch = 3
speed = "{speed}"
[fabric.storage]
count = 2
on = "core"
model = "{model}"
bs = "64 KiB"
iodepth = 4
"""
SLOW_RAM = """description = "a RAM disk slower than its FC link (test model)"
capacity = {{ value = 1000000000, source = "test" }}
access_latency = {{ value = "15 us", source = "test" }}
internal_rate = {{ value = {rate}, source = "test: below the link's payload ceiling" }}
queue_depth = {{ value = 64, source = "test" }}
"""


def sequence_chars(size: int) -> int:
    """Transmission characters of a sequence of *size* payload bytes: frames
    of the receiver's data field (the login default, 2112 B), the last one
    partial, each followed by MIN_FILL_WORDS fill words."""
    gap = 4 * MIN_FILL_WORDS
    field = ServiceParameters().rx_data_field
    full, rest = divmod(size, field)
    return full * (frame_chars(field) + gap) + (frame_chars(rest) + gap if rest else 0)


def payload_ceiling(speed: str) -> float:
    """Read data a target's link carries, bytes/s: per command of BS bytes,
    its FCP_DATA sequence and one FCP_RSP frame (with its fill words), at the
    link's character rate."""
    chars = sequence_chars(BS) + frame_chars(FCP_RSP_SIZE) + 4 * MIN_FILL_WORDS
    return speed_named(speed).char_rate * BS / chars


def _read_together(tmp_path: Path, speed: str, model: str, duration: str) -> tuple[float, int]:
    path = tmp_path / "storage.toml"
    path.write_text(FABRIC.format(speed=speed, model=model, duration=duration), encoding="utf-8")
    scenario = load_scenario(path)
    jobs = run_scenario(scenario)["repetitions"][0]["storage"]["jobs"]
    assert sum(job["errors"] for job in jobs.values()) == 0
    return sum(job["throughput_bytes_per_s"] for job in jobs.values()), len(jobs)


def test_ram_disks_faster_than_their_links_fill_them(tmp_path: Path) -> None:
    """tms-ramsan moves data at 1.5 GB/s, above 2GFC's payload ceiling: the
    two targets' links bound the six hosts, 2 x the ceiling."""
    device = load_device_model("tms-ramsan")
    ceiling = payload_ceiling("2GFC")
    assert device.internal_rate > ceiling
    total, hosts = _read_together(tmp_path, "2GFC", "tms-ramsan", "30 ms")
    assert hosts == 6
    assert total == pytest.approx(2 * min(device.internal_rate, ceiling), rel=0.01)


def test_ram_disks_slower_than_their_links_bound_the_hosts(tmp_path: Path) -> None:
    """A RAM disk whose internal rate is below the link's ceiling: the hosts
    read together what the two devices move, 2 x internal_rate."""
    model = tmp_path / "slow-ram.toml"
    model.write_text(SLOW_RAM.format(rate=60e6), encoding="utf-8")
    device = load_device_model(str(model))
    assert device.internal_rate < payload_ceiling("2GFC")
    total, _ = _read_together(tmp_path, "2GFC", str(model), "60 ms")
    assert total == pytest.approx(2 * min(device.internal_rate, payload_ceiling("2GFC")),
                                  rel=0.01)


FAN_OUT = """topology = "fabric"
description = "one N_Port sending to five"
[run]
duration = "3 ms"
warmup = "1 ms"
login = false
[fabric]
kind = "full-mesh"
switches = 2
model = "generic-nonblocking"
nodes_per_switch = 3
speed = "2GFC"
traffic = "fan-out"
sources = 1
stream_size = "64 KiB"
outstanding = 2
"""


def test_fan_out_shares_the_source_s_link(tmp_path: Path) -> None:
    """traffic = 'fan-out' from one N_Port to the five others: the five
    streams share the source's link, together its Class 3 payload ceiling
    (sequences of 64 KiB in frames of the login's data field, the last one
    partial, each frame followed by MIN_FILL_WORDS fill words); each gets a
    fifth of it."""
    path = tmp_path / "fan-out.toml"
    path.write_text(FAN_OUT, encoding="utf-8")
    scenario = load_scenario(path)
    workloads = run_scenario(scenario)["repetitions"][0]["workloads"]
    assert sorted(workloads) == [f"fanout{i}" for i in range(5)]
    size = 64 * 1024
    ceiling = speed_named("2GFC").char_rate * size / sequence_chars(size)
    rates = [w["throughput_bytes_per_s"] for w in workloads.values()]
    assert sum(rates) == pytest.approx(ceiling, rel=0.01)
    for rate in rates:
        assert rate == pytest.approx(ceiling / 5, rel=0.05)
