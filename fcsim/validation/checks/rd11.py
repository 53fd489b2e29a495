"""The claims of CERN RD11 (``000_24592f141a2f7fed.txt``): a test pair's figures
under large- and small-message loads through an Ancor fabric, from the files
of ``scenarios/rd11/``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from statistics import fmean

from fcsim.validation.checks.common import (
    Check,
    Results,
    Verdict,
    bars,
    mean,
    passes_if,
    pct,
    repeated,
    values,
)
from fcsim.validation.points import Point

RD11 = "scenarios/rd11/"
KIB, MIB = 1024, 1024 * 1024
SMALL_TESTS = (("mem-rr", 1, "round_trip_s"), ("mem-rr", 64, "round_trip_s"),
               ("mem-stream", 64, "throughput_mbit_s"))
"""Small-message figures of the test pair: (experiment, message size, metric)."""
LARGE_TESTS = (("send-large", 64 * KIB, "throughput_mbit_s"),
               ("send-large", MIB, "throughput_mbit_s"))
"""Large-message figures of the test pair."""
LARGE_LOADS = ("large-1", "large-2")


def rd11_file(experiment: str, load: str) -> str:
    """Scenario file of an RD11 experiment under a load variant."""
    return f"{RD11}{experiment}-load-{load}.toml"


def _rd11_points(tests: Sequence[tuple[str, int, str]], loads: Sequence[str]) -> list[Point]:
    return [p for experiment, size, _metric in tests for load in ("none", *loads)
            for p in repeated(rd11_file(experiment, load), None, size)]


def _worse(results: Results, test: tuple[str, int, str], load: str) -> float:
    """How much worse the test-pair figure is under *load* than alone, %."""
    experiment, size, metric = test
    alone = mean(results, rd11_file(experiment, "none"), None, size, metric, "test")
    loaded = mean(results, rd11_file(experiment, load), None, size, metric, "test")
    change = (loaded - alone) / alone * 100
    return change if metric == "round_trip_s" else -change


def repetition_spread(runs: Sequence[float]) -> float:
    """The repetition-to-repetition spread of *runs*: (max - min) / mean, %."""
    return (max(runs) - min(runs)) / fmean(runs) * 100


def _spread(results: Results, test: tuple[str, int, str], load: str) -> float:
    """The larger repetition spread of the test figure, alone and under *load*, %."""
    experiment, size, metric = test
    return max(repetition_spread(values(results, rd11_file(experiment, variant), None, size,
                                        metric, "test")) for variant in ("none", load))


def _test_name(test: tuple[str, int, str]) -> str:
    experiment, size, metric = test
    what = "latency" if metric == "round_trip_s" else "throughput"
    return f"{experiment} {size} B {what}"


def _degradation_judge(claim: str, tests: Sequence[tuple[str, int, str]], loads: Sequence[str],
                       passes: Callable[[float], bool], criterion: str,
                       band: tuple[float, float] | None, why_not: str = "",
                       with_spread: bool = False, note: str = "") -> Callable[[Results], Verdict]:
    """A degradation claim's judge (*why_not* shown when it fails, *note* always);
    *with_spread*: each figure's change is shown beside the repetitions' spread of
    the runs it compares."""
    def judge(results: Results) -> Verdict:
        worse = {f"{_test_name(t)}, load {load}": _worse(results, t, load)
                 for t in tests for load in loads}
        bad = [k for k, v in worse.items() if not passes(v)]
        spread = ("; each change beside the repetitions spread (max - min over mean, alone "
                  "and loaded): " + ", ".join(
                      f"{_test_name(t)}, load {load} {pct(_worse(results, t, load))} % "
                      f"(repetitions spread {_spread(results, t, load):.2f} %)"
                      for t in tests for load in loads)) if with_spread else ""
        return Verdict(
            f"{pct(min(worse.values()))} to {pct(max(worse.values()))} % worse",
            passes_if(not bad),
            f"test pair against the same test without load; criterion {criterion}; "
            + (f"not met by {', '.join(f'{k} ({worse[k]:+.2f} %)' for k in bad)}{spread}."
               f"{why_not}" if bad else f"met by every figure{spread}.") + note,
            bars(f"{claim}: test-pair degradation under load", "% worse than unloaded",
                  list(worse), [[v] for v in worse.values()], band))
    return judge


def _steady_points() -> list[Point]:
    return ([p for load in LARGE_LOADS for p in repeated(f"{RD11}load-{load}-alone.toml",
                                                         None, None)]
            + _rd11_points(LARGE_TESTS, LARGE_LOADS))


def _steady_judge(results: Results) -> Verdict:
    change = {}
    for load in LARGE_LOADS:
        alone_file = f"{RD11}load-{load}-alone.toml"
        pairs = int(load[-1])
        for index in range(1, pairs + 1):
            name = f"load{index}"
            alone = mean(results, alone_file, None, None, "throughput_mbit_s", name)
            for _experiment, size, _metric in LARGE_TESTS:
                beside = mean(results, rd11_file("send-large", load), None, size,
                              "throughput_mbit_s", name)
                change[f"{name} of {load}, test {size} B"] = (beside - alone) / alone * 100
    bad = [k for k, v in change.items() if abs(v) > 2]
    return Verdict(f"{pct(min(change.values()))} to {pct(max(change.values()))} %",
                   passes_if(not bad),
                   "load-pair throughput while the large-message test runs, against the load "
                   "alone; " + (f"beyond 2 %: {', '.join(bad)}" if bad else "all within 2 %"),
                   bars("RD11-LOADSTEADY: load throughput change", "% change", list(change),
                         [[v] for v in change.values()], (-2, 2)))


NO_SHARING = (" In the model the test and load pairs share only the switch's crossbar, which "
              "is non-blocking, so a load cannot slow the test pair; no shared resource the "
              "document's small-message load would strain more than a large one (the Ancor's "
              "central Class 2/3 path is a candidate) is modelled.")


WEAK = (" The document doubts this few percent itself (\"it is difficult to be sure that "
        "this is not resulting of statistical fluctuations\"): a weak claim, reported but "
        "not counted among the discriminating predictions.")


CHECKS: dict[str, Check] = {
    "RD11-LARGE-LARGE": Check(
        lambda: _rd11_points(LARGE_TESTS, LARGE_LOADS),
        _degradation_judge("RD11-LARGE-LARGE", LARGE_TESTS, LARGE_LOADS,
                           lambda v: abs(v) <= 2, "within 2 %", (-2, 2))),
    "RD11-LARGE-SMALL": Check(
        lambda: _rd11_points(SMALL_TESTS, LARGE_LOADS),
        _degradation_judge("RD11-LARGE-SMALL", SMALL_TESTS, LARGE_LOADS,
                           lambda v: 0 <= v <= 5, "worse by 0 % to 5 %", (0, 5),
                           NO_SHARING, with_spread=True, note=WEAK)),
    "RD11-SMALLLOAD": Check(
        lambda: _rd11_points(SMALL_TESTS + LARGE_TESTS[1:], ("small-1",)),
        _degradation_judge("RD11-SMALLLOAD", SMALL_TESTS + LARGE_TESTS[1:], ("small-1",),
                           lambda v: 3 <= v <= 12, "worse by 3 % to 12 %", (3, 12),
                           NO_SHARING)),
    "RD11-LOADSTEADY": Check(_steady_points, _steady_judge),
}
"""The checks of RD11's claims, by claim ID."""
