"""Faults under an fio job on a two-switch fabric (host on sw1, a RAM disk on
sw2, two ISLs): an ISL pulled, the disk's switch failed, its switch port
failed, the host's cable pulled, each for 3 ms. Every command completes
exactly once (fio's I/Os are the job's count, no error), fio's bytes, and
its byte rate over the run, are the count times the block size (each
command's data counted once, an aborted attempt's taken back), the
controller executed every command at least once, and each command the
host timed out was aborted and sent again once (NVMe: none failed; each
timed out one resets its association, whose other commands are aborted and
sent again once too).
FSPF's Min_LS_Interval and Min_LS_Arrival are 1 ms here so that the
restarted switch routes again within the run (with FC-SW's 5 s and 1 s
it routes over its ISLs only 5 s after its neighbour's last LSR).

A command sent again after its data arrived counts that data once in the
job's byte rate, as fio does (the last test, one command whose response is
lost, point to point)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from fcsim.fabric.fspf import FspfTimers
from fcsim.faults.config import FaultConfig
from fcsim.fc2 import header as h
from fcsim.runner import _run_once, run_once
from fcsim.storage.config import FioConfig, NvmeOptions
from fcsim.storage.device_model import RamDiskModel
from fcsim.workload.fio import FioOptions
from tests.builders import fabric, p2p
from tests.unit.test_nvme_recovery import SPEED, _Frames, _hit

RAM = RamDiskModel("ram", 2**30, 10e-6, 1e9)
BS, COUNT, DEPTH = 8192, 400, 4
DURATION = 0.1
FAST_FSPF = FspfTimers(1e-3, 1e-3, 5e-3, 0.0)
FAULTS = {
    "isl-down": FaultConfig(0.002, "link-down", link="isl0", duration=0.003),
    "disk-switch-failure": FaultConfig(0.002, "switch-failure", switch="sw2", duration=0.003),
    "disk-switch-port-failure": FaultConfig(0.002, "port-failure", port="sw2:0",
                                            duration=0.003),
    "host-cable-pulled": FaultConfig(0.002, "link-down", link="l-host", duration=0.003),
}


def _run(protocol: str, rw: str, fault: FaultConfig) -> dict[str, Any]:
    job = FioConfig("job", "host", "disk", FioOptions(rw, BS, DEPTH, count=COUNT),
                    timeout=0.02, nvme=NvmeOptions(1, 32) if protocol == "nvme" else None)
    scenario = fabric({"host": "sw1:0", "disk": "sw2:0"}, (job,), DURATION,
                      switches={"sw1": "generic-nonblocking", "sw2": "generic-nonblocking"},
                      isls=(("sw1:10", "sw2:10"), ("sw1:11", "sw2:11")))
    host, disk = scenario.nodes
    scenario = dataclasses.replace(scenario, nodes=(host, dataclasses.replace(disk, target=RAM)),
                                   faults=(fault,), fspf=FAST_FSPF)
    return run_once(scenario, 1)["storage"]


@pytest.mark.parametrize("fault", list(FAULTS))
@pytest.mark.parametrize(("protocol", "rw"), [("fcp", "read"), ("fcp", "write"),
                                              ("nvme", "read"), ("nvme", "write"),
                                              ("nvme", "randrw")])
def test_every_command_completes_once_through_the_fault(protocol: str, rw: str,
                                                        fault: str) -> None:
    storage = _run(protocol, rw, FAULTS[fault])
    job = storage["jobs"]["job"]
    assert job["errors"] == 0 and job["elapsed_s"] is not None
    assert job["ios"] == COUNT
    assert job["bytes"] == job["moved_bytes"] == COUNT * BS
    assert job["read_ios"] + job["write_ios"] == COUNT
    # the byte rate: every command's data once, as it arrived (none still arriving)
    assert job["throughput_bytes_per_s"] * DURATION == pytest.approx(COUNT * BS, abs=1e-6)
    target = storage["targets"]["disk"]
    assert target["commands"] >= COUNT and target["bytes"] >= COUNT * BS
    if protocol == "fcp":
        host = storage["initiators"]["host"]
        assert host["retries"] >= host["timeouts"]  # each timed out one sent again
        assert target["commands"] <= COUNT + host["retries"]
    else:
        recovery = storage["nvme_initiators"]["host"].get("recovery", {})
        assert recovery.get("failed", 0) == 0
        # each command timed out is aborted, and so is every other one outstanding
        # on the association it resets; each aborted one is sent again once
        aborts = recovery.get("aborts", 0)
        assert aborts >= recovery.get("timeouts", 0)
        assert recovery.get("retries", 0) == aborts
        assert (recovery.get("association_resets", 0) > 0) == (aborts > 0)
        assert target["commands"] <= COUNT + recovery.get("retries", 0) + recovery.get(
            "commands_resent", 0)


@pytest.mark.parametrize("protocol", ["fcp", "nvme"])
@pytest.mark.parametrize("rw", ["read", "write"])
def test_the_byte_rate_counts_a_retried_command_s_data_once(protocol: str, rw: str) -> None:
    """One command over a point-to-point link whose response is lost (one
    corrupted character in its frame at the host): its data arrived, the
    host times it out, aborts it and sends it again, and its data arrives
    again. fio's byte rate over the run is its one block over the run, as
    fio counts each I/O's bytes once."""
    clean, frames = _one(protocol, rw)
    (response,) = frames.of(h.R_CTL_COMMAND_STATUS)
    lost, _ = _one(protocol, rw, (_hit(response, "a"),))
    job = lost["jobs"]["job"]
    assert job["ios"] == 1 and job["bytes"] == 4096
    retries = (lost["initiators"]["a"]["retries"] if protocol == "fcp"
               else lost["nvme_initiators"]["a"]["recovery"]["retries"])
    assert retries == 1
    assert job["throughput_bytes_per_s"] * ONE_DURATION == pytest.approx(4096)


ONE_DURATION = 0.02


def _one(protocol: str, rw: str, faults: tuple[FaultConfig, ...] = ()) -> tuple[Any, Any]:
    """One 4 KiB command from "a" to a RAM disk "b" over 1 m of 4GFC, timed out
    after 2 ms; the run's storage results and its frames."""
    job = FioConfig("job", "a", "b", FioOptions(rw, 4096, count=1), timeout=0.002,
                    nvme=NvmeOptions(1, 32) if protocol == "nvme" else None)
    base = p2p((job,), ONE_DURATION, speed=SPEED)
    a, b = base.nodes
    scenario = dataclasses.replace(base, nodes=(a, dataclasses.replace(b, target=RAM)),
                                   faults=faults)
    frames = _Frames()
    result, _sim = _run_once(scenario, 1, [frames], None, None)
    return result["storage"], frames
