"""The worker processes of validate and figures: every result once, errors raised in
the parent, a dead worker reported, and no worker left once the caller stops."""

from __future__ import annotations

import gc
import os
import signal
import time
from contextlib import closing
from pathlib import Path

import pytest

from fcsim.workers import WorkerDied, run_unordered


def _square(n: int) -> int:
    if n == 13:
        raise ValueError("thirteen")
    return n * n


def _pid(n: int) -> int:
    time.sleep(0.05 * n)
    return os.getpid()


def test_every_item_once_with_its_result() -> None:
    got = dict(run_unordered(_square, range(10), 3))
    assert got == {n: n * n for n in range(10)}


def test_an_error_in_a_worker_is_raised_in_the_parent() -> None:
    with pytest.raises(ValueError, match="thirteen"):
        list(run_unordered(_square, [12, 13, 14], 2))


def test_a_worker_killed_from_outside_is_reported() -> None:
    def suicide(n: int) -> int:
        os.kill(os.getpid(), signal.SIGKILL)
        return n

    with pytest.raises(WorkerDied, match=r"exit status -9\) while running 1"):
        list(run_unordered(suicide, [1], 1))


def _children() -> set[str]:
    listing = Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children")
    if not listing.exists():
        pytest.skip("this kernel does not list a process's children")
    return set(listing.read_text().split())


def test_stopping_early_leaves_no_worker() -> None:
    before = _children()
    with closing(run_unordered(_pid, [1, 20, 20], 3)) as finished:
        _item, pid = next(iter(finished))
        assert len(_children() - before) == 3
    assert _children() == before and not Path(f"/proc/{pid}").exists()


def _frozen(_: int) -> int:
    return gc.get_freeze_count()


def test_workers_start_with_the_parents_objects_frozen_and_the_parent_does_not() -> None:
    """Each worker's collector leaves alone the objects it inherited (their count is
    the parent's tracked objects at the fork, more than the few hundred of an
    interpreter alone), and the parent is not left frozen."""
    tracked = len(gc.get_objects())
    frozen = dict(run_unordered(_frozen, range(2), 2))
    assert all(count >= tracked // 2 for count in frozen.values())
    assert gc.get_freeze_count() == 0
