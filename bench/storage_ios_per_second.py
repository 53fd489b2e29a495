"""Simulated SCSI commands per wall-second: random 4 KiB reads at queue depth 32.

Three targets, each behind a 1GFC point-to-point link: a RAM disk (the
fabric and FCP exchanges alone set the pace: each command is a CMND, a DATA
sequence of two frames and an RSP, with their R_RDYs), a 10,000 rpm FC disk
(a few commands per simulated second: the mechanics set the pace, the cost
per command is what the bench shows) and a RAID 0 array of 16 such disks
(64 KiB stripe unit: each read one member command). Only the event loop is
timed.

Usage: python bench/storage_ios_per_second.py [--seconds S]
"""

from __future__ import annotations

import argparse
import time

from fcsim.build import BUILDERS
from fcsim.engine.simulation import Simulation
from fcsim.fc0.cable import Cable
from fcsim.fc0.speed import speed_named
from fcsim.scenario.model import LinkConfig, NodeConfig, RunConfig, Scenario
from fcsim.storage.build import Storage
from fcsim.storage.config import FioConfig
from fcsim.storage.device_model import ArrayModel, Device, load_device_model
from fcsim.workload.fio import FioOptions

ARRAY = ArrayModel("raid0-16", load_device_model("fc-disk-10k"), 16, 0,  # type: ignore[arg-type]
                   65536, controller_overhead=0.0, channel_rate=400e6)
"""16 fc-disk-10k drives striped, the back-end channel fast enough not to bind."""


def ios_per_second(device: str | Device, seconds: float) -> tuple[int, float]:
    """Commands completed and wall time of *seconds* simulated against *device*."""
    job = FioConfig("job", "host", "target", FioOptions("randread", 4096, iodepth=32))
    model = load_device_model(device) if isinstance(device, str) else device
    scenario = Scenario(
        "bench", "point-to-point", RunConfig(seconds),
        (NodeConfig("host"), NodeConfig("target", target=model)),
        (LinkConfig("link", ("host", "target"), speed_named("1GFC"), Cable(10.0)),), (job,))
    sim = Simulation(1)
    net = BUILDERS["point-to-point"](sim, scenario)
    storage = Storage(sim, scenario, net)
    start = time.perf_counter()
    sim.run(seconds)
    wall = time.perf_counter() - start
    (_, fio), = storage.jobs
    return fio.reads, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="simulated seconds")
    args = parser.parse_args()
    for device, seconds in (("tms-ramsan", args.seconds), ("fc-disk-10k", 20 * args.seconds),
                            (ARRAY, 5 * args.seconds)):
        ios, wall = ios_per_second(device, seconds)
        name = device if isinstance(device, str) else device.name
        print(f"{name:12s} {seconds:5.1f} s simulated: {ios:7d} commands in {wall:6.2f} s "
              f"wall = {ios / wall:8.0f} commands per wall-second "
              f"({ios / seconds:8.0f} IOPS simulated)")


if __name__ == "__main__":
    main()
