"""The HPSS checks' judgement on synthetic results (each claim passing and
failing on figures made up for it), and one HPSS experiment run for real."""

from __future__ import annotations

from typing import Any

import pytest

from fcsim.validation.checks import hpss
from fcsim.validation.checks.common import Results
from fcsim.validation.points import Point, run_point

PATHS = hpss.PATHS


def _world(**rates: Any) -> dict[str, list[float]]:
    """Stream rates (MB/s) of every HPSS file: a plausible base where every
    claim passes, with *rates* (file stem with '-' as '_' -> rates) replacing."""
    base: dict[str, list[float]] = {}
    for p in PATHS:
        slow = p in hpss.SLOW
        base[f"read-1-{p}"] = [45.0 if slow else 60.0]
        base[f"read-2-{p}"] = [24.0, 24.0] if slow else [50.0, 50.0]
        base[f"write-1-{p}"] = [24.0]
        base[f"write-2-{p}"] = [22.0, 22.0]
        base[f"write-1-{p}-memory"] = [44.0 if slow else 58.0]
    base["read-9"] = [25.0, 25.0, 25.0, 25.0, 35.0, 35.0, 35.0, 50.0, 50.0]
    base["write-9"] = [21.0] * 9
    base["fcdev-read-stk9176"] = [58.0]
    base["fcdev-write-stk9176"] = [24.0]
    base.update({k.replace("_", "-"): v for k, v in rates.items()})
    return base


def _results(world: dict[str, list[float]], dd: float = 22e6) -> Results:
    points = {p for check in hpss.CHECKS.values() for p in check.points()}
    out: dict[Point, dict[str, Any]] = {}
    for point in points:
        stem = point.scenario.rsplit("/", 1)[1].removesuffix(".toml")
        out[point] = {"transfers": {f"t{k}": {"steady_bytes_per_s": r * 1e6}
                                    for k, r in enumerate(world.get(stem, []))},
                      "storage": {"jobs": {"dd": {"bytes_per_s": dd}}}}
    return out


def _status(claim: str, **rates: Any) -> str:
    return hpss.CHECKS[claim].judge(_results(_world(**rates))).status


def test_every_claim_passes_on_figures_like_the_reports() -> None:
    for claim in hpss.CHECKS:
        assert _status(claim) == "passes", claim


@pytest.mark.parametrize(("claim", "rates"), [
    ("HPSS-READ9", {"read_9": [25.0] * 9}),                       # 225 MB/s
    ("HPSS-READ9", {"read_9": [40.0] * 9}),                       # 360 MB/s
    ("HPSS-WRITE9", {"write_9": [23.0] * 9}),                     # 207 MB/s
    ("HPSS-WRITE9", {"write_9": [19.0] * 9}),                     # 171 MB/s
    ("HPSS-WRITEHALF", {f"write_1_{p}": [12.0] for p in PATHS}),  # ratio 0.23
    ("HPSS-WRITEHALF", {"read_1_h70a": [70.0]}),                  # one path at 0.34
    ("HPSS-MOVERS", {"read_1_f50": [61.0]}),                      # an F50 above an H70
    ("HPSS-2STREAM", {"read_2_h50": [30.0, 30.0]}),               # +33 %
    ("HPSS-2STREAM", {"read_2_f50": [20.0, 20.0]}),               # -11 %
    ("HPSS-FCDEV", {"fcdev_read_stk9176": [50.0]}),               # -17 %
    ("HPSS-FCDEV", {"fcdev_write_stk9176": [27.0]}),              # +12.5 %
])
def test_each_claim_fails_outside_its_criterion(claim: str, rates: dict) -> None:
    assert _status(claim, **rates) == "fails"


def test_the_nine_streams_are_summed_by_mover_path() -> None:
    verdict = hpss.CHECKS["HPSS-READ9"].judge(_results(_world()))
    assert verdict.simulated == "305.0 MB/s"
    assert "H50 50.0, F50 50.0, H70 path A 105.0, H70 path B 100.0 MB/s" in verdict.detail


def test_a_transfer_without_a_steady_rate_is_no_figure() -> None:
    results = _results(_world())
    for point, result in results.items():
        if point.scenario.endswith("read-9.toml"):
            result["transfers"]["t0"]["steady_bytes_per_s"] = None
    with pytest.raises(hpss.NoFigure, match="fewer than two blocks"):
        hpss.CHECKS["HPSS-READ9"].judge(results)


def test_a_604e_mover_path_nearly_fills_its_pci_bus() -> None:
    result = run_point(Point("scenarios/hpss/read-1-h50.toml"))
    rate = result["transfers"]["read-1"]["steady_bytes_per_s"]
    assert 35e6 < rate < 50e6
    # every byte crosses the mover's one bus twice (FC adapter in, GigE adapter out)
    busy = result["hosts"]["h50"]["bus_utilisation"]
    assert busy > 0.8
    assert busy * 1e8 > 2 * rate
