"""The with-and-without table of docs/fpin.md is what
scenarios/fabric-slow-drain-fpin.toml gives with its [fpin] table and
without, and what it says holds: throttling gives the other host the ISL
back while the slow host keeps its drain rate."""

from __future__ import annotations

import dataclasses
from functools import cache
from pathlib import Path

from fcsim.resources import DATA_ROOT
from fcsim.scenario.loader import load_scenario
from tests.example_runs import first_repetition

ROOT = Path(__file__).resolve().parents[2]


@cache
def jobs(fpin: bool) -> dict:
    """The example's fio results, with its [fpin] table or without."""
    scenario = load_scenario(DATA_ROOT / "scenarios" / "fabric-slow-drain-fpin.toml")
    if not fpin:
        scenario = dataclasses.replace(scenario, fpin=None, throttle=None)
    return first_repetition(scenario)["storage"]["jobs"]


def row(fpin: bool) -> str:
    """The table's row with or without FPIN."""
    cells = [f"{job['throughput_bytes_per_s'] / 1e6:.1f} MB/s, {job['iops']:.0f} IOPS, "
             f"latency mean {job['latency_s']['mean'] * 1e3:.2f} ms, "
             f"p99 {job['latency_s']['p99'] * 1e3:.2f} ms"
             for job in (jobs(fpin)["slow-reads"], jobs(fpin)["fast-reads"])]
    return f"| {'with' if fpin else 'without'} FPIN | {cells[0]} | {cells[1]} |"


def test_the_docs_table_is_what_the_example_gives() -> None:
    text = (ROOT / "docs" / "fpin.md").read_text()
    assert row(False) in text and row(True) in text


def test_throttling_gives_the_isl_back_and_the_slow_host_keeps_its_rate() -> None:
    """The slow host drains 40 MB/s of payload: it reads at that rate with
    and without (within 5 %); the other host, held to about the same rate
    by head-of-line blocking without FPIN, gets at least five times more with."""
    drain = 40e6
    for fpin in (False, True):
        slow = jobs(fpin)["slow-reads"]["throughput_bytes_per_s"]
        assert abs(slow - drain) < 0.05 * drain
    assert jobs(False)["fast-reads"]["throughput_bytes_per_s"] < 1.5 * drain
    assert (jobs(True)["fast-reads"]["throughput_bytes_per_s"]
            > 5 * jobs(False)["fast-reads"]["throughput_bytes_per_s"])
