"""A sweep run on several worker processes gives exactly the results of the
same sweep run point after point in one process, in the same order."""

from __future__ import annotations

from pathlib import Path

from fcsim.runner import run_scenario
from fcsim.scenario.loader import load_scenario
from tests.unit.test_scenario_loader import write

ROOT = Path(__file__).resolve().parents[2]


def test_parallel_sweep_equals_the_serial_one(tmp_path: Path) -> None:
    text = (ROOT / "scenarios" / "netperf-tcp-stream-sweep.toml").read_text(encoding="utf-8")
    text = text.replace('duration = "1.2 s"', 'duration = "0.2 s"').replace(
        'length = "1 s"', 'length = "0.15 s"')
    scenario = load_scenario(write(tmp_path, text))
    seen: list[str] = []
    parallel = run_scenario(scenario, jobs=2, progress=lambda done, label: seen.append(label))
    serial = run_scenario(scenario, jobs=1)
    assert parallel == serial
    assert len(parallel["points"]) == 12 and len(seen) == 12
    assert [(p["socket"], p["send_size"]) for p in parallel["points"]] == [
        (socket, size) for socket in (32768, 262144)
        for size in (1024, 4096, 8192, 32768, 65536, 262144)]
