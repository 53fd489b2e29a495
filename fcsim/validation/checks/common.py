"""What every claim's check shares: the verdict, the points of a scenario file's
repetitions, the figures read from their results, and plots."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from statistics import fmean
from typing import Any

from fcsim.validation.points import Point, scenario_file

Results = Mapping[Point, dict[str, Any]]
"""Simulated points and their results."""


class NoFigure(ValueError):
    """A run the check needs produced no value of its metric (for example a
    TCP_RR that completed no transaction)."""


@dataclass(frozen=True)
class Verdict:
    """A check's outcome: the simulated figure in short, the status
    (``passes``, ``fails`` or ``not modelled``), what lies behind it, and a
    plot (``fcsim.validation.report.render_plot`` form) or None."""

    simulated: str
    status: str
    detail: str
    plot: dict[str, Any] | None = None


@dataclass(frozen=True)
class Check:
    """The points a claim needs and the judgement on their results."""

    points: Callable[[], list[Point]]
    judge: Callable[[Results], Verdict]


def repeated(path: str, socket: int | None, size: int | None,
             sized: bool = False) -> list[Point]:
    """Every repetition of one sweep point of *path* (*sized*: TCP_RR -r m,m)."""
    return [Point(path, socket, size, rep, sized=sized)
            for rep in range(scenario_file(path).run.repetitions)]


def values(results: Results, path: str, socket: int | None, size: int | None,
           metric: str, workload: str | None = None, sized: bool = False) -> list[float]:
    """*metric* of netperf *workload* (default: the file's only one) over the
    repetitions of one sweep point (*sized*: TCP_RR -r m,m)."""
    out = []
    for point in repeated(path, socket, size, sized):
        runs = results[point]["netperf"]
        run = runs[workload] if workload else next(iter(runs.values()))
        value = run.get(metric)
        if value is None:
            raise NoFigure(f"{point.label()}: the run gave no {metric}")
        out.append(value)
    return out


def mean(results: Results, path: str, socket: int | None, size: int | None, metric: str,
         workload: str | None = None, sized: bool = False) -> float:
    """Mean of :func:`values`."""
    return fmean(values(results, path, socket, size, metric, workload, sized))


def bars(title: str, ylabel: str, labels: Sequence[str], runs: Sequence[Sequence[float]],
         band: tuple[float, float] | None) -> dict[str, Any]:
    """A bar plot of the mean of each of *runs*, with their min and max and the
    claim's *band* (``fcsim.validation.report.render_plot`` form)."""
    return {"kind": "bars", "title": title, "ylabel": ylabel, "labels": list(labels),
            "values": [fmean(r) for r in runs], "low": [min(r) for r in runs],
            "high": [max(r) for r in runs], "band": list(band) if band else None}


def passes_if(ok: bool) -> str:
    """A verdict's status: ``passes`` if *ok*, else ``fails``."""
    return "passes" if ok else "fails"


def outside(named: Mapping[str, float], lo: float, hi: float, unit: str) -> str:
    """Which of the *named* values lie outside [lo, hi], in words."""
    out = [f"{k} {v:.1f}" for k, v in named.items() if not lo <= v <= hi]
    return (f"outside [{lo:g}, {hi:g}] {unit}: " + ", ".join(out)) if out else \
        f"all within [{lo:g}, {hi:g}] {unit}"


def span(named: Mapping[str, float], unit: str = "", digits: int = 1) -> str:
    """The lowest to the highest of the *named* values, 'LO-HI UNIT'."""
    text = f"{min(named.values()):.{digits}f}-{max(named.values()):.{digits}f}"
    return f"{text} {unit}" if unit else text


def pct(value: float) -> str:
    """A signed percentage to 0.01, without a negative zero."""
    return f"{round(value, 2) + 0.0:+.2f}"
