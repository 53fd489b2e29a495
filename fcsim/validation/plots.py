"""Paper-style figures of validation runs, written as PNG files.

:func:`degradation_figure` draws the loaded-fabric figures of RD11 (one line
per load), :func:`grouped_bars_figure` bars per group (the Ong & Farrell
figures are :mod:`fcsim.validation.figures_ong_farrell`'s). Every line or bar
is the mean over the repetitions with min/max error bars.

Figures are drawn on :class:`matplotlib.figure.Figure` objects with the Agg
canvas, so no global pyplot state is touched, and written atomically. The
drawing helpers (:func:`new_figure`, :func:`draw_line`, :func:`whiskers`,
:func:`log_x_axis`, :func:`png_bytes`) are shared with
:mod:`fcsim.validation.report`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from io import BytesIO
from pathlib import Path

from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter, NullLocator

from fcsim.output import write_output
from fcsim.plot_layout import COLOURS, make_readable

METRICS = {"throughput": ("Throughput (Mbit/s)", 1.0), "latency": ("Latency (µs)", 1e6),
           "cpu": ("Sender CPU (%)", 100.0), "overhead": ("Time per send() call (µs)", 1e6)}
"""Netperf metrics: y label and the factor from the values' unit to the plotted one."""


def size_label(n: int) -> str:
    """A size in bytes as a short label: ``"4 KB"`` for 4096, ``"1 MB"`` for 1048576,
    ``"262143 B"`` for sizes that are not a whole number of KB (1 KB = 1024 B)."""
    if n and n % 2**20 == 0:
        return f"{n // 2**20} MB"
    if n and n % 2**10 == 0:
        return f"{n // 2**10} KB"
    return f"{n} B"


def new_figure(width: float, height: float, dpi: int) -> tuple[Figure, Axes]:
    """A figure of *width* x *height* inches with an Agg canvas and one set of axes."""
    fig = Figure(figsize=(width, height), dpi=dpi, layout="constrained")
    FigureCanvasAgg(fig)
    return fig, fig.add_subplot()


def png_bytes(fig: Figure) -> bytes:
    """*fig* rendered as PNG; the figure is cleared afterwards."""
    buffer = BytesIO()
    fig.savefig(buffer, format="png")
    fig.clear()
    return buffer.getvalue()


def save_png(fig: Figure, out: Path) -> None:
    """Write *fig* as the PNG file *out* (its folder made if needed), as
    :func:`fcsim.output.write_output` writes files."""
    out.parent.mkdir(parents=True, exist_ok=True)
    write_output(out, png_bytes(fig), "--output")


def draw_line(ax: Axes, x: Sequence[float], y: Sequence[float],
              low: Sequence[float] | None, high: Sequence[float] | None, label: str) -> None:
    """A line with markers through (*x*, *y*), with error bars down to *low* and up to
    *high* where given (missing bounds mean no bar on that side); dashed from
    the eleventh line of *ax* on, whose colour repeats the first's."""
    ys = [_number(v) for v in y]
    dashed = len(ax.containers) >= COLOURS  # the colours start again: dash the line
    ax.errorbar(x, ys, yerr=whiskers(ys, low, high), marker="o", markersize=4, capsize=3,
                label=label, linestyle="--" if dashed else "-")


def whiskers(values: Sequence[float], low: Sequence[float | None] | None,
             high: Sequence[float | None] | None) -> list[list[float]] | None:
    """Asymmetric error bars (matplotlib's ``yerr``: distances below and above each
    value) reaching *low* and *high*; ``None`` when neither bound is given."""
    if low is None and high is None:
        return None
    lows = values if low is None else [_number(v) for v in low]
    highs = values if high is None else [_number(v) for v in high]
    return [[max(v - lo, 0.0) for v, lo in zip(values, lows, strict=True)],
            [max(hi - v, 0.0) for v, hi in zip(values, highs, strict=True)]]


def log_x_axis(ax: Axes, xs: Sequence[float], label: Callable[[float], str] | None = None) -> None:
    """A logarithmic x axis for the positive values *xs*: base 2 with ticks at powers
    of two (every other one over wide ranges) when every value is a power of two,
    base 10 otherwise (minor ticks labelled too within one decade). *label* formats the
    tick values (plain numbers by default)."""
    positive = [x for x in xs if x > 0]
    if positive and all(_power_of_two(x) for x in positive):
        ax.set_xscale("log", base=2)
        first = math.floor(math.log2(min(positive)))
        last = math.ceil(math.log2(max(positive)))
        step = 2 if last - first > 10 else 1
        first -= first % step
        ax.xaxis.set_major_locator(FixedLocator([2.0**e for e in range(first, last + 1, step)]))
        ax.xaxis.set_minor_locator(NullLocator())
        narrow = False
    else:
        ax.set_xscale("log")
        narrow = bool(positive) and max(positive) <= 10 * min(positive)
    text = label or _number_label
    formatter = FuncFormatter(lambda value, _pos: text(value))
    ax.xaxis.set_major_formatter(formatter)
    ax.xaxis.set_minor_formatter(formatter if narrow else NullFormatter())


def degradation_figure(series: list[dict], title: str, xlabel: str, ylabel: str, out: Path,
                       xlog: bool = True, label: Callable[[float], str] | None = None,
                       ylog: bool = False) -> None:
    """Write a line figure to *out*: one line per ``{"label", "x", "values"}`` series,
    where ``values`` holds the repetition values at each x (``None`` skipped, an x
    without values left out); each line is the mean with min/max error bars.
    *label* names the x ticks of a log axis (default: the numbers); *ylog*: a
    base-2 logarithmic y axis (values of one order apart stay apart) instead of
    a linear one from 0."""
    fig, ax = new_figure(8, 5, 120)
    xs_all: list[float] = []
    for entry in series:
        kept = [(x, [v for v in reps if v is not None])
                for x, reps in zip(entry["x"], entry["values"], strict=True)]
        kept = [(x, reps) for x, reps in kept if reps]
        if not kept:
            continue
        x, values = zip(*kept, strict=True)
        xs_all += x
        draw_line(ax, x, [sum(v) / len(v) for v in values], [min(v) for v in values],
                  [max(v) for v in values], entry["label"])
    _finish(ax, fig, title, xlabel, ylabel, xs_all, xlog, label, ylog)
    save_png(fig, out)


def _finish(ax: Axes, fig: Figure, title: str, xlabel: str, ylabel: str, xs: list[float],
            xlog: bool, label: Callable[[float], str] | None = None,
            ylog: bool = False) -> None:
    """Title, axis labels, grid, the legend below the axes, the y axis from 0
    (or, *ylog*, base-2 logarithmic with plain numbers at its powers of two),
    (for data on a log axis) the x scale, and x tick labels that do not overlap."""
    ax.set_title(title)
    if ylog:
        ax.set_yscale("log", base=2)
        ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _pos: _number_label(value)))
        ax.yaxis.set_minor_formatter(NullFormatter())
    else:
        top = ax.dataLim.y1 if ax.dataLim.height >= 0 else 0.0
        ax.set_ylim(bottom=0, top=max(ax.get_ylim()[1], 1.1 * top) or 1.0)  # room above flat
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, which="major", alpha=0.3)
    if xs and xlog:
        log_x_axis(ax, xs, label)
    if not ax.get_legend_handles_labels()[0]:
        ax.text(0.5, 0.5, "no data", transform=ax.transAxes, ha="center", va="center")
    make_readable(fig, ax)


def _number_label(value: float) -> str:
    """A tick value as a plain number: whole numbers in full (1048576, not
    1.04858e+06), others in at most 6 significant digits."""
    return f"{value:.0f}" if value == round(value) and abs(value) < 1e15 else f"{value:g}"


def _number(value: float | None) -> float:
    """*value* as a float, ``None`` as NaN (drawn as a gap)."""
    return math.nan if value is None else float(value)


def _power_of_two(x: float) -> bool:
    """Whether *x* is an integral or fractional power of two (1/2, 1, 2, 4, ...)."""
    mantissa, _ = math.frexp(x)
    return mantissa == 0.5


def grouped_bars_figure(groups: Sequence[str], series: Sequence[dict], title: str,
                        ylabel: str, out: Path) -> None:
    """Write a grouped bar figure to *out*: for each of *groups* (x labels) one bar
    per ``{"label", "values"}`` series, ``values`` holding each group's repetition
    values (an empty list: no bar); each bar the mean, its error bar min to max."""
    fig, ax = new_figure(8, 5, 120)
    width = 0.8 / max(1, len(series))
    for k, entry in enumerate(series):
        xs, means, lows, highs = [], [], [], []
        for g, reps in enumerate(entry["values"]):
            kept = [v for v in reps if v is not None]
            if kept:
                xs.append(g - 0.4 + width * (k + 0.5))
                means.append(sum(kept) / len(kept))
                lows.append(min(kept))
                highs.append(max(kept))
        if xs:
            ax.bar(xs, means, width, yerr=whiskers(means, lows, highs), capsize=3,
                   label=entry["label"])
    ax.set_xticks(range(len(groups)), list(groups))
    ax.set_title(title)
    ax.set_ylabel(ylabel)
    ax.set_ylim(bottom=0)
    ax.grid(True, axis="y", alpha=0.3)
    make_readable(fig, ax)
    save_png(fig, out)
