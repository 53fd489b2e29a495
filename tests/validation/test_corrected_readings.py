"""The checks follow the corrected readings of ONG-LATLOAD, RD11-LARGE-SMALL,
HPSS-WRITEHALF and DAS2-TCP: each judged on made-up results, passing and
failing exactly where its criterion says."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from fcsim.validation.checks import CHECKS, das2, rd11
from fcsim.validation.checks.ong_farrell_pairs import LOADED, PAIRS, UNLOADED, rr_file
from fcsim.validation.claims import load_claims
from fcsim.validation.points import Point

KIB = 1024


# -- ONG-LATLOAD: the largest loaded-pair latency in the band, unloaded pairs in LAT1's --

def _rtt_results(rtt: Callable[[Point], float]) -> dict[Point, dict[str, Any]]:
    return {p: {"netperf": {"rr": {"round_trip_s": rtt(p) * 1e-6}}}
            for p in CHECKS["ONG-LATLOAD"].points()}


def _loaded(point: Point) -> bool:
    return any(rr_file(pair) == point.scenario for pair in PAIRS if LOADED & set(pair))


def test_latload_judges_the_unloaded_pairs_too() -> None:
    scenarios = {p.scenario for p in CHECKS["ONG-LATLOAD"].points()}
    assert {rr_file(pair) for pair in UNLOADED} <= scenarios


@pytest.mark.parametrize(("loaded", "extreme", "unloaded", "status"), [
    (340.0, 460.0, 340.0, "passes"),   # outlying: one loaded pair in the band is enough
    (340.0, 378.0, 350.0, "passes"),
    (340.0, 377.0, 340.0, "fails"),    # no loaded pair reaches the band
    (340.0, 490.0, 340.0, "fails"),    # the largest beyond it
    (340.0, 460.0, 380.0, "fails"),    # an unloaded pair leaves ONG-LAT1's band
])
def test_latload_takes_the_largest_loaded_latency(loaded: float, extreme: float,
                                                  unloaded: float, status: str) -> None:
    extreme_file = rr_file(("j210", "735"))

    def rtt(p: Point) -> float:
        if p.scenario == extreme_file:
            return extreme
        return loaded if _loaded(p) else unloaded

    assert CHECKS["ONG-LATLOAD"].judge(_rtt_results(rtt)).status == status


# -- RD11-LARGE-SMALL: 0 to 5 % worse, beside the repetitions' spread; a weak claim --------

def _rd11_results(worse: float, spread: float) -> dict[Point, dict[str, Any]]:
    out = {}
    for p in CHECKS["RD11-LARGE-SMALL"].points():
        factor = 1 + (0 if "load-none" in p.scenario else worse / 100)
        wobble = 1 + spread / 100 * p.repetition / 2
        if "mem-stream" in p.scenario:
            out[p] = {"netperf": {"test": {"throughput_mbit_s": 5.0 / factor * wobble}}}
        else:
            out[p] = {"netperf": {"test": {"round_trip_s": 400e-6 * factor * wobble}}}
    return out


@pytest.mark.parametrize(("worse", "status"), [(0.0, "passes"), (3.0, "passes"),
                                               (-1.0, "fails"), (6.0, "fails")])
def test_large_small_band_is_zero_to_five_percent(worse: float, status: str) -> None:
    assert CHECKS["RD11-LARGE-SMALL"].judge(_rd11_results(worse, 0.0)).status == status


def test_large_small_shows_the_repetition_spread() -> None:
    verdict = CHECKS["RD11-LARGE-SMALL"].judge(_rd11_results(1.0, 0.4))
    assert "repetitions spread" in verdict.detail
    assert rd11.repetition_spread([1.0, 1.004]) == pytest.approx(0.4, rel=1e-2)


def test_large_small_is_weak_and_not_counted_among_predictions() -> None:
    roles = {c.id: c.role for c in load_claims()}
    assert roles["RD11-LARGE-SMALL"] == "weak prediction"


# -- HPSS-WRITEHALF: each mover path in the band; the run from memory is only shown -------

def _hpss(reads: dict[str, float], write: float, memory: float) -> dict[Point, dict]:
    from fcsim.validation.checks import hpss
    out = {}
    for point in CHECKS["HPSS-WRITEHALF"].points():
        stem = point.scenario.rsplit("/", 1)[1].removesuffix(".toml")
        if stem.startswith("read-1-"):
            rate = reads[stem.removeprefix("read-1-")]
        elif stem.endswith("-memory"):
            rate = memory
        else:
            rate = write
        out[point] = {"transfers": {"t": {"steady_bytes_per_s": rate * 1e6}},
                      "storage": {"jobs": {"dd": {"bytes_per_s": 21e6}}}}
    assert set(reads) == set(hpss.PATHS)
    return out


def test_writehalf_is_judged_on_each_mover_path() -> None:
    even = {"h50": 42.0, "f50": 42.0, "h70a": 42.0, "h70b": 42.0}
    uneven = {"h50": 30.0, "f50": 30.0, "h70a": 70.0, "h70b": 70.0}  # mean ratio 0.42
    judge = CHECKS["HPSS-WRITEHALF"].judge
    assert judge(_hpss(even, 21.0, 21.0)).status == "passes"  # memory run not judged
    verdict = judge(_hpss(uneven, 21.0, 42.0))
    assert verdict.status == "fails" and "H70 path A" in verdict.detail


# -- DAS2-TCP: the corner is window sums up to 64 KiB with up to 4 flows -------------------

def test_das2_corner_is_64_kib_and_4_flows() -> None:
    assert das2.in_corner(64 * KIB, 4) and das2.in_corner(32 * KIB, 4)
    assert not das2.in_corner(128 * KIB, 1) and not das2.in_corner(32 * KIB, 6)
