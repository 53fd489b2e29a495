"""NVMe native multipath over two fabrics (docs/multipath.md, "NVMe
multipath"): how the namespace head shares reads among its paths by I/O
policy and ANA state, against the closed form of one 4GFC link's read rate
computed from the model's own frame sizes and link speed."""

from __future__ import annotations

import tomllib
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from fcsim.fc0.speed import speed_named
from fcsim.fc2.frame import MAX_DATA_FIELD, frame_chars
from fcsim.fc2.port import Port
from fcsim.fc4.nvme import ERSP_SIZE, RSP_SIZE, ersp_ratio
from fcsim.runner import run_once
from fcsim.scenario.loader import scenario_from_document

BS = 65536
DUAL = f"""\
topology = "fabric"
name = "NVMe over dual fabrics"
[run]
duration = "14 ms"
warmup = "4 ms"
[[switches]]
name = "swA"
model = "generic-nonblocking"
[[switches]]
name = "swB"
model = "generic-nonblocking"
[[nodes]]
name = "host"
ports = 2
[nodes.multipath]
iopolicy = "round-robin"
[[nodes]]
name = "array"
target = "tms-ramsan"
ports = 2
[[links]]
name = "hostA"
ends = ["host", "swA:0"]
speed = "4GFC"
[[links]]
name = "arrayA"
ends = ["array", "swA:1"]
speed = "4GFC"
[[links]]
name = "hostB"
ends = ["host.1", "swB:0"]
speed = "4GFC"
[[links]]
name = "arrayB"
ends = ["array.1", "swB:1"]
speed = "4GFC"
[[workloads]]
name = "job"
type = "fio"
protocol = "nvme"
from = "host"
to = "array"
rw = "randread"
bs = {BS}
iodepth = 32
"""


def one_link_reads() -> float:
    """Reads a second one 4GFC link carries back to back from the array: per
    read its data frames and its response (the shortened NVMe_RSP, an ERSP
    every ersp_ratio-th), each followed by the gap (the FC-NVMe closed form
    of tests/analytical/test_nvme_rates.py)."""
    rate = speed_named("4GFC")
    char, gap = rate.char_time, Port.GAP_WORDS * rate.word_time
    full, rest = divmod(BS, MAX_DATA_FIELD)
    frames = [MAX_DATA_FIELD] * full + ([rest] if rest else [])
    ratio = ersp_ratio(128)
    response = ((ratio - 1) * frame_chars(RSP_SIZE) + frame_chars(ERSP_SIZE)) / ratio * char
    return 1 / (sum(frame_chars(n) * char + gap for n in frames) + response + gap)


def run(doc: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The job's figures and the one NVMe multipath namespace's results."""
    out = run_once(scenario_from_document(doc, "nvme-multipath.toml"), 1)
    (head,) = out["storage"]["nvme_multipath"].values()
    return out["storage"]["jobs"]["job"], head


def test_round_robin_over_two_optimized_paths_gives_twice_one_links_rate() -> None:
    job, head = run(tomllib.loads(DUAL))
    ios = [p["ios"] for p in head["paths"].values()]
    assert len(ios) == 2 and abs(ios[0] - ios[1]) <= 1  # in turn
    assert job["errors"] == 0 and head["failovers"] == 0
    assert job["throughput_bytes_per_s"] / BS == pytest.approx(2 * one_link_reads(), rel=0.01)


def test_numa_keeps_every_read_on_the_first_optimized_path() -> None:
    """One NUMA node: __nvme_find_path's first optimized path stays current."""
    doc = tomllib.loads(DUAL)
    doc["nodes"][0]["multipath"]["iopolicy"] = "numa"
    job, head = run(doc)
    assert [p["ios"] for p in head["paths"].values()][1] == 0
    assert job["throughput_bytes_per_s"] / BS == pytest.approx(one_link_reads(), rel=0.01)


@pytest.mark.parametrize("policy", ["round-robin", "queue-depth", "numa"])
def test_a_non_optimized_path_carries_nothing_while_an_optimized_one_is_live(
        policy: str) -> None:
    doc = tomllib.loads(DUAL)
    doc["nodes"][0]["multipath"]["iopolicy"] = policy
    doc["nodes"][1]["ana_states"] = {"array": "non-optimized"}
    job, head = run(doc)
    paths = head["paths"]
    assert paths["host-array"]["ios"] == 0 and paths["host.1-array.1"]["ios"] > 0
    assert job["throughput_bytes_per_s"] / BS == pytest.approx(one_link_reads(), rel=0.01)


def test_queue_depth_over_two_optimized_paths_gives_twice_one_links_rate() -> None:
    doc = tomllib.loads(DUAL)
    doc["nodes"][0]["multipath"]["iopolicy"] = "queue-depth"
    job, head = run(doc)
    ios = [p["ios"] for p in head["paths"].values()]
    assert min(ios) > 0.45 * sum(ios)
    assert job["throughput_bytes_per_s"] / BS == pytest.approx(2 * one_link_reads(), rel=0.01)


@settings(max_examples=8, deadline=None)
@example(policy="numa", other="optimized", at=0.002364760085834392,
         down=0.0002695646138550583, queue_size=128)  # a response while the host logs in again
@given(policy=st.sampled_from(["numa", "round-robin", "queue-depth"]),
       other=st.sampled_from(["optimized", "non-optimized"]),
       at=st.floats(1e-3, 4e-3), down=st.floats(0.2e-3, 3e-3),
       queue_size=st.sampled_from([2, 128]))
def test_every_read_completes_once_across_a_link_failure(policy: str, other: str, at: float,
                                                         down: float, queue_size: int) -> None:
    """The whole model (FC-NVMe hosts, the fabric's link recovery, the
    transport's remote ports): a fixed number of reads, the host's cable in
    fabric A pulled for a while at a random time, each read completes exactly
    once and none fails; those aborted on A are counted once per path they
    took. With two-entry I/O queues most reads wait at the host for a queue
    entry when the link goes, and are terminated with those outstanding."""
    doc = tomllib.loads(DUAL)
    doc["run"] = {"duration": "20 ms"}
    doc["nodes"][0]["multipath"]["iopolicy"] = policy
    doc["nodes"][1]["ana_states"] = {"array.1": other}
    doc["workloads"][0] |= {"iodepth": 8, "count": 40, "queue_size": queue_size}
    doc["faults"] = [{"at": f"{at * 1e3} ms", "kind": "link-down", "link": "hostA",
                      "duration": f"{down * 1e3} ms"}]
    job, head = run(doc)
    assert job["ios"] == head["ios"] == 40 and job["errors"] == 0 and head["failed_ios"] == 0
    assert sum(p["ios"] for p in head["paths"].values()) == 40 + head["failovers"]
    assert head["failovers"] == head["paths"]["host-array"]["errors"]
