"""A batch of simulation points run at once: on local worker processes
(:mod:`fcsim.workers`), or on a Dask cluster (:mod:`fcsim.validation.cluster`),
taking from a result store (:mod:`fcsim.validation.store`) what it already
holds and keeping each new result in it."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import closing
from typing import Any

from fcsim.validation.cluster import run_on_cluster
from fcsim.validation.points import Point, run_point, scenario_file
from fcsim.validation.store import ResultStore
from fcsim.workers import default_jobs, run_unordered


def run_points(points: Iterable[Point], jobs: int | None = None,
               progress: Callable[[int, str], None] | None = None,
               store: ResultStore | None = None,
               scheduler: str | None = None) -> dict[Point, dict[str, Any]]:
    """Results of every distinct point, run on *jobs* processes (default: all
    cores), or on the Dask cluster whose *scheduler* address is given;
    *progress(done, label)* after each, with the point's label. With a
    *store*, points it holds are not simulated again, and each new result is
    kept in it as it arrives."""
    todo = sorted(set(points))
    jobs = jobs or default_jobs()
    results: dict[Point, dict[str, Any]] = {}
    if store is not None:
        for point in todo:
            kept = store.get(point)
            if kept is not None:
                results[point] = kept
        todo = [point for point in todo if point not in results]

    def arrived(point: Point, result: dict[str, Any]) -> None:
        results[point] = result
        if store is not None:
            store.put(point, result)
        if progress:
            progress(len(results), point.label())

    if scheduler is not None:
        finishing = run_on_cluster(todo, scheduler)
    elif jobs == 1 or len(todo) <= 1:
        for point in todo:
            arrived(point, run_point(point))
        return results
    else:
        for scenario in sorted({point.scenario for point in todo}):
            scenario_file(scenario)  # read here once: the workers inherit them
        finishing = run_unordered(run_point, todo, jobs)
    # Leaving the block, at the end or on Ctrl-C, kills every worker (fcsim/workers.py)
    # or cancels the cluster's tasks (cluster.py).
    with closing(finishing) as finished:
        for point, result in finished:
            arrived(point, result)
    return results
