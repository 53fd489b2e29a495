"""What a validation figure is before it is drawn: its plan (:class:`FigurePlan`,
the :class:`Series` of simulation points it needs), the narrowing options of
a paper's grid (:class:`Grid`) and the helpers the papers' figure modules
share to pick scenario files and read the netperf figures of the results
(:mod:`fcsim.validation.figures` runs the points and draws them)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fcsim.scenario.model import Scenario
from fcsim.scenario.workload_model import NetperfConfig
from fcsim.validation.points import ROOT, Point

PAPERS = ("ong-farrell", "rd11", "hpss", "das2", "slice", "nvme-vs-fcp")
"""The papers (and, ``nvme-vs-fcp``, the tutorial comparison) whose figures
:func:`fcsim.validation.figures.write_figures` draws (named here, apart from
the drawing code, so that the command line's parser reads them without
loading matplotlib)."""
RESULT_KEYS = {"throughput": "throughput_mbit_s", "latency": "round_trip_s",
               "cpu": "local_cpu_utilisation", "overhead": "send_call_s"}
"""The netperf result each plotted metric (:data:`~fcsim.validation.plots.METRICS`) reads."""


@dataclass(frozen=True)
class Series:
    """One line (rd11) or line family (ong-farrell) of a figure: the *points* of
    the netperf *workload* of one scenario file, legend *label*."""

    label: str
    workload: str
    points: tuple[Point, ...]


@dataclass(frozen=True)
class FigurePlan:
    """A figure to draw: PNG file *name*, *title*, *metric* (``"throughput"``,
    ``"latency"``, ``"cpu"`` or ``"overhead"``), its *series*, and what its x
    axis is: ``"size"`` (the message size) or ``"duration"`` (the time since a
    test sweep began, each of its message sizes run for its length in turn)."""

    name: str
    title: str
    metric: str
    series: tuple[Series, ...]
    x: str = "size"

    @property
    def points(self) -> list[Point]:
        """Every simulation point the figure needs."""
        return [point for series in self.series for point in series.points]


@dataclass(frozen=True)
class Grid:
    """The narrowing options of :func:`~fcsim.validation.figures.plan_figures`:
    *repetitions* per point and netperf *length* (s) instead of the files' own
    (None: theirs), and the *sockets* and message *sizes* (bytes) of each
    file's grid to draw (None: all)."""

    repetitions: int | None
    length: float | None
    sockets: Sequence[int] | None
    sizes: Sequence[int] | None

    def points(self, path: Path, scenario: Scenario, workload: NetperfConfig,
               sockets: tuple[int, ...] | None = None, sizes: tuple[int, ...] | None = None,
               sized: bool = False) -> tuple[Point, ...]:
        """The points of *workload* of the scenario file *path*: *sockets* and
        *sizes* (default: the file's, narrowed by this grid) x repetitions;
        *sized*: TCP_RR transactions of each size (netperf -r m,m)."""
        sockets = sockets or self.sockets_of(workload, path)
        sizes = sizes or _pick(self.sizes, workload.send_sizes, "message size", path)
        repetitions = self.repetitions or scenario.run.repetitions
        name = point_path(path)
        return tuple(Point(name, socket, size, repetition, self.length, sized)
                     for socket in sockets for size in sizes for repetition in range(repetitions))


    def sockets_of(self, workload: NetperfConfig, path: Path) -> tuple[int, ...]:
        """The socket sizes of *workload* (of the file *path*) to draw, bytes."""
        return _pick(self.sockets, workload.sockets, "socket size", path)


def _pick(given: Sequence[int] | None, grid: tuple[int, ...], what: str,
          path: Path) -> tuple[int, ...]:
    """*given* (all of *grid* if None), checked against *grid*."""
    if given is None:
        return grid
    unknown = [value for value in given if value not in grid]
    if unknown:
        raise ValueError(f"{what} {', '.join(map(str, unknown))} not in the grid of "
                         f"{path.name}; allowed: {', '.join(map(str, grid))} bytes")
    return tuple(dict.fromkeys(given))


def point_path(path: Path) -> str:
    """*path* as a :class:`Point` scenario: relative to the project if inside it."""
    path = path.resolve()
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def netperf_metric(workload: NetperfConfig) -> str:
    """The plotted metric of *workload*: latency for TCP_RR, throughput otherwise."""
    return "latency" if workload.options.test == "TCP_RR" else "throughput"


def scenario_files(folder: Path, pattern: str, paper: str) -> list[Path]:
    """The files of *folder* matching *pattern*, sorted; :class:`FileNotFoundError`
    naming *paper* if there are none."""
    files = sorted(folder.glob(pattern))
    if not files:
        raise FileNotFoundError(f"no {paper} scenario files ({pattern}) in {folder}")
    return files


def _value(result: dict[str, Any], workload: str, metric: str) -> float | None:
    """The netperf figure *metric* of *workload* in *result* (:data:`RESULT_KEYS`:
    Mbit/s, s, or a fraction); None if the run produced none."""
    return result["netperf"].get(workload, {}).get(RESULT_KEYS[metric])


def repetition_values(series: Series, results: dict[Point, dict[str, Any]],
                      metric: str) -> dict[tuple[int, int], list[float | None]]:
    """The repetition values of *series* per (socket, message size)."""
    values: dict[tuple[int, int], list[float | None]] = {}
    for point in series.points:
        values.setdefault((point.socket, point.size), []).append(
            _value(results[point], series.workload, metric))
    return values
