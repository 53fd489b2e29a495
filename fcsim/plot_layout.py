"""Figures a reader can read: legends beside the data rather than on it, tick
labels that do not run into each other, and a check of both.

Every measurement uses matplotlib's own text extents (``get_window_extent``
with the figure's renderer, after the constrained layout has run), so what is
checked is what is drawn. The run report (:mod:`fcsim.run_report`), the
validation report and the paper-style figures (:mod:`fcsim.validation`) lay
out their figures with these helpers, and a test checks every figure they
draw with :func:`overlaps`.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterator

from matplotlib.axes import Axes
from matplotlib.axis import Axis
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.text import Text
from matplotlib.ticker import FixedLocator, ScalarFormatter
from matplotlib.transforms import Bbox

COLOURS = 10
"""Colours of matplotlib's default cycle, after which they repeat: the
figures dash the lines after these."""
MIN_OVERLAP = 0.5
"""Pixels two boxes must share on each side to overlap (less is touching)."""


def make_readable(fig: Figure, ax: Axes, fontsize: str = "small") -> None:
    """Lay out *fig*'s one axes *ax* for a reader: tick values in full
    (:func:`_plain_numbers`), the legend below the axes in as many columns as
    fit the figure's width (the figure grows by its height, so the axes keep
    theirs), the title broken into lines (at word boundaries, 100 characters
    or fewer) while it runs off the figure (it is centred on the axes, which
    labels may push aside), and the x tick labels turned 45° then 90°, then
    every second, third, ... kept, until none overlaps another (nothing
    labelled: no legend)."""
    _plain_numbers(ax)
    _legend_below(fig, ax, fontsize)
    title = " ".join(ax.get_title().split())
    chars = 100
    steps = _tick_steps(ax.xaxis)
    while True:
        fig.draw_without_rendering()
        if chars >= 20 and not _inside(ax.title.get_window_extent(), fig.bbox):
            ax.set_title("\n".join(textwrap.wrap(title, chars)))
            chars -= 5
        elif not (_pairs(_boxes(_tick_labels(ax.xaxis)))
                  and next(steps, _DONE) is not _DONE):
            return


_DONE = object()
"""The end of :func:`_tick_steps`."""


def _legend_below(fig: Figure, ax: Axes, fontsize: str) -> None:
    """The legend of :func:`make_readable`, sized with the renderer alone (a
    legend's columns never overlap each other)."""
    handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return
    renderer = fig.canvas.get_renderer()
    width, height = fig.get_size_inches()
    legend = fig.legend(handles, labels, loc="outside lower center", ncols=1,
                        fontsize=fontsize, frameon=False)
    column = legend.get_window_extent(renderer).width  # one column: the widest entry
    for ncols in range(max(1, min(len(labels), int(fig.bbox.width // max(column, 1.0)))), 0,
                       -1):
        legend.remove()
        legend = fig.legend(handles, labels, loc="outside lower center", ncols=ncols,
                            fontsize=fontsize, frameon=False)
        if legend.get_window_extent(renderer).width <= fig.bbox.width:
            break
    fig.set_size_inches(width, height + legend.get_window_extent(renderer).height / fig.dpi)


def _plain_numbers(ax: Axes) -> None:
    """Tick labels of *ax*'s linear axes written in full, never as an offset
    or a power of ten beside the axis (the unit is in the axis label)."""
    for axis in (ax.xaxis, ax.yaxis):
        formatter = axis.get_major_formatter()
        if isinstance(formatter, ScalarFormatter):
            formatter.set_useOffset(False)
            formatter.set_scientific(False)


def _tick_steps(axis: Axis) -> Iterator[None]:
    """Each step of making *axis*'s tick labels fit, taken as it is asked
    for: turned 45°, turned 90°, then every second, third, ... label kept."""
    for rotation in (45, 90):
        _turn(axis, rotation)
        yield
    locations = list(axis.get_majorticklocs())
    texts = [label.get_text() for label in axis.get_ticklabels()]
    for step in range(2, len(locations) + 1):
        axis.set_major_locator(FixedLocator(locations[::step]))
        if len(texts) == len(locations) and any(texts):
            axis.set_ticklabels(texts[::step])
        _turn(axis, 90)
        yield


def _turn(axis: Axis, rotation: int) -> None:
    for label in axis.get_ticklabels():
        label.set_rotation(rotation)
        label.set_horizontalalignment("right" if rotation == 45 else "center")
        label.set_rotation_mode("anchor" if rotation == 45 else "default")


def overlaps(fig: Figure) -> list[str]:
    """What a reader could not read in *fig*, drawn as it is saved: each pair of
    overlapping text labels (tick labels, legend entries, axis labels, titles,
    notes), each legend lying on the data area of an axes, each text running
    off the figure and each axis drawn with an offset or exponent (``1e7``)
    instead of units. Empty when every label can be read."""
    texts = list(_texts(fig))
    problems = [f"{a!r} overlaps {b!r}" for a, b in _pairs(_boxes(texts))]
    area = fig.bbox
    for text, box in _boxes(texts):
        if not _inside(box, area):
            problems.append(f"{text!r} runs off the figure")
    for legend in _legends(fig):
        box = legend.get_window_extent()
        for ax in fig.axes:
            if ax.axison and _shared(box, ax.get_window_extent()):
                problems.append(f"a legend lies on the axes {ax.get_title()!r}")
    for ax in (ax for ax in fig.axes if ax.axison):
        for axis in (ax.xaxis, ax.yaxis):
            offset = axis.get_offset_text().get_text()
            if offset:
                problems.append(f"axis of {ax.get_title()!r} drawn with offset {offset!r}")
    return problems


def _texts(fig: Figure) -> Iterator[Text]:
    """The visible, non-empty texts of *fig* (its layout run first)."""
    fig.draw_without_rendering()
    found: list[Text] = [*fig.texts, *(t for legend in _legends(fig) for t in legend.get_texts())]
    for ax in fig.axes:
        if not ax.axison:
            found += ax.texts
            continue
        found += [ax.title, ax.xaxis.label, ax.yaxis.label,
                  *ax.texts, *_tick_labels(ax.xaxis), *_tick_labels(ax.yaxis)]
    return (t for t in found if t.get_visible() and t.get_text().strip())


def _tick_labels(axis: Axis) -> list[Text]:
    """The tick labels *axis* draws (its figure laid out): visible, non-empty,
    within its view."""
    low, high = sorted(axis.get_view_interval())
    slack = (high - low) * 1e-9
    index = 0 if axis.axis_name == "x" else 1
    labels = [*axis.get_majorticklabels(), *axis.get_minorticklabels()]
    return [t for t in labels if t.get_visible() and t.get_text().strip()
            and low - slack <= t.get_position()[index] <= high + slack]


def _legends(fig: Figure) -> list[Legend]:
    found = [ax.get_legend() for ax in fig.axes]
    return [legend for legend in [*found, *fig.legends] if legend is not None]


def _boxes(texts: list[Text] | Iterator[Text]) -> list[tuple[str, Bbox]]:
    return [(t.get_text(), t.get_window_extent()) for t in texts
            if t.get_visible() and t.get_text().strip()]


def _pairs(boxes: list[tuple[str, Bbox]]) -> list[tuple[str, str]]:
    return [(a, b) for i, (a, box_a) in enumerate(boxes) for b, box_b in boxes[i + 1:]
            if _shared(box_a, box_b)]


def _shared(a: Bbox, b: Bbox) -> bool:
    """Whether *a* and *b* share more than :data:`MIN_OVERLAP` pixels each way."""
    return (min(a.x1, b.x1) - max(a.x0, b.x0) > MIN_OVERLAP
            and min(a.y1, b.y1) - max(a.y0, b.y0) > MIN_OVERLAP)


def _inside(box: Bbox, area: Bbox) -> bool:
    return (box.x0 >= area.x0 - MIN_OVERLAP and box.x1 <= area.x1 + MIN_OVERLAP
            and box.y0 >= area.y0 - MIN_OVERLAP and box.y1 <= area.y1 + MIN_OVERLAP)
