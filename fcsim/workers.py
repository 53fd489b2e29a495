"""Worker processes for independent simulations, stopped with their parent.

A small process pool made so that stopping can never hang:

- each worker has a pipe of its own, so no lock is shared between processes
  and a worker ended at any moment cannot leave one held (a
  ``multiprocessing.Pool`` whose workers were killed by a SIGTERM sent to the
  process group could wait for ever on its task-queue lock, or on a worker
  it had started again in their place);
- workers ignore SIGINT (a terminal sends Ctrl-C to the whole process group:
  the parent alone decides) and end on SIGTERM; SIGINT and SIGTERM are
  blocked while a worker starts, so one arriving then is handled with the
  worker's own settings, not the parent's;
- a worker that dies is reported (:class:`WorkerDied`), never replaced;
- workers start with every object they inherit from the parent frozen
  (``gc.freeze``, as the :mod:`gc` documentation advises before a fork): the
  cyclic collector of a worker no longer walks the parent's modules and data
  (some 140,000 objects under ``fcsim validate``) at each of its oldest
  generation's collections, nor touches their pages; the parent is thawed as
  soon as its workers have started;
- leaving the generator, at its end or early (an exception, Ctrl-C in the
  parent), kills every worker and waits for it.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import signal
from collections.abc import Callable, Iterable, Iterator
from multiprocessing.connection import Connection, wait
from typing import Any, TypeVar

Item = TypeVar("Item")

_STOPS = {signal.SIGINT, signal.SIGTERM}


def default_jobs() -> int:
    """Worker processes: every core this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


class WorkerDied(RuntimeError):
    """A worker process ended without giving its result."""


def run_unordered(func: Callable[[Item], Any], items: Iterable[Item],
                  jobs: int) -> Iterator[tuple[Item, Any]]:
    """``(item, func(item))`` for every item, in the order they finish, computed on
    *jobs* worker processes; an exception raised by *func* is raised here."""
    todo = list(items)[::-1]
    context = multiprocessing.get_context("fork")
    workers: dict[Connection, Any] = {}
    try:
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, _STOPS)
        gc.freeze()
        try:
            for _ in range(min(jobs, len(todo))):
                ours, theirs = context.Pipe()
                process = context.Process(target=_serve, args=(func, theirs), daemon=True)
                process.start()
                theirs.close()
                workers[ours] = process
        finally:
            gc.unfreeze()
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        busy: dict[Connection, Item] = {}
        for connection in workers:
            if todo:
                busy[connection] = todo.pop()
                connection.send(busy[connection])
        while busy:
            for connection in wait(list(busy)):
                item = busy.pop(connection)
                try:
                    ok, value = connection.recv()
                except EOFError:
                    process = workers[connection]
                    process.join()
                    raise WorkerDied(f"a simulation process ended (exit status "
                                     f"{process.exitcode}) while running {item}") from None
                if not ok:
                    raise value
                if todo:
                    busy[connection] = todo.pop()
                    connection.send(busy[connection])
                yield item, value
    finally:
        for process in workers.values():
            process.kill()
        for connection, process in workers.items():
            process.join()
            connection.close()


def _serve(func: Callable[[Any], Any], connection: Connection) -> None:
    """In a worker: leave SIGINT to the parent, end on SIGTERM, and answer each item
    received with ``(True, result)`` or ``(False, exception)``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOPS)
    while True:
        try:
            item = connection.recv()
        except EOFError:  # the parent is gone
            return
        try:
            answer = (True, func(item))
        except Exception as error:  # noqa: BLE001 - handed to the parent, raised there
            answer = (False, error)
        try:
            connection.send(answer)
        except Exception:  # noqa: BLE001 - a result or exception that cannot be pickled
            connection.send((False, RuntimeError(f"{type(answer[1]).__name__}: {answer[1]}")))
