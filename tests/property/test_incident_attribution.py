"""Each lost frame belongs to exactly one incident (hypothesis): over random
fault schedules on a loaded point-to-point link, the incidents' frames and
payload lost add up to what the run lost, and in the core-edge example the
ISL pull claims what it loses alone, the core switch failure the rest."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from hypothesis import HealthCheck, given, settings

from fcsim.faults.config import FaultConfig
from fcsim.runner import run_scenario
from fcsim.scenario.loader import load_scenario
from fcsim.scenario.workload_model import StreamConfig
from tests.builders import p2p
from tests.property.test_fault_invariants import schedules

ROOT = Path(__file__).resolve().parents[2]


def _losses(faults: dict) -> tuple[list[tuple[int, int]], tuple[int, int]]:
    """Each incident's (frames, payload) lost, and the run's (ports and switches)."""
    incidents = [(r["frames_lost"], r["payload_lost_bytes"]) for r in faults["schedule"]]
    frames = sum(p["frames_lost"] for p in faults["ports"].values())
    payload = sum(p["payload_lost"] for p in faults["ports"].values())
    if "fabric" in faults:
        frames += faults["fabric"]["frames_lost"]
        payload += faults["fabric"]["payload_lost_bytes"]
    return incidents, (frames, payload)


@settings(max_examples=10, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(faults=schedules())
def test_the_incidents_losses_add_to_the_runs(faults: tuple[FaultConfig, ...]) -> None:
    streams = (StreamConfig("ab", "a", "b", 8192, cls=3, outstanding=2),
               StreamConfig("ba", "b", "a", 4096, cls=2, outstanding=2))
    scenario = dataclasses.replace(p2p(streams, 0.012, length=1000.0), faults=faults)
    incidents, total = _losses(run_scenario(scenario)["repetitions"][0]["faults"])
    assert (sum(f for f, _ in incidents), sum(p for _, p in incidents)) == total


def test_an_isl_pull_claims_only_its_own_losses() -> None:
    scenario = load_scenario(ROOT / "scenarios" / "fabric-isl-failure.toml")
    scenario = dataclasses.replace(scenario, run=dataclasses.replace(scenario.run, warmup=0.0))
    both = run_scenario(scenario)["repetitions"][0]["faults"]
    alone = run_scenario(dataclasses.replace(scenario, faults=scenario.faults[:1]))
    (pull, core), total = _losses(both)
    (pull_alone,), _ = _losses(alone["repetitions"][0]["faults"])
    assert pull == pull_alone
    assert core[0] > 0 and (pull[0] + core[0], pull[1] + core[1]) == total
