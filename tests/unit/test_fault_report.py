"""The incident report of a run with faults: the summary reads as one, every
key of the JSON is documented, and a run without faults has neither."""

from __future__ import annotations

from pathlib import Path

from fcsim.report import summary_text
from fcsim.runner import run_scenario
from fcsim.scenario.loader import load_scenario

ROOT = Path(__file__).resolve().parents[2]
RESULTS_DOC = (ROOT / "docs" / "results.md").read_text(encoding="utf-8")


def test_the_pulled_cable_summary_reads_as_an_incident_report() -> None:
    results = run_scenario(load_scenario(ROOT / "scenarios" / "p2p-pulled-cable.toml"))
    lines = summary_text(results).splitlines()
    start = lines.index("incidents (first repetition)")
    assert lines[start + 1:start + 6] == [
        "  #1 link-down of link fibre at 10.00 ms",
        "     detected at 10.10 ms (+100.0 us): host: loss of signal",
        "     service restored at 30.15 ms (every port Active, every N_Port logged in again): "
        "20.15 ms after the fault",
        "     lost 7 frame(s), 14.78 kB of payload; 0 frame(s) dropped with errors; 0 B sent "
        "again",
        "     throughput before 103.1 MB/s, during 34.54 kB/s, after 103.2 MB/s"]
    assert "       30.125678 ms host: LR3 -> AC: IDLE recognised" in lines
    assert "       (state changes as under #1)" in lines


def test_every_key_of_the_faults_json_is_documented() -> None:
    results = run_scenario(load_scenario(ROOT / "scenarios" / "fabric-isl-failure.toml"))
    faults = results["repetitions"][0]["faults"]
    keys = {*faults, *faults["schedule"][0], *faults["schedule"][0]["throughput_bytes_per_s"],
            *next(iter(faults["ports"].values())), *next(iter(faults["sequences"].values())),
            *faults["fabric"], *faults["fabric"]["reroutes"][0]}
    missing = sorted(key for key in keys if f'"{key}"' not in RESULTS_DOC)
    assert not missing, f"not in docs/results.md: {missing}"


def test_a_run_without_faults_has_no_incident_report() -> None:
    results = run_scenario(load_scenario(ROOT / "scenarios" / "p2p-1gfc-class3.toml"))
    assert "faults" not in results["repetitions"][0]
    assert "incidents" not in summary_text(results)


def test_a_fault_waiting_for_fspf_says_when_its_links_were_back() -> None:
    """The core's failure in fabric-isl-failure: its ports are Active again at
    30.01 ms, but FSPF (FC-SW's 5 s Min_LS_Interval) has not converged by the
    end of the 50 ms run: the summary says both."""
    results = run_scenario(load_scenario(ROOT / "scenarios" / "fabric-isl-failure.toml"))
    record = results["repetitions"][0]["faults"]["schedule"][1]
    assert record["recovered_s"] is None
    assert 0.030 < record["links_back_s"] < 0.0301
    lines = summary_text(results).splitlines()
    start = lines.index("  #2 switch-failure of switch core at 15.00 ms")
    assert lines[start + 2] == ("     not recovered by the end of the run: ports and logins "
                                "back at 30.01 ms, FSPF not converged")


def test_a_fault_restored_with_its_links_says_nothing_more() -> None:
    results = run_scenario(load_scenario(ROOT / "scenarios" / "p2p-pulled-cable.toml"))
    record = results["repetitions"][0]["faults"]["schedule"][0]
    assert record["links_back_s"] == record["recovered_s"]
    assert "FSPF" not in summary_text(results)
