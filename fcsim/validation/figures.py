"""The figures of the validation papers, simulated and written as PNG files.

``ong-farrell``: figures 6-33 of Ong & Farrell, one per scenario file of
``scenarios/ong-farrell``, a panel per socket size
(:mod:`fcsim.validation.figures_ong_farrell`).

``hpss``: the HPSS benchmarks' bars per mover path
(:mod:`fcsim.validation.figures_hpss`).
``das2``: the DAS-2 report's TCP heat map and UDP figure
(:mod:`fcsim.validation.figures_das2`).

``nvme-vs-fcp``: the same host, switch and all-flash array over SCSI-FCP and
over NVMe/FC, IOPS and latency against the queue depth, the figures of
docs/tutorials/12-nvme-vs-fcp.md (:mod:`fcsim.validation.figures_nvme_vs_fcp`;
its files are in ``scenarios/`` itself).

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
from pathlib import Path
from typing import Any

from fcsim.validation.batch import run_points
from fcsim.validation.figure_plan import PAPERS, Grid
from fcsim.validation.figures_das2 import draw_das2, plan_das2
from fcsim.validation.figures_hpss import plan_hpss
from fcsim.validation.figures_nvme_vs_fcp import plan_nvme_vs_fcp
from fcsim.validation.figures_ong_farrell import draw_ong_farrell, plan_ong_farrell
from fcsim.validation.figures_rd11 import draw_rd11, plan_rd11
from fcsim.validation.figures_slice import plan_slice
from fcsim.validation.points import ROOT, Point
from fcsim.validation.store import ResultStore


def plan_figures(paper: str, *, folder: Path | None = None, repetitions: int | None = None,
                 length: float | None = None, sockets: Sequence[int] | None = None,
                 sizes: Sequence[int] | None = None, pairs: Sequence[str] | None = None,
                 experiments: Sequence[str] | None = None) -> list[Any]:
    """The figures of *paper* (one of :data:`PAPERS`) and the points they need.

    *folder*: the scenario files (default ``scenarios/<paper>`` of the project).
    *repetitions* per point and netperf *length* (s) replace the files' own;
    *sockets* and *sizes* (bytes) narrow each file's sweep (every chosen file's
    grid must hold them); *pairs* (ong-farrell, e.g. ``"c110-to-c110"``) and
    *experiments* (rd11, e.g. ``"mem-stream"``) pick figures; ``hpss``,
    ``slice``, ``das2`` and ``nvme-vs-fcp`` take only *repetitions*
    (:mod:`fcsim.validation.figures_hpss`, :mod:`fcsim.validation.figures_slice`,
    :mod:`fcsim.validation.figures_nvme_vs_fcp`). :class:`ValueError`
    for a value outside the files' grid, :class:`FileNotFoundError` if the folder
    holds no scenario file of the paper.
    """
    if paper not in PAPERS:
        raise ValueError(f"unknown paper {paper!r}; known: {', '.join(PAPERS)}")
    if repetitions is not None and repetitions < 1:
        raise ValueError(f"repetitions must be at least 1, got {repetitions}")
    if length is not None and length <= 0:
        raise ValueError(f"length must be > 0 s, got {length}")
    default = ROOT / "scenarios" / ("" if paper == "nvme-vs-fcp" else paper)
    folder = Path(folder) if folder is not None else default
    if paper in ("hpss", "slice", "das2", "nvme-vs-fcp"):  # the grid is the files
        given = {"length": length, "sockets": sockets, "sizes": sizes, "pairs": pairs,
                 "experiments": experiments}
        unused = [k for k, v in given.items() if v is not None]
        if unused:
            raise ValueError(f"{', '.join(unused)}: not options of the {paper} figures (their "
                             "grid is their files'; only repetitions applies)")
        return {"hpss": plan_hpss, "slice": plan_slice, "das2": plan_das2,
                "nvme-vs-fcp": plan_nvme_vs_fcp}[paper](folder, repetitions)
    grid = Grid(repetitions, length, sockets, sizes)
    if paper == "ong-farrell":
        if experiments is not None:
            raise ValueError("experiments select rd11 figures; ong-farrell figures "
                             "are selected by pairs")
        return plan_ong_farrell(folder, grid, pairs)
    if pairs is not None:
        raise ValueError("pairs select ong-farrell figures; rd11 figures are selected "
                         "by experiments")
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
        if paper in ("hpss", "slice", "nvme-vs-fcp"):
            plan.draw(results, path)
        elif paper == "ong-farrell":
            draw_ong_farrell(plan, results, path)
        elif paper == "das2":
            draw_das2(plan, results, path)
        else:
            draw_rd11(plan, results, path)
        paths.append(path)
    return paths
