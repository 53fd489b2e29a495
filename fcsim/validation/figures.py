"""The figures of the validation papers, simulated and written as PNG files.

``ong-farrell``: figures 6-33 of Ong & Farrell, one per scenario file of
``scenarios/ong-farrell``, a panel per socket size
(:mod:`fcsim.validation.figures_ong_farrell`).

``hpss``: the HPSS benchmarks' bars per mover path
(:mod:`fcsim.validation.figures_hpss`).
``das2``: the DAS-2 report's TCP heat map and UDP figure
(:mod:`fcsim.validation.figures_das2`).

``slice``: figure 4 of the Trapeze/Slice report, read and write bandwidth
against the disks, one line per server count
(:mod:`fcsim.validation.figures_slice`).

``rd11``: the loaded-fabric figures of RD11, throughput or latency, the
sender's processor use and its time per send() call against the message
size, one line per load, and figure 16, the load's own figures while each
test sweeps (:mod:`fcsim.validation.figures_rd11`).

By default every point of the files' grids is simulated with the files' own
repetitions and netperf length (10 s), all in one pool of processes. For
``ong-farrell`` that is 28 files x 9 sockets x 16 message sizes x 5 repetitions =
20,160 points, and the 14 TCP_RR files' command as printed, one 1-byte run per
socket and repetition (630 more). Measured processor time per point with the
files' steady-state rule (``bench/figures_grid.py``): 7.5-8.9 s for a stream
of 1-64 B messages (its receiver is in receive livelock or reads rarely, so
it never settles and runs its 10 s), 0.15-0.4 s for the other stream points
(2 s at 256 B) and 0.06-0.33 s for an RR point, so the full grid takes about
7 processor hours, four fifths of them in the 1-64 B streams: under 4 hours
on 2 idle cores, about 1 on 8. ``rd11`` has 510
points (4 experiments x 5 loads x 6 or 11 message sizes x 3 repetitions of
1 s runs, as its files say) of 0.3-3.5 s of processor time each (the loads
are simulated too): about 6 minutes on 2 cores. The keyword arguments narrow the grid
(sockets, message sizes, pairs or experiments, repetitions) or shorten netperf's
``-l`` for quicker drafts; the time scales with the points and the length.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fcsim.scenario.model import Scenario
from fcsim.scenario.workload_model import NetperfConfig
from fcsim.validation.figures_hpss import plan_hpss
from fcsim.validation.figures_slice import plan_slice
from fcsim.validation.points import ROOT, Point, run_points
from fcsim.validation.store import ResultStore

PAPERS = ("ong-farrell", "rd11", "hpss", "das2", "slice")
"""The papers whose figures :func:`write_figures` draws."""

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


def plan_figures(paper: str, *, folder: Path | None = None, repetitions: int | None = None,
                 length: float | None = None, sockets: Sequence[int] | None = None,
                 sizes: Sequence[int] | None = None, pairs: Sequence[str] | None = None,
                 experiments: Sequence[str] | None = None) -> list[Any]:
    """The figures of *paper* (one of :data:`PAPERS`) and the points they need.

    *folder*: the scenario files (default ``scenarios/<paper>`` of the project).
    *repetitions* per point and netperf *length* (s) replace the files' own;
    *sockets* and *sizes* (bytes) narrow each file's sweep (every chosen file's
    grid must hold them); *pairs* (ong-farrell, e.g. ``"c110-to-c110"``) and
    *experiments* (rd11, e.g. ``"mem-stream"``) pick figures; ``hpss`` and
    ``slice`` take only *repetitions* (:mod:`fcsim.validation.figures_hpss`,
    :mod:`fcsim.validation.figures_slice`). :class:`ValueError`
    for a value outside the files' grid, :class:`FileNotFoundError` if the folder
    holds no scenario file of the paper.
    """
    if paper not in PAPERS:
        raise ValueError(f"unknown paper {paper!r}; known: {', '.join(PAPERS)}")
    if repetitions is not None and repetitions < 1:
        raise ValueError(f"repetitions must be at least 1, got {repetitions}")
    if length is not None and length <= 0:
        raise ValueError(f"length must be > 0 s, got {length}")
    folder = Path(folder) if folder is not None else ROOT / "scenarios" / paper
    if paper in ("hpss", "slice", "das2"):  # the grid is the files (figures_<paper>.py)
        given = {"length": length, "sockets": sockets, "sizes": sizes, "pairs": pairs,
                 "experiments": experiments}
        unused = [k for k, v in given.items() if v is not None]
        if unused:
            raise ValueError(f"{', '.join(unused)}: not options of the {paper} figures (their "
                             "grid is their files'; only repetitions applies)")
        from fcsim.validation.figures_das2 import plan_das2
        return {"hpss": plan_hpss, "slice": plan_slice, "das2": plan_das2}[paper](
            folder, repetitions)
    grid = Grid(repetitions, length, sockets, sizes)
    if paper == "ong-farrell":
        if experiments is not None:
            raise ValueError("experiments select rd11 figures; ong-farrell figures "
                             "are selected by pairs")
        from fcsim.validation.figures_ong_farrell import plan_ong_farrell
        return plan_ong_farrell(folder, grid, pairs)
    if pairs is not None:
        raise ValueError("pairs select ong-farrell figures; rd11 figures are selected "
                         "by experiments")
    from fcsim.validation.figures_rd11 import plan_rd11
    return plan_rd11(folder, grid, experiments)


def figure_points(paper: str, **options: Any) -> list[Point]:
    """Every distinct point the figures of *paper* need, sorted (*options*: as
    :func:`plan_figures`); its length is the work :func:`write_figures` does."""
    return sorted({p for plan in plan_figures(paper, **options) for p in plan.points})


def write_figures(paper: str, out: Path, *, jobs: int | None = None,
                  repetitions: int | None = None, length: float | None = None,
                  sockets: Sequence[int] | None = None, sizes: Sequence[int] | None = None,
                  pairs: Sequence[str] | None = None, experiments: Sequence[str] | None = None,
                  folder: Path | None = None,
                  progress: Callable[[int, str], None] | None = None,
                  store: ResultStore | None = None,
                  scheduler: str | None = None) -> list[Path]:
    """Simulate every point of *paper*'s figures on *jobs* processes (default:
    all cores) in one pool, or on the Dask cluster at *scheduler*, then write
    the figures as PNG files into *out*; their paths, in figure order. The
    options are those of :func:`plan_figures`; *progress(done, label)* is
    called after each point (the total is ``len(figure_points(...))``)."""
    plans = plan_figures(paper, folder=folder, repetitions=repetitions, length=length,
                         sockets=sockets, sizes=sizes, pairs=pairs, experiments=experiments)
    results = run_points([p for plan in plans for p in plan.points], jobs, progress, store,
                         scheduler)
    paths = []
    for plan in plans:
        path = Path(out) / plan.name
        if paper in ("hpss", "slice"):
            plan.draw(results, path)
        elif paper == "ong-farrell":
            from fcsim.validation.figures_ong_farrell import draw_ong_farrell
            draw_ong_farrell(plan, results, path)
        elif paper == "das2":
            from fcsim.validation.figures_das2 import draw_das2
            draw_das2(plan, results, path)
        else:
            from fcsim.validation.figures_rd11 import draw_rd11
            draw_rd11(plan, results, path)
        paths.append(path)
    return paths


@dataclass(frozen=True)
class Grid:
    """The narrowing options of :func:`plan_figures`: *repetitions* per point and
    netperf *length* (s) instead of the files' own (None: theirs), and the
    *sockets* and message *sizes* (bytes) of each file's grid to draw (None: all)."""

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
