"""The figures of the DAS-2 report (``fcsim figures das2``), from the files of
``scenarios/das2``.

``tcp-throughput.png``: the report's "TCP Iperf 3D" figure as a heat map,
the summed TCP throughput (sum of the flows' median interval reports,
Mbit/s, mean over the repetitions) against the window sum (x) and the number
of flows (y), each cell labelled with its value and the claim's 970 Mbit/s
floor outlined. ``udp-delivered.png``: the delivered UDP rate against the
shaping bandwidth per flow, one line per (node pairs, flows per pair) with
min/max bars over the repetitions, and the ideal, min(offered, the
loop-back's capacity), dashed.

Every point of the files' grids (20 TCP and 15 UDP, one repetition each as
the files say) is simulated: about 30 s of processor time in all.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fcsim.validation.checks import das2
from fcsim.validation.figure_plan import FigurePlan, Series
from fcsim.validation.plots import draw_line, new_figure, save_png
from fcsim.validation.points import ROOT, Point, scenario_file

TCP_FIGURE, UDP_FIGURE = "das2-tcp", "das2-udp"
"""The metrics of the two DAS-2 figures (their plans' *metric*)."""


def _relative(folder: Path, name: str) -> str:
    """The point path of the file *name* in *folder* (relative to the project if inside)."""
    path = (folder / name).resolve()
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def plan_das2(folder: Path, repetitions: int | None) -> list[FigurePlan]:
    """The two DAS-2 figures over the files in *folder*; *repetitions* per
    point replace the files' own. FileNotFoundError if a file is missing."""
    tcp, udp = [], []
    for flows in das2.FLOWS:
        name = das2.tcp_file(flows).rsplit("/", 1)[1]
        path = _relative(folder, name)
        if not (folder / name).is_file():
            raise FileNotFoundError(f"no DAS-2 scenario file {name} in {folder}")
        reps = repetitions or scenario_file(path).run.repetitions
        tcp.append(Series(str(flows), "mesh", tuple(
            Point(path, das2.per_flow_window(w, flows), None, rep)
            for w in das2.WINDOW_SUMS for rep in range(reps))))
    for pairs, parallel in das2.UDP_RUNS:
        name = das2.udp_file(pairs, parallel).rsplit("/", 1)[1]
        path = _relative(folder, name)
        if not (folder / name).is_file():
            raise FileNotFoundError(f"no DAS-2 scenario file {name} in {folder}")
        reps = repetitions or scenario_file(path).run.repetitions
        label = (f"{pairs} pair{'s' if pairs > 1 else ''} x {parallel} "
                 f"flow{'s' if parallel > 1 else ''}")
        udp.append(Series(label, "mesh", tuple(Point(path, None, None, rep, rate=b)
                                               for b in das2.SHAPING for rep in range(reps))))
    return [FigurePlan("tcp-throughput.png", "DAS-2 standard TCP tests: summed throughput "
                       "across the Force10 loop-back", TCP_FIGURE, tuple(tcp)),
            FigurePlan("udp-delivered.png", "DAS-2 standard UDP tests: delivered against "
                       "shaped rate", UDP_FIGURE, tuple(udp))]


def _values(series: Series, results: dict[Point, dict[str, Any]],
            key: str) -> dict[float, list[float]]:
    """The checks' figures of *series* per window (``key`` "socket": the summed
    TCP medians) or rate ("rate": the delivered UDP rate); runs without one
    are left out."""
    figure = das2.mesh_figure if key == "socket" else das2.delivered
    values: dict[float, list[float]] = {}
    for point in series.points:
        try:
            value = figure(results[point]["iperf"][series.workload])
        except das2.NoFigure:
            continue
        values.setdefault(getattr(point, key), []).append(value)
    return values


def draw_das2(plan: FigurePlan, results: dict[Point, dict[str, Any]], out: Path) -> None:
    """Draw the DAS-2 figure *plan* from *results* as the PNG file *out*."""
    if plan.metric == TCP_FIGURE:
        _heat_map(plan, results, out)
    else:
        _udp(plan, results, out)


def _heat_map(plan: FigurePlan, results: dict[Point, dict[str, Any]], out: Path) -> None:
    flows = [int(series.label) for series in plan.series]
    grid: list[list[float]] = []
    for series, count in zip(plan.series, flows, strict=True):
        values = _values(series, results, "socket")
        grid.append([sum(v) / len(v) if (v := values.get(das2.per_flow_window(w, count)))
                     else float("nan") for w in das2.WINDOW_SUMS])
    fig, ax = new_figure(8, 5, 120)
    image = ax.imshow(grid, origin="lower", aspect="auto", cmap="viridis", vmin=0,
                      vmax=das2.tcp_goodput(das2.JUMBO))
    fig.colorbar(image, ax=ax, label="summed throughput (Mbit/s)")
    for row, line in enumerate(grid):
        for column, value in enumerate(line):
            low = value < das2.TCP_FLOOR
            ax.text(column, row, f"{value:.0f}", ha="center", va="center", fontsize=9,
                    color="white" if low else "black", fontweight="normal" if low else "bold")
    ax.set_xticks(range(len(das2.WINDOW_SUMS)),
                  [f"{w // das2.KIB} KiB" for w in das2.WINDOW_SUMS])
    ax.set_yticks(range(len(flows)), [str(f) for f in flows])
    ax.set_xlabel("TCP window sum over all flows")
    ax.set_ylabel("flows (source-destination host pairs)")
    ax.set_title(plan.title + f"\n(bold: >= {das2.TCP_FLOOR:g} Mbit/s; IP MTU {das2.JUMBO})",
                 fontsize=10)
    save_png(fig, out)


def _udp(plan: FigurePlan, results: dict[Point, dict[str, Any]], out: Path) -> None:
    fig, ax = new_figure(8, 5, 120)
    capacity = das2.udp_capacity()
    for series, (pairs, parallel) in zip(plan.series, das2.UDP_RUNS, strict=True):
        values = _values(series, results, "rate")
        rates = sorted(values)
        x = [r / 1e6 for r in rates]
        draw_line(ax, x, [sum(values[r]) / len(values[r]) for r in rates],
                  [min(values[r]) for r in rates], [max(values[r]) for r in rates],
                  series.label)
        ax.plot(x, [min(pairs * parallel * r / 1e6, capacity) for r in rates],
                linestyle="dashed", color=ax.lines[-1].get_color(), linewidth=1)
    ax.axhline(capacity, color="grey", linewidth=0.8, linestyle="dotted",
               label=f"loop-back capacity {capacity:.1f} Mbit/s")
    ax.set_ylim(bottom=0)
    ax.set_xlabel("shaping bandwidth per flow (Mbit/s)")
    ax.set_ylabel("delivered (Mbit/s)")
    ax.set_title(plan.title + "\n(dashed: min(offered, capacity))", fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    save_png(fig, out)
