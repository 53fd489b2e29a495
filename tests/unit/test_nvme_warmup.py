"""An NVMe/FC host's figures cover the measured interval only, as the
controller's and fio's do: after a warm-up its ERSP and RSP counts are the
responses it received after it (fio's I/Os, give or take those in flight at
the warm-up's end), its ERSPs the controller's, and its connections' most
outstanding commands those seen after it."""

from __future__ import annotations

import dataclasses

from fcsim.runner import run_once
from fcsim.storage.config import FioConfig, NvmeOptions
from fcsim.storage.device_model import RamDiskModel
from fcsim.workload.fio import FioOptions
from tests.builders import p2p

RAM = RamDiskModel("ram", 2**30, 10e-6, 1e9)


def test_the_host_counts_responses_from_the_end_of_the_warm_up() -> None:
    depth = 4
    job = FioConfig("job", "a", "b", FioOptions("randread", 4096, depth),
                    nvme=NvmeOptions(1, 32))
    base = p2p((job,), 0.004, warmup=0.002, speed="4GFC")
    a, b = base.nodes
    scenario = dataclasses.replace(base, nodes=(a, dataclasses.replace(b, target=RAM)))
    storage = run_once(scenario, 1)["storage"]
    ios = storage["jobs"]["job"]["ios"]
    host = storage["nvme_initiators"]["a"]
    (conn,) = storage["nvme_targets"]["b"]["connections"].values()
    assert ios > 50
    assert abs(host["ersp"] + host["rsp"] - ios) <= depth
    assert abs(host["ersp"] + host["rsp"] - conn["responses"]) <= depth
    assert abs(host["ersp"] - conn["ersp"]) <= 1  # of those in flight, one at most an ERSP
    assert host["waited"] == 0
    (host_conn,) = next(iter(host["connections"].values()))
    assert host_conn["max_outstanding"] == depth
