"""Simulation points on a Dask cluster (``--scheduler ADDRESS``).

Each point is submitted to the cluster's scheduler as a task of
:func:`remote_point`; results come back in the order they finish, as from the
local worker processes (:mod:`fcsim.workers`). Every worker must run
the same fcsim as the machine that submits (install the same checkout or
wheel on each): a worker answers with the fingerprint of its simulator and of
the point's scenario file, and a result from a worker whose code, device
models or scenario differ is refused, so that a cluster can never mix
results of two different simulators. Leaving the generator, at its end or
early (Ctrl-C), cancels the tasks not yet finished.

Dask (the ``distributed`` package) is needed only for this: ``pip install
'fcsim[cluster]'``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from fcsim.validation.points import Point, run_point
from fcsim.validation.store import fingerprint, scenario_digest


class ClusterError(RuntimeError):
    """The cluster cannot be used, or one of its workers runs another fcsim."""


def remote_point(point: Point) -> tuple[str, str, dict[str, Any]]:
    """On a worker: the fingerprints of its fcsim and of *point*'s scenario file,
    and the point's result."""
    return fingerprint(), scenario_digest(point.scenario), run_point(point)


def run_on_cluster(points: Iterable[Point], address: str,
                   timeout: float = 10.0) -> Iterator[tuple[Point, Any]]:
    """``(point, result)`` for every point, in the order they finish, computed
    on the Dask cluster whose scheduler is at *address* (such as
    ``tcp://10.0.0.1:8786``), which must answer within *timeout* s.
    ClusterError if ``distributed`` is missing, the scheduler does not
    answer, or a worker's fcsim differs from this one."""
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise ClusterError("--scheduler needs Dask's 'distributed' package: "
                           "pip install 'fcsim[cluster]'") from None
    try:
        client = Client(address, timeout=timeout)
    except (OSError, TimeoutError) as error:
        raise ClusterError(f"no Dask scheduler answers at {address}: {error}") from None
    todo = list(points)
    futures = client.map(remote_point, todo, pure=False)
    which = {future.key: point for future, point in zip(futures, todo, strict=True)}
    ours = fingerprint()
    try:
        for future, (theirs, digest, result) in as_completed(futures, with_results=True):
            point = which[future.key]
            if theirs != ours or digest != scenario_digest(point.scenario):
                raise ClusterError(f"a worker ran {point.label()} with a different fcsim, "
                                   "device models or scenario file than this machine's: "
                                   "install the same fcsim on every worker")
            yield point, result
    finally:
        client.cancel(futures)
        client.close()
