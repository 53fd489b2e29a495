"""Invariants of FC-NVMe under lost frames: random jobs run through a random
burst of bit errors, with and without SLER; every command completes exactly
once or fails with an error fio reports, no connection ever holds more
commands than its negotiated size (at the host or at the controller), and
every byte asked for reaches the drive and every read byte the host. A
command failed in the transport resets its association: the run lasts long
enough for a reconnection whose link service was lost to time out and try
again, and a reset closes the connections it replaces unless its
Disconnect Association is lost."""

from __future__ import annotations

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st

from fcsim.faults.config import FaultConfig
from fcsim.fc2.login import ServiceParameters
from fcsim.fc4.nvme_recovery import LS_TIMEOUT, RECONNECT_DELAY, reconnect_limit
from fcsim.runner import run_scenario
from fcsim.storage.config import FioConfig, NvmeOptions
from fcsim.storage.device_model import RamDiskModel
from fcsim.workload.fio import FioOptions
from tests.builders import p2p

RAM = RamDiskModel("ram", 2**30, 10e-6, 1e9, queue_depth=8)
E_D_TOV = 0.01
"""A short E_D_TOV (REC_TOV 1.01 s), so that recoveries end within the run, s."""
TIMEOUT = 2.0
"""The NVMe layer's I/O timeout of the jobs, s: longer than REC_TOV, as
Linux's 30 s is longer than its 3 s, so that SLER recovers first."""
DURATION = 12.0 + LS_TIMEOUT + reconnect_limit(RECONNECT_DELAY, 600.0)[0]
"""The run, s: the recoveries within 12 s, and a reconnection attempt lost to
the burst timed out and made again after it."""


@settings(max_examples=60, deadline=None)
@given(rw=st.sampled_from(["read", "write", "randread", "randwrite", "randrw"]),
       blocks=st.integers(1, 6), iodepth=st.integers(1, 12), numjobs=st.integers(1, 2),
       count=st.integers(1, 10), queue_size=st.integers(2, 16),
       first_burst=st.sampled_from([0, 2048, 8192]), host_sler=st.booleans(),
       target_sler=st.booleans(), rate=st.floats(3e-6, 1e-4),
       start=st.floats(20e-6, 100e-6), length=st.floats(20e-6, 1e-3),
       seed=st.integers(1, 1000))
def test_every_command_completes_once_or_fails_reported_within_its_queue(
        rw: str, blocks: int, iodepth: int, numjobs: int, count: int, queue_size: int,
        first_burst: int, host_sler: bool, target_sler: bool, rate: float, start: float,
        length: float, seed: int) -> None:
    bs = blocks * 2048
    options = FioOptions(rw, bs, iodepth, numjobs, size=2**20, count=count)
    job = FioConfig("job", "a", "b", options, timeout=TIMEOUT,
                    nvme=NvmeOptions(1, queue_size, first_burst))
    params = ServiceParameters(e_d_tov=E_D_TOV)
    base = p2p((job,), DURATION, speed="4GFC", a=params, b=params, seed=seed)
    a, b = base.nodes
    fault = FaultConfig(start, "bit-error-rate", link="link", bit_error_rate=rate,
                        duration=length)
    scenario = dataclasses.replace(
        base, nodes=(dataclasses.replace(a, nvme_sler=host_sler),
                     dataclasses.replace(b, target=RAM, nvme_sler=target_sler)),
        faults=(fault,))
    storage = run_scenario(scenario)["repetitions"][0]["storage"]
    total = numjobs * count
    figures = storage["jobs"]["job"]
    host = storage["nvme_initiators"]["a"]
    recovery = host.get("recovery", {})
    # every completion counted once, every failure reported
    assert host["ersp"] + host["rsp"] == figures["ios"]
    assert recovery.get("failed", 0) == figures["errors"]
    if figures["errors"] == 0:  # (a job stops at its first error, fio's default)
        assert figures["ios"] == total and figures["elapsed_s"] is not None
    assert figures["bytes"] == figures["ios"] * bs
    assert recovery.get("sler", []) == (["000002"] if host_sler and target_sler and recovery
                                        else [])
    if not (host_sler and target_sler):
        assert recovery.get("recs", 0) == recovery.get("retransmission_requests", 0) == 0
    # bytes conserved: the drive saw every byte of every command that completed
    device = storage["targets"]["b"]
    assert device["bytes_written"] >= figures["write_ios"] * bs
    assert device["bytes"] >= figures["ios"] * bs
    # queue sizes: never more outstanding than negotiated, at either end
    sqsize = min(queue_size, RAM.queue_depth)
    for conn in host["connections"]["000002"]:
        assert conn["sqsize"] == sqsize and conn["max_outstanding"] <= sqsize
    connections = storage["nvme_targets"]["b"]["connections"].values()
    for conn in connections:
        assert conn["sqsize"] == sqsize
        assert conn["max_outstanding"] <= sqsize and conn["overruns"] == 0
    # a failure in the transport (a retry, or an error) resets the association,
    # and only such a failure does; each reset ends with it made again
    resets = recovery.get("association_resets", 0)
    assert (resets > 0) == (recovery.get("retries", 0) + recovery.get("failed", 0) > 0)
    assert recovery.get("reconnects", 0) >= resets
    assert recovery.get("controllers_lost", 0) == 0
    # (a Disconnect Association lost to the burst leaves its association open
    # at the controller: the host does not wait for its answer)
    assert 1 <= sum(1 for c in connections if not c.get("closed")) <= 1 + recovery.get(
        "reconnects", 0)
    assert 1 + resets <= len(connections) <= 1 + recovery.get("reconnects", 0)
