"""The host's storage stack per command: over FCP the SCSI stack's
scsi_command_cpu, over FC-NVMe the NVMe stack's nvme_command_cpu, charged on
the host's processor with each command's completion. At depth one a
command's latency grows by it; deep enough, the processor sets the rate at
1 / (its time per command)."""

from __future__ import annotations

import dataclasses

import pytest

from fcsim.host.host_model import load_host_model
from fcsim.runner import run_scenario
from fcsim.storage.config import FioConfig, NvmeOptions
from fcsim.storage.device_model import RamDiskModel
from fcsim.workload.fio import FioOptions
from tests.builders import p2p

RAM = RamDiskModel("ram", 2**30, 10e-6, 1e10, 1024)
HOST = dataclasses.replace(load_host_model("ideal"), scsi_command_cpu=8e-6,
                           nvme_command_cpu=5e-6)
"""The ideal host (no other cost; its 533 MB/s bus carries 512-byte reads at
the rates here) with an assumed stack time per command."""


def _job(nvme: bool, depth: int, host: object = HOST) -> dict:
    job = FioConfig("job", "a", "b", FioOptions("randread", 512, depth),
                    nvme=NvmeOptions(1, 1024) if nvme else None)
    base = p2p((job,), 10e-3, 2e-3, speed="16GFC")
    a, b = base.nodes
    scenario = dataclasses.replace(base, nodes=(dataclasses.replace(a, host=host),
                                                dataclasses.replace(b, target=RAM)))
    return run_scenario(scenario)["repetitions"][0]["storage"]["jobs"]["job"]


@pytest.mark.parametrize(("nvme", "cost"), [(False, HOST.scsi_command_cpu),
                                            (True, HOST.nvme_command_cpu)])
def test_the_stack_adds_its_time_at_depth_one_and_bounds_the_rate(
        nvme: bool, cost: float) -> None:
    free = dataclasses.replace(HOST, scsi_command_cpu=0.0, nvme_command_cpu=0.0)
    base = _job(nvme, 1, free)["latency_s"]["mean"]
    assert _job(nvme, 1)["latency_s"]["mean"] == pytest.approx(base + cost, rel=1e-5)
    # 16 outstanding: more than (the ~12 us a read takes + the stack) / the stack,
    # so the processor is never idle
    assert _job(nvme, 16)["iops"] == pytest.approx(1 / cost, rel=0.01)
