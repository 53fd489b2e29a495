"""The run report's time series: a workload's throughput in each window is
what its recipient accepted then, between zero and the line's rate, even when
a sequence cut by a fault is taken back later (ISLs pulled and a core switch
failed in the core-edge example)."""

from __future__ import annotations

from pathlib import Path

import pytest

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


def _detailed_sample(self: TimeSeries, _event: object) -> None:
    """:meth:`TimeSeries._sample` as it was before its rows were kept: every
    series looked up by its name at every sample, each delta through
    :meth:`TimeSeries._delta`."""
    ports, switches, workloads = self._sources
    step = self._step
    self.time.append(self._sim.now)
    rows = self._rows
    for port in ports:
        peer, loop = port.peer, hasattr(port, "circuit")
        row = rows.get(id(port))
        if row is None or row[0] is not peer or row[1] != loop:
            row = rows[id(port)] = self._port_row(port, peer, loop)
        _, _, busy_key, utilisation, credit = row
        busy = self._delta(busy_key, port.stats.busy_time)
        utilisation.append(min(busy / step, 1.0))
        credit.append(port.credit)
    for switch_name, switch in switches.items():
        for index, length in switch.queue_lengths().items():
            self.queue.setdefault(f"{switch_name}:{index}", []).append(length)
    for name, window in self._windows:
        wait, zeros = window.advance()
        self.txwait.setdefault(name, []).append(min(wait / step, 1.0))
        self.credit_zero.setdefault(name, []).append(zeros)
    for w in workloads:
        moved = self._delta(f"payload/{w.name}", w.stats.payload + w.stats.taken_back)
        self.throughput.setdefault(w.name, []).append(moved / step)
    storage = self._storage
    if storage:
        for name, target in storage.targets.items():
            self.depth.setdefault(f"target {name}", []).append(target.depth)
        for node, queues in storage.queues.items():
            for device, queue in queues.items():
                self.depth.setdefault(f"{node} -> {device}", []).append(queue.depth_now)
        for name, multipath in storage.multipaths.items():
            for path in multipath.paths:
                key = f"{name} {path.name}"
                sent = self._delta(f"path/{key}", path.ios)
                self.paths.setdefault(key, []).append(sent / step)


SERIES = ("time", "utilisation", "credit", "queue", "throughput", "depth", "paths", "txwait",
          "credit_zero")


@pytest.mark.parametrize("example", ["fabric-isl-failure.toml", "multipath-marginal-isl.toml",
                                     "loop-fairness.toml"])
def test_the_kept_rows_sample_what_the_lookups_by_name_did(example: str,
                                                           monkeypatch) -> None:
    """The samples read through rows kept from one sample to the next give the
    series, names and order of the lookups by name at every sample, value for
    value (a fabric whose ISLs are pulled and a core fails, a multipath device
    over a marginal ISL, an arbitrated loop)."""
    scenario = load_scenario(ROOT / "scenarios" / example)
    fast = TimeSeries(60)
    run_once(scenario, scenario.run.seed, series=fast)
    detailed = TimeSeries(60)
    with monkeypatch.context() as patch:
        patch.setattr(TimeSeries, "_sample", _detailed_sample)
        run_once(scenario, scenario.run.seed, series=detailed)
    assert fast.time and fast.utilisation  # sampled
    for name in SERIES:
        a, b = getattr(fast, name), getattr(detailed, name)
        assert a == b and (not isinstance(a, dict) or list(a) == list(b)), name
