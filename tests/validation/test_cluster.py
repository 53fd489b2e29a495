"""Simulation points on a Dask cluster give the results of the local worker
processes, and a worker running another fcsim is refused."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from fcsim.validation import cluster
from fcsim.validation.batch import run_points
from fcsim.validation.points import Point

distributed = pytest.importorskip("distributed")

POINTS = [Point("scenarios/ong-farrell/fig06-stream-c110-to-c110.toml", 32768, size,
                repetition, length=0.3) for size in (1024, 8192) for repetition in (0, 1)]


def _figures(results: dict[Point, dict]) -> dict[Point, dict]:
    """Results without the processor time each took (it differs run to run)."""
    return {p: {k: v for k, v in r.items() if k != "cpu_s"} for p, r in results.items()}


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as local:
        yield local.scheduler_address


def test_cluster_results_equal_the_local_run(scheduler: str) -> None:
    seen: list[str] = []
    remote = run_points(POINTS, progress=lambda done, label: seen.append(label),
                        scheduler=scheduler)
    local = run_points(POINTS, jobs=2)
    assert _figures(remote) == _figures(local)
    assert sorted(seen) == sorted(p.label() for p in POINTS)


def test_a_worker_with_another_fcsim_is_refused(scheduler: str,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    def other_fcsim(point: Point) -> tuple[str, str, dict]:
        return "another simulator", "", {}
    monkeypatch.setattr(cluster, "remote_point", other_fcsim)
    with pytest.raises(cluster.ClusterError, match="different fcsim"):
        run_points(POINTS[:1], scheduler=scheduler)


def test_no_scheduler_is_one_clear_error() -> None:
    with pytest.raises(cluster.ClusterError, match="no Dask scheduler answers at"):
        next(cluster.run_on_cluster(POINTS[:1], "tcp://127.0.0.1:9", timeout=1.0))
