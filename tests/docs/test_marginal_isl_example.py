"""The with-and-without table of docs/multipath.md and docs/fpin.md is what
scenarios/multipath-marginal-isl.toml and multipath-marginal-isl-no-fpin.toml
give, and what the docs say of it holds: with FPIN the fabric-A path goes
marginal within one Link Integrity window of the fault and never fails, the
ISL's error count stops, no command waits for its timeout; without it a command whose response is
lost waits for its timeout and is retried on the same path, which never
fails, and errors keep coming."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fcsim.resources import DATA_ROOT
from fcsim.scenario.loader import load_scenario
from tests.example_runs import first_repetition

ROOT = Path(__file__).resolve().parents[2]
FAULT_AT = 0.05
"""When the examples' ISL turns marginal, s (their [[faults]] table)."""


def run(fpin: bool) -> dict[str, Any]:
    """The first repetition of the example with FPIN or without (run once
    with tests/docs/test_example_descriptions.py's check of it)."""
    name = "multipath-marginal-isl" + ("" if fpin else "-no-fpin")
    return first_repetition(load_scenario(DATA_ROOT / "scenarios" / f"{name}.toml"))


def row(fpin: bool) -> str:
    """The docs' table row with or without FPIN."""
    r = run(fpin)
    job = r["storage"]["jobs"]["oltp"]
    lat = {k: v * 1e3 for k, v in job["latency_s"].items()}
    host = r["storage"]["initiators"]["host"]
    isl = r["links"]["islA"]["directions"]
    errors = sum(d["errors"] for d in isl.values())
    path = r["storage"]["multipath"]["host:array"]["paths"]["host-array"]
    return (f"| {'with' if fpin else 'without'} FPIN | {job['iops']:.0f} IOPS, "
            f"{job['throughput_bytes_per_s'] / 1e6:.1f} MB/s | {lat['mean']:.2f} ms | "
            f"{lat['p99']:.2f} ms | {lat['max']:.2f} ms | {job['errors']} | "
            f"{host['retries']} / {host['timeouts']} | {errors} | "
            f"{path['ios']} requests, {path['failures']} failures"
            f"{', marginal' if path['marginal'] else ''} |")


def test_the_docs_tables_are_what_the_examples_give() -> None:
    for doc in ("multipath.md", "fpin.md"):
        text = (ROOT / "docs" / doc).read_text()
        assert row(False) in text and row(True) in text, doc


def test_fpin_moves_the_io_off_the_marginal_isl() -> None:
    """With FPIN: the path is marginal from the first window's end on, never
    fails, the ISL counts errors in at most two windows, and no command waits
    for its timeout (the job's maximum latency is below it). Without: commands
    time out and are retried on the path, which never fails, and the ISL
    counts more."""
    timeout = load_scenario(DATA_ROOT / "scenarios" / "multipath-marginal-isl.toml"
                            ).workloads[0].timeout
    with_, without = run(True), run(False)
    device = with_["storage"]["multipath"]["host:array"]
    window = 0.01
    marked = [e["time_s"] for e in device["events"] if e["event"].startswith("marginal")]
    assert len(marked) == 1 and FAULT_AT < marked[0] < FAULT_AT + 2 * window
    assert device["paths"]["host-array"]["failures"] == 0
    counts = with_["fpin"]["link_integrity_windows"]["swA1:1"]
    assert sum(1 for c in counts if c) <= 2
    assert with_["storage"]["jobs"]["oltp"]["latency_s"]["max"] < timeout
    assert with_["storage"]["initiators"]["host"]["timeouts"] == 0
    # without: a lost response's command is retried on its path after its timeout and
    # abort (sd's retries; scsi_noretry_cmd), so the path never fails
    host = without["storage"]["initiators"]["host"]
    assert host["timeouts"] >= 1 and host["failed"] == 0
    assert without["storage"]["multipath"]["host:array"]["paths"]["host-array"]["failures"] == 0
    assert without["storage"]["jobs"]["oltp"]["latency_s"]["max"] > timeout
    errs = [sum(d["errors"] for d in r["links"]["islA"]["directions"].values())
            for r in (with_, without)]
    assert errs[1] > 5 * errs[0]
