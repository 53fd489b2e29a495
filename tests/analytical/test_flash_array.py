"""Closed forms of the all-flash array: a read at depth one is the
controller's latency and processor time, then the drive's controller, page
read and channel transfer; a cached write is the controller, then the copy to
the partner over the interconnect and its acknowledgement; deep enough, the
controller's processor sets the I/O rate (1 / controller_time); and the array
answers over SCSI-FCP and NVMe/FC alike."""

from __future__ import annotations

import dataclasses

import pytest

from fcsim.engine.simulation import Simulation
from fcsim.runner import run_scenario
from fcsim.storage.config import FioConfig, NvmeOptions
from fcsim.storage.device_model import FlashArrayModel, load_device_model
from fcsim.storage.flash_array import FlashArray
from fcsim.workload.fio import FioOptions
from tests.builders import p2p

AFA: FlashArrayModel = load_device_model("afa-24-mqsim")  # type: ignore[assignment]


def _one(model: FlashArrayModel, write: bool, length: int) -> float:
    sim = Simulation(1)
    array = FlashArray(sim, "afa", model)
    finished: list[float] = []
    array.submit(write, 3 * model.stripe_unit, length, lambda: finished.append(sim.now))
    sim.run(1.0)
    assert len(finished) == 1
    return finished[0]


def test_a_read_is_the_controller_then_the_drive() -> None:
    ssd = AFA.ssd
    expected = (AFA.controller_latency + AFA.controller_time + ssd.controller_latency
                + ssd.read_latency + 4096 / ssd.channel_rate)
    assert _one(AFA, False, 4096) == pytest.approx(expected, rel=1e-9)


def test_a_cached_write_is_the_controller_then_the_mirror() -> None:
    expected = (AFA.controller_latency + AFA.controller_time + 65536 / AFA.mirror_rate
                + AFA.mirror_latency)
    assert _one(AFA, True, 65536) == pytest.approx(expected, rel=1e-9)


def test_without_a_cache_a_write_waits_for_the_drives_buffers() -> None:
    model = dataclasses.replace(AFA, cache=0)
    ssd = AFA.ssd
    expected = AFA.controller_latency + AFA.controller_time + ssd.controller_latency
    assert _one(model, True, 4096) == pytest.approx(expected, rel=1e-9)


def test_a_range_is_striped_round_robin_in_stripe_units() -> None:
    array = FlashArray(Simulation(1), "afa", AFA)
    unit = AFA.stripe_unit
    pieces = array.pieces(unit * (AFA.ssds - 1) + unit // 2, unit * 2)
    assert pieces == [(AFA.ssds - 1, unit // 2, unit // 2), (0, unit, unit),
                      (1, unit, unit // 2)]


def _san(nvme: bool, rw: str, depth: int, duration: float, warmup: float) -> dict:
    job = FioConfig("job", "a", "b", FioOptions(rw, 4096, depth),
                    nvme=NvmeOptions(4) if nvme else None)
    base = p2p((job,), duration, warmup, speed="64GFC")
    a, b = base.nodes
    scenario = dataclasses.replace(base, nodes=(a, dataclasses.replace(b, target=AFA)))
    return run_scenario(scenario)["repetitions"][0]["storage"]


@pytest.mark.parametrize("nvme", [False, True])
def test_deep_cached_writes_run_at_the_controllers_rate(nvme: bool) -> None:
    """4 KiB writes, 256 outstanding over 64GFC: the cache takes them, so the
    controller's processor (2 us a command) binds, at 500 k writes/s."""
    storage = _san(nvme, "randwrite", 256, 3e-3, 1e-3)
    target = storage["targets"]["b"]
    assert target["limit"] == "array controller"
    assert storage["jobs"]["job"]["iops"] == pytest.approx(1 / AFA.controller_time, rel=0.01)
    assert storage["jobs"]["job"]["errors"] == 0
