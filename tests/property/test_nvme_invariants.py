"""Invariants of NVMe over FC under random jobs: every command completes
exactly once, no connection ever holds more commands than its negotiated
size (at the host or at the target), every byte asked for reaches the drive
(whose write buffer never holds more than it can, even for a write larger
than it),
and the responses are ERSPs exactly every ersp_ratio-th on each connection."""

from __future__ import annotations

import dataclasses

from hypothesis import example, given, settings
from hypothesis import strategies as st

from fcsim.runner import run_scenario
from fcsim.storage.config import FioConfig, NvmeOptions
from fcsim.storage.device_model import SsdModel
from fcsim.workload.fio import FioOptions
from tests.builders import p2p


def _ssd(mqes: int, buffer_pages: int, collects: bool = False) -> SsdModel:
    """A small drive: two channels of two dies, a write buffer of a few pages;
    *collects*: a tiny one (6 blocks of 4 pages a die, half of it spare, 1 ms
    erases) whose garbage collection a few writes set off."""
    if collects:
        return SsdModel("tiny", 4 * 6 * 4 * 4096 // 2, 5e-6, 20e-6, 50e-6, 2, 2, 4096,
                        200e6, buffer_pages * 4096, mqes, pages_per_block=4,
                        blocks_per_die=6, gc_threshold=0.2, gc_hard_threshold=0.0,
                        erase_latency=1e-3, preconditioned=True)
    return SsdModel("small", 2**30, 5e-6, 20e-6, 50e-6, 2, 2, 4096, 200e6,
                    buffer_pages * 4096, mqes)


@settings(max_examples=25, deadline=None)
@given(rw=st.sampled_from(["read", "write", "randread", "randwrite", "randrw"]),
       blocks=st.integers(1, 6), iodepth=st.integers(1, 24), numjobs=st.integers(1, 3),
       count=st.integers(1, 12), queues=st.integers(1, 3), queue_size=st.integers(2, 16),
       mqes=st.integers(2, 16), first_burst=st.sampled_from([0, 2048, 8192]),
       buffer_pages=st.integers(2, 8), seed=st.integers(1, 1000), collects=st.booleans())
@example(rw="write", blocks=5, iodepth=1, numjobs=1, count=1, queues=1, queue_size=2, mqes=2,
         first_burst=0, buffer_pages=2, seed=1, collects=False)  # a write past the buffer
@example(rw="randwrite", blocks=2, iodepth=16, numjobs=2, count=12, queues=2, queue_size=8,
         mqes=8, first_burst=4096, buffer_pages=4, seed=3, collects=True)  # collecting
def test_every_command_completes_once_within_its_queue(
        rw: str, blocks: int, iodepth: int, numjobs: int, count: int, queues: int,
        queue_size: int, mqes: int, first_burst: int, buffer_pages: int, seed: int,
        collects: bool) -> None:
    bs = blocks * 2048
    ssd = _ssd(mqes, buffer_pages, collects)
    options = FioOptions(rw, bs, iodepth, numjobs, size=min(2**20, ssd.capacity), count=count)
    job = FioConfig("job", "a", "b", options,
                    nvme=NvmeOptions(queues, queue_size, first_burst))
    base = p2p((job,), 0.2, speed="2GFC", seed=seed)
    a, b = base.nodes
    scenario = dataclasses.replace(base, nodes=(a, dataclasses.replace(b, target=ssd)))
    storage = run_scenario(scenario)["repetitions"][0]["storage"]
    total = numjobs * count
    figures = storage["jobs"]["job"]
    assert figures["errors"] == 0
    assert figures["ios"] == total and figures["elapsed_s"] is not None
    assert figures["bytes"] == total * bs
    device = storage["targets"]["b"]
    assert device["commands"] == total and device["bytes"] == total * bs
    assert device["bytes_written"] == figures["write_ios"] * bs
    assert device["most_buffered_bytes"] <= ssd.write_buffer
    sqsize = min(queue_size, mqes)
    connections = storage["nvme_targets"]["b"]["connections"]
    assert len(connections) == queues
    responses = 0
    for conn in connections.values():
        assert conn["sqsize"] == sqsize
        assert conn["max_outstanding"] <= sqsize and conn["overruns"] == 0
        assert conn["ersp"] == conn["responses"] // conn["ersp_ratio"]
        responses += conn["responses"]
    assert responses == total
    host = next(iter(storage["nvme_initiators"].values()))
    assert host["ersp"] + host["rsp"] == total
    for conn in next(iter(host["connections"].values())):
        assert conn["sqsize"] == sqsize and conn["max_outstanding"] <= sqsize
