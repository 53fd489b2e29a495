"""The run report's time series: a workload's throughput in each window is
what its recipient accepted then, between zero and the line's rate, even when
a sequence cut by a fault is taken back later (ISLs pulled and a core switch
failed in the core-edge example)."""

from __future__ import annotations

from pathlib import Path

from fcsim.fc0.speed import speed_named
from fcsim.runner import run_once
from fcsim.scenario.loader import load_scenario
from fcsim.trace.timeseries import TimeSeries

ROOT = Path(__file__).resolve().parents[2]


def test_no_window_is_negative_or_beyond_the_line() -> None:
    scenario = load_scenario(ROOT / "scenarios" / "fabric-isl-failure.toml")
    series = TimeSeries(100)
    result = run_once(scenario, 1, series=series)
    assert any(n["sequences_incomplete"] for n in result["nodes"].values())  # taken back
    line = speed_named("2GFC").char_rate  # bytes of line per s: above any payload rate
    for name, rates in series.throughput.items():
        assert min(rates) >= 0 and max(rates) <= line, (name, min(rates), max(rates))
