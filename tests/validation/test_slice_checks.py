"""The Slice claims' judgement on made-up results: each criterion as
validation/claims.toml writes it, passing and failing where it should."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from fcsim.validation.checks import CHECKS
from fcsim.validation.checks.slice import FAULT, TCP, dd_file

Rate = Callable[[str, int, int], float]


def _dd(rate: Rate, cpu: Callable[[str, int, int], float]) -> dict:
    """Results of every figure-4 point: *rate* (MB/s) and the client's *cpu* (%)
    for (direction, servers, disks each)."""
    from fcsim.validation.points import Point

    out = {}
    for direction in ("read", "write"):
        for s in range(1, 5):
            for d in range(1, 5):
                out[Point(dd_file(direction, s, d))] = {
                    "storage": {"jobs": {f"dd-{direction}": {
                        "ios": 10, "throughput_bytes_per_s": 1e6 * rate(direction, s, d)}}},
                    "hosts": {"client": {"cpu_utilisation": cpu(direction, s, d) / 100}}}
    return out


def _figure4(direction: str, s: int, d: int) -> float:
    """Lines rising 18 MB/s a disk to a server's 58, flat at the client's limit."""
    return min(min(18.0 * d, 58.0) * s, 97.0 if direction == "read" else 66.0)


def _cpu(direction: str, s: int, d: int) -> float:
    return 0.22 * _figure4(direction, s, d) if direction == "read" else 1.5 * _figure4(
        direction, s, d)


def judge(claim: str, results: dict) -> str:
    verdict = CHECKS[claim].judge(results)
    return verdict.status


def test_figure_4_as_the_report_describes_it_passes() -> None:
    results = _dd(_figure4, _cpu)
    assert judge("SLICE-READ", results) == "passes"  # 97 MB/s at 21 %
    assert judge("SLICE-WRITE", results) == "passes"  # 66 MB/s at 99 %
    assert judge("SLICE-SCALE", results) == "passes"


@pytest.mark.parametrize(("claim", "rate", "cpu"), [
    ("SLICE-READ", lambda *k: 105.0, _cpu),  # above the band
    ("SLICE-READ", _figure4, lambda *k: 40.0),  # a copy's worth of processor
    ("SLICE-WRITE", _figure4, lambda *k: 90.0),  # not saturated
    ("SLICE-WRITE", lambda direction, s, d: 59.0, lambda *k: 100.0),  # below the band
])
def test_a_peak_outside_its_band_fails(claim: str, rate: Rate, cpu: Rate) -> None:
    assert judge(claim, _dd(rate, cpu)) == "fails"


def test_a_line_that_falls_or_never_flattens_fails_scale() -> None:
    def falling(direction: str, s: int, d: int) -> float:
        return _figure4(direction, s, d) * (0.95 if (s, d) == (4, 4) else 1.0)

    def rising(direction: str, s: int, d: int) -> float:
        return 10.0 * s * d + (0 if direction == "read" else 1)

    def jitter(direction: str, s: int, d: int) -> float:  # within 1 %: no fall
        return _figure4(direction, s, d) * (0.995 if (s, d) == (4, 4) else 1.0)
    assert judge("SLICE-SCALE", _dd(falling, _cpu)) == "fails"
    assert judge("SLICE-SCALE", _dd(rising, _cpu)) == "fails"  # the peak is one point
    assert judge("SLICE-SCALE", _dd(jitter, _cpu)) == "passes"


@pytest.mark.parametrize(("mean", "status"), [(149e-6, "passes"), (150e-6, "fails"),
                                              (170e-6, "fails")])
def test_the_fault_latency_must_be_under_150_us(mean: float, status: str) -> None:
    from fcsim.validation.points import Point

    results = {Point(FAULT): {"storage": {"jobs": {"faults": {
        "ios": 200, "latency_s": {"mean": mean, "max": mean + 1e-6}}}}}}
    assert judge("SLICE-FAULT", results) == status


@pytest.mark.parametrize(("rate", "status"), [(956.0, "passes"), (907.0, "fails"),
                                              (1005.0, "fails")])
def test_the_tcp_peak_band(rate: float, status: str) -> None:
    from fcsim.validation.points import Point

    results = {Point(TCP): {"netperf": {"tcp-stream": {"throughput_mbit_s": rate}}}}
    assert judge("SLICE-TCP", results) == status
