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


class _Stats:
    def __init__(self) -> None:
        self.busy_time = 0.0


class _Port:
    def __init__(self, name: str, peer: object | None) -> None:
        self.name, self.peer, self.credit, self.stats = name, peer, 3, _Stats()


class _Net:
    def __init__(self, ports: list[_Port]) -> None:
        self._ports = ports

    def ports(self) -> list[_Port]:
        return self._ports


class _Sim:
    now = 0.0

    def call_later(self, _delay: float, _callback: object) -> None:
        pass


def test_a_port_whose_peer_changes_starts_a_series_per_peer() -> None:
    """Each sample names a port by its peer of the moment: a new peer (a fault
    rewiring a LAN, a trunk re-formed) starts a new series, the old peer's
    series resumes if it comes back, and each busy-time delta is per series."""
    a, b = _Port("a", None), _Port("b", None)
    port = _Port("x", a)
    series = TimeSeries(samples=4)
    series.attach(_Sim(), _Net([port]), (), 4.0)
    for peer, busy in ((a, 0.5), (b, 1.0), (a, 1.5), (None, 2.0)):
        port.peer, port.stats.busy_time = peer, busy
        series._sample(None)
    assert list(series.utilisation) == ["x->a", "x->b", "x->loop"]
    assert series.utilisation["x->a"] == [0.5, 1.0]  # 0.5 s, then 1.5 - 0.5 s, of 1 s
    assert series.utilisation["x->b"] == [1.0]
    assert series.utilisation["x->loop"] == [1.0]
    assert series.credit["x->a"] == [3, 3]
