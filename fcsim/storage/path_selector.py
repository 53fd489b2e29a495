"""The path selectors of a multipath device's path group, as Linux's
device-mapper multipath target offers them (``drivers/md``):

- ``round-robin`` (``dm-round-robin.c``): the paths in turn, *rr_min_io_rq*
  requests down each before the next (multipath.conf's ``rr_min_io_rq``,
  default 1; current kernels take any value above 1 as 1: ``repeat_count >
  1 is deprecated, using 1 instead``);
- ``queue-length`` (``dm-queue-length.c``): the path with the fewest requests
  in flight; the list is rotated by one before each choice, so that ties go
  round (``list_move_tail(s->valid_paths.next, ...)`` in ``ql_select_path``);
- ``service-time`` (``dm-service-time.c``): the path whose in-flight bytes
  divided by its relative throughput is least (``st_compare_load``; with
  equal throughputs, dm's default of 1, the fewest bytes in flight, then the
  higher throughput), rotated as queue-length.

A selector sees the paths of its group in the order the group lists them and
chooses among those :attr:`SelectablePath.usable` now; it keeps no list of
failed paths of its own (dm moves a failed path to a failed list and a
reinstated one to the tail of the valid list: the same choices but for the
reinstated path's place in the turn).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Sequence
from typing import Protocol

ROUND_ROBIN = "round-robin"
QUEUE_LENGTH = "queue-length"
SERVICE_TIME = "service-time"
SELECTORS = (ROUND_ROBIN, QUEUE_LENGTH, SERVICE_TIME)
"""The path selectors modelled, as multipath.conf names them."""


class SelectablePath(Protocol):
    """What a selector reads of a path: whether it may take I/O now, the
    requests and bytes it has in flight, and its relative throughput (dm
    service-time's, 1 by default)."""

    @property
    def usable(self) -> bool: ...
    @property
    def in_flight(self) -> int: ...
    @property
    def in_flight_bytes(self) -> int: ...
    @property
    def relative_throughput(self) -> int: ...


class PathSelector(ABC):
    """Chooses the path of each request among *paths* (those of a group); each
    dm path selector is a subclass that defines :meth:`select`."""

    def __init__(self, paths: Sequence[SelectablePath]) -> None:
        self.order: deque[SelectablePath] = deque(paths)

    @abstractmethod
    def select(self, nbytes: int) -> SelectablePath | None:
        """The path for a request of *nbytes* bytes, or None if none is usable."""

    def _rotated(self) -> list[SelectablePath]:
        """The usable paths after moving the first path to the tail."""
        self.order.rotate(-1)
        return [p for p in self.order if p.usable]


class RoundRobin(PathSelector):
    """dm-round-robin: each usable path in turn, *repeat* requests each."""

    def __init__(self, paths: Sequence[SelectablePath], repeat: int = 1) -> None:
        super().__init__(paths)
        self.repeat = repeat
        self._current: SelectablePath | None = None
        self._left = 0

    def select(self, nbytes: int) -> SelectablePath | None:
        current = self._current
        if current is not None and self._left > 0 and current.usable:
            self._left -= 1
            return current
        for _ in range(len(self.order)):
            path = self.order[0]
            self.order.rotate(-1)
            if path.usable:
                self._current, self._left = path, self.repeat - 1
                return path
        self._current = None
        return None


class QueueLength(PathSelector):
    """dm-queue-length: the usable path with the fewest requests in flight."""

    def select(self, nbytes: int) -> SelectablePath | None:
        usable = self._rotated()
        return min(usable, key=lambda p: p.in_flight) if usable else None


class ServiceTime(PathSelector):
    """dm-service-time: the usable path of least (in-flight bytes + the
    request) / relative throughput; ties to the higher throughput."""

    def select(self, nbytes: int) -> SelectablePath | None:
        usable = self._rotated()
        if not usable:
            return None
        best = usable[0]
        for path in usable[1:]:
            if _compare_load(path, best, nbytes) < 0:
                best = path
        return best


def _compare_load(a: SelectablePath, b: SelectablePath, incoming: int) -> float:
    """Below 0 if *a* is the better path for *incoming* bytes, as dm's
    ``st_compare_load``."""
    ta, tb = a.relative_throughput, b.relative_throughput
    sa, sb = a.in_flight_bytes, b.in_flight_bytes
    if ta == tb:
        return sa - sb
    if sa == sb or not ta or not tb:
        return tb - ta
    st = (sa + incoming) * tb - (sb + incoming) * ta
    return st if st else tb - ta


def make_selector(name: str, paths: Sequence[SelectablePath],
                  rr_min_io_rq: int = 1) -> PathSelector:
    """The selector *name* (one of :data:`SELECTORS`) over *paths*."""
    if name == ROUND_ROBIN:
        return RoundRobin(paths, rr_min_io_rq)
    if name == QUEUE_LENGTH:
        return QueueLength(paths)
    if name == SERVICE_TIME:
        return ServiceTime(paths)
    raise ValueError(f"unknown path selector {name!r}: one of {', '.join(SELECTORS)}")
