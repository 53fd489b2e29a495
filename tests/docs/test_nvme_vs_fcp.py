"""The SCSI-FCP against NVMe/FC table of docs/storage.md is what the two
example files give with `rw` and `iodepth` changed, and its explanation
holds: a write over NVMe with a first burst saves the link's round trip,
reads cost the same, and at depth 32 writes run at the link's rate."""

from __future__ import annotations

import dataclasses
from functools import cache
from pathlib import Path

import pytest

from fcsim.fc2.frame import frame_chars
from fcsim.fc2.port import Port
from fcsim.fc4.nvme import CMD_IU_SIZE
from fcsim.resources import DATA_ROOT
from fcsim.runner import run_scenario
from fcsim.scenario.loader import load_scenario

ROOT = Path(__file__).resolve().parents[2]
ROWS = [(rw, depth) for rw in ("randread", "randwrite") for depth in (1, 8, 32)]


@cache
def figures(protocol: str, rw: str, depth: int) -> tuple[float, float]:
    """IOPS and mean latency (s) of the example over *protocol* ('scsi' or
    'nvme') with *rw* and *depth*."""
    scenario = load_scenario(DATA_ROOT / "scenarios" / f"nvme-vs-fcp-{protocol}.toml")
    job = scenario.workloads[0]
    job = dataclasses.replace(job, options=dataclasses.replace(job.options, rw=rw,
                                                               iodepth=depth))
    result = run_scenario(dataclasses.replace(scenario, workloads=(job,)))
    out = result["repetitions"][0]["storage"]["jobs"][job.name]
    return out["iops"], out["latency_s"]["mean"]


def row(rw: str, depth: int) -> str:
    """The table's row for *rw* at *depth*."""
    (fi, fl), (ni, nl) = figures("scsi", rw, depth), figures("nvme", rw, depth)
    return (f"| {rw} 4 KiB | {depth} | {fi / 1e3:.1f} k | {fl * 1e6:.1f} us "
            f"| {ni / 1e3:.1f} k | {nl * 1e6:.1f} us |")


@pytest.mark.parametrize(("rw", "depth"), ROWS)
def test_the_docs_table_row_is_what_the_examples_give(rw: str, depth: int) -> None:
    assert row(rw, depth) in (ROOT / "docs" / "storage.md").read_text()


def _link() -> tuple[float, float, float]:
    scenario = load_scenario(DATA_ROOT / "scenarios" / "nvme-vs-fcp-nvme.toml")
    link = scenario.links[0]
    return link.speed.char_time, link.speed.word_time, link.cable.length * 5e-9


def test_a_write_at_depth_one_saves_the_round_trip_of_the_transfer_ready() -> None:
    _char, _word, propagation = _link()
    saved = figures("scsi", "randwrite", 1)[1] - figures("nvme", "randwrite", 1)[1]
    assert saved == pytest.approx(2 * propagation, rel=0.01)
    assert figures("scsi", "randread", 1)[1] == pytest.approx(
        figures("nvme", "randread", 1)[1], rel=1e-3)


def test_writes_at_depth_32_run_at_the_links_rate() -> None:
    """Toward the target each write is its command and two data frames, each
    followed by the gap, and the R_RDY returned for its response."""
    char, word, _ = _link()
    gap = Port.GAP_WORDS * word
    per_write = (sum(frame_chars(n) * char + gap for n in (CMD_IU_SIZE, 2112, 1984)) + word)
    assert figures("nvme", "randwrite", 32)[0] == pytest.approx(1 / per_write, rel=0.01)
