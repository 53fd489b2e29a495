"""Figures 6-33 of Ong & Farrell (``fcsim figures ong-farrell``), drawn the way
the paper describes them.

One PNG per scenario file ``figNN-<test>-<pair>.toml`` of
``scenarios/ong-farrell``, named after it (``fig06-stream-c110-to-c110.png``)
and titled as in the paper ("Figure 6: Bandwidth Performance from C110 to
C110"). The paper's figures "consist of individual graphs for each socket
size": each figure has one panel per socket size (4096 B to 262143 B, in bytes
as the paper gives them), the metric against the message size from 1 B to 2 MB
on a logarithmic axis, every point the mean over the repetitions (five, as in
the paper) with error bars from their minimum to their maximum.

Throughput (figures 6-19) is in Mbit/s (10^6 bit/s, netperf's unit) on a
linear axis from 0, the same in every panel. Latency (figures 20-33) is in µs
on a logarithmic axis labelled at 1, 2, 3 and 5 of each decade up to
10,000 µs, the same in every
panel, so that the ~340 µs of a 1-byte round trip reads as well as the
~10^6 µs of a 2 MB one. Each latency panel shows both readings of the paper's
TCP_RR command: solid, netperf ``-r m,m`` (request and response of the message
size, as the figures' axis suggests); dashed, the command as printed (netperf
2.1's TCP_RR takes its sizes from ``-r``, one byte each by default, and ignores
``-m``, so every point was a 1-byte transaction), with its mean, minimum and
maximum written in the panel. The command as printed is the same at every
message size, so one run per socket and repetition stands for all of them.
A TCP_RR file that itself runs ``-r m,m`` (``rr_sizes = "send-size"``) is
drawn with that reading only.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from pathlib import Path
from statistics import fmean
from typing import Any

from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullFormatter, NullLocator

from fcsim.scenario.loader import load_scenario
from fcsim.validation.figure_plan import (
    FigurePlan,
    Grid,
    Series,
    netperf_metric,
    repetition_values,
    scenario_files,
)
from fcsim.validation.plots import METRICS, save_png, size_label, whiskers
from fcsim.validation.points import Point, swept_workload

SIZED = "netperf -r m,m (request = response = message size)"
"""Legend of a TCP_RR series whose transactions are of the message size."""
PRINTED = "as printed (-m ignored: 1-byte transactions)"
"""Legend of a TCP_RR series run as the paper prints its command."""
COLUMNS = 3
"""Panels per row."""
SIZE_TICKS = (1, 16, 256, 4096, 65536, 2097152)
"""Message sizes labelled on the x axes, bytes (1 B to 2 MB)."""
_NAME = re.compile(r".*figure (\d+): (bandwidth|latency) from (.+)", re.IGNORECASE)


def plan_ong_farrell(folder: Path, grid: Grid, pairs: Sequence[str] | None) -> list[FigurePlan]:
    """One figure per ``figNN-<test>-<pair>.toml`` file of *folder*, of the
    *pairs* asked for (e.g. ``"c110-to-c110"``; None: all), on *grid*."""
    files = scenario_files(folder, "fig[0-9]*-*-*-to-*.toml", "ong-farrell")
    known = sorted({path.stem.split("-", 2)[2] for path in files})
    if pairs is not None:
        unknown = [pair for pair in pairs if pair not in known]
        if unknown:
            raise ValueError(f"pair {', '.join(unknown)} not among the figures; "
                             f"allowed: {', '.join(known)}")
        files = [path for path in files if path.stem.split("-", 2)[2] in pairs]
    plans = []
    for path in files:
        scenario = load_scenario(path)
        workload = swept_workload(scenario, path)
        match = _NAME.fullmatch(scenario.name)
        title = (f"Figure {int(match[1])}: {match[2].capitalize()} Performance from {match[3]}"
                 if match else scenario.name)
        if workload.options.test != "TCP_RR":
            series: tuple[Series, ...] = (
                Series("", workload.name, grid.points(path, scenario, workload)),)
        elif workload.sized_transactions:
            series = (Series(SIZED, workload.name, grid.points(path, scenario, workload)),)
        else:  # both readings: -r m,m, and as printed (one 1-byte transaction per socket)
            series = (Series(SIZED, workload.name, grid.points(path, scenario, workload,
                                                                sized=True)),
                      Series(PRINTED, workload.name, grid.points(
                          path, scenario, workload, sizes=(min(workload.send_sizes),))))
        plans.append(FigurePlan(f"{path.stem}.png", title, netperf_metric(workload), series))
    return plans


def draw_ong_farrell(plan: FigurePlan, results: dict[Point, dict[str, Any]], out: Path) -> None:
    """Write the figure of *plan* as the PNG file *out*: a panel per socket size
    (see the module's description); points without values are left out."""
    _ylabel, scale = METRICS[plan.metric]
    curves: dict[int, dict[str, dict[int, list[float]]]] = {}
    printed: dict[int, list[float]] = {}
    for series in plan.series:
        for (socket, size), values in repetition_values(series, results, plan.metric).items():
            kept = [scale * v for v in values if v is not None]
            if not kept:
                continue
            if series.label == PRINTED:
                printed[socket] = kept
            else:
                curves.setdefault(socket, {}).setdefault(series.label, {})[size] = kept
    sizes = sorted({p.size for s in plan.series if s.label != PRINTED for p in s.points})
    panels(plan, curves, printed, sizes, out)


def panels(plan: FigurePlan, curves: dict[int, dict[str, dict[int, list[float]]]],
           printed: dict[int, list[float]], sizes: list[int], out: Path) -> None:
    """Draw *curves* (socket -> legend -> message size -> repetition values, in the
    plotted unit) and the as-*printed* TCP_RR runs (socket -> values, drawn
    across *sizes*) as one panel per socket, and write the PNG file *out*."""
    ylabel, _scale = METRICS[plan.metric]
    sockets = sorted(set(curves) | set(printed))
    cols = max(1, min(COLUMNS, len(sockets)))
    rows = max(1, math.ceil(len(sockets) / cols))
    fig = Figure(figsize=(4.3 * cols + 0.5, 2.9 * rows + 1.2), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    grid = fig.subplots(rows, cols, sharex=True, sharey=True, squeeze=False)
    axes: list[Axes] = list(grid.flat)
    for ax, socket in zip(axes, sockets, strict=False):
        ax.set_title(f"socket {socket} B", fontsize="medium")
        for label, points in curves.get(socket, {}).items():
            x = sorted(points)
            _line(ax, x, [points[s] for s in x], label, "-", "o")
        if socket in printed and sizes:
            runs = printed[socket]
            _line(ax, sizes, [runs] * len(sizes), PRINTED, "--", "s")
            ax.text(0.03, 0.96, f"as printed: {fmean(runs):.0f} µs "
                    f"(min {min(runs):.0f}, max {max(runs):.0f})", transform=ax.transAxes,
                    va="top", fontsize="small")
        ax.grid(True, which="major", alpha=0.3)
    for ax in axes[len(sockets):]:
        ax.set_axis_off()
    _axes(axes[0], plan.metric, curves, printed)
    title = plan.title + ("\nsolid: netperf -r m,m; dashed: the command as printed (netperf's "
                          "TCP_RR ignores -m: 1-byte transactions)" if printed else "")
    fig.suptitle(title)
    for ax in grid[-1]:
        ax.set_xlabel("Message size (bytes)")
    fig.supylabel(ylabel)
    if not sockets:
        axes[0].text(0.5, 0.5, "no data", transform=axes[0].transAxes, ha="center",
                     va="center")
    elif printed:
        handles, labels = axes[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncols=2, fontsize="small")
    save_png(fig, out)


def _line(ax: Axes, x: Sequence[int], runs: Sequence[Sequence[float]], label: str,
          style: str, marker: str) -> None:
    """The means of *runs* at *x* with error bars from their minimum to their maximum."""
    means = [fmean(r) for r in runs]
    ax.errorbar(x, means, yerr=whiskers(means, [min(r) for r in runs], [max(r) for r in runs]),
                linestyle=style, marker=marker, markersize=3.5, capsize=3, elinewidth=1,
                label=label)


def _axes(ax: Axes, metric: str, curves: dict[int, dict[str, dict[int, list[float]]]],
          printed: dict[int, list[float]]) -> None:
    """The shared axes: message sizes on a base-2 log axis labelled 1 B to 2 MB;
    throughput linear from 0, latency on a log axis (:func:`_latency_tick`)."""
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator(list(SIZE_TICKS)))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _pos: size_label(round(value))))
    values = [v for lines in curves.values() for points in lines.values()
              for runs in points.values() for v in runs] + [
        v for runs in printed.values() for v in runs]
    if not values:
        return
    if metric == "latency":
        ax.set_yscale("log")
        ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 3.0, 5.0)))
        ax.yaxis.set_major_formatter(FuncFormatter(_latency_tick))
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.set_ylim(min(values) / 1.25, max(values) * 1.25)
    else:
        ax.set_ylim(0, max(values) * 1.08)


def _latency_tick(value: float, _pos: int) -> str:
    """A latency tick in µs: 1, 2, 3 and 5 of each decade up to 10,000 µs (the
    region of small messages), 1 and 5 above."""
    if value <= 0:
        return ""
    lead = round(value / 10 ** math.floor(math.log10(value)))
    return f"{value:,.0f}" if value < 1e4 or lead in (1, 5) else ""
