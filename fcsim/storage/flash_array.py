"""An all-flash array: a controller with a mirrored write-back cache in front
of NVMe SSDs, host data striped over them (no parity).

Every host command first takes the controller's pipeline latency
(``controller_latency``, commands overlapping) and then its processor's time
(``controller_time``, one command at a time, so the array serves at most
1 / controller_time commands a second). A read then asks each drive holding
a piece of it (stripe units of ``stripe_unit`` bytes, round robin over the
drives) for that piece and is done when every piece is. A write with a
write-back cache goes into the cache while there is room (writes in arrival
order; one that finds the cache full waits for destaging to make room), is
copied to the partner controller's cache over the interconnect
(``mirror_rate``, one copy at a time) and acknowledged once the partner's
acknowledgement is back (``mirror_latency``); the cache then destages it to
its drives, its bytes leaving the cache as each drive takes its piece
(an SSD takes a write into its own buffer). Without a cache a write is done
when every drive has its piece. Reads do not look in the cache (a cache that
serves reads, and parity, are not modelled).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from fcsim.engine.server import Server
from fcsim.engine.simulation import Simulation
from fcsim.storage.device_model import FlashArrayModel
from fcsim.storage.disk import Breakdown
from fcsim.storage.ssd import Ssd

Piece = tuple[int, int, int]
"""(drive, offset on the drive, bytes) of a command's range."""


class FlashArray:
    """The array *model* as a simulated device named *name*."""

    def __init__(self, sim: Simulation, name: str, model: FlashArrayModel) -> None:
        self.sim, self.name, self.model = sim, name, model
        self.drives = [Ssd(sim, f"{name}/ssd{i}", model.ssd) for i in range(model.ssds)]
        self._controller = Server(sim, f"{name}/controller")
        self._mirror = Server(sim, f"{name}/mirror")
        self.dirty = 0  # bytes in the write-back cache not yet on the drives
        self.most_dirty = 0
        self._room: deque[tuple[int, int, Callable[[], None]]] = deque()
        self.stats = Breakdown()

    def pieces(self, offset: int, length: int) -> list[Piece]:
        """The drives' pieces of a range, in order."""
        unit, drives = self.model.stripe_unit, self.model.ssds
        out = []
        end = offset + length
        while offset < end:
            index, into = divmod(offset, unit)
            piece = min(unit - into, end - offset)
            row, drive = divmod(index, drives)
            out.append((drive, row * unit + into, piece))
            offset += piece
        return out

    def submit(self, write: bool, offset: int, length: int, done: Callable[[], None]) -> None:
        """Read or write *length* bytes at *offset*; *done()* when a read's data
        are in the controller, or a write's acknowledged."""
        model = self.model
        self.stats.command(write, length)
        self.stats.overhead += model.controller_latency + model.controller_time

        def processed() -> None:
            if write and model.cache:
                self._cache(offset, length, done)
            else:
                self._drives(write, offset, length, done)
        self.sim.call_later(model.controller_latency,
                            lambda event: self._controller.serve(model.controller_time,
                                                                 processed))

    def _drives(self, write: bool, offset: int, length: int,
                done: Callable[[], None], each: Callable[[int], None] | None = None) -> None:
        """Each drive's piece; *done()* once all are; *each(bytes)* as each is."""
        pieces = self.pieces(offset, length)
        left = [len(pieces)]

        def one(size: int) -> None:
            if each is not None:
                each(size)
            left[0] -= 1
            if left[0] == 0:
                done()
        for drive, at, size in pieces:
            self.drives[drive].submit(write, at, size, lambda size=size: one(size))

    def _cache(self, offset: int, length: int, done: Callable[[], None]) -> None:
        """Queue the write for the cache, behind any write waiting for room."""
        self._room.append((offset, length, done))
        if len(self._room) == 1:
            self._fill()

    def _fill(self) -> None:
        """Take waiting writes into the cache while they fit, in order; each is
        mirrored, then acknowledged and destaged."""
        model = self.model
        while self._room:
            offset, length, done = self._room[0]
            if self.dirty + length > model.cache and self.dirty:
                return
            self._room.popleft()
            self.dirty += length
            self.most_dirty = max(self.most_dirty, self.dirty)
            if model.mirrored:
                self._mirror.serve(length / model.mirror_rate, lambda offset=offset,
                                   length=length, done=done: self.sim.call_later(
                                       model.mirror_latency,
                                       lambda event: self._cached(offset, length, done)))
            else:
                self._cached(offset, length, done)

    def _cached(self, offset: int, length: int, done: Callable[[], None]) -> None:
        """The write is safe in the cache (and its mirror): acknowledge it and
        destage it to the drives."""
        done()
        self._drives(True, offset, length, lambda: None, self._destaged)

    def _destaged(self, size: int) -> None:
        self.dirty -= size
        self._fill()

    def utilisations(self, interval: float) -> dict[str, float]:
        """Busy fraction of the controller's processor, the mirror interconnect
        and the drives' dies (their mean) over *interval* s."""
        if interval <= 0:
            return {"array controller": 0.0, "mirror interconnect": 0.0, "flash dies": 0.0}
        dies = [d.utilisations(interval)["flash dies"] for d in self.drives]
        return {"array controller": self._controller.busy_time / interval,
                "mirror interconnect": self._mirror.busy_time / interval,
                "flash dies": sum(dies) / len(dies)}

    def results(self, interval: float) -> dict[str, float]:
        """Figures of the measured *interval* (s); utilisation is the controller's."""
        self.stats.busy = self._controller.busy_time
        return {**self.stats.as_dict(interval), "most_cached_bytes": self.most_dirty}

    def reset_stats(self) -> None:
        """Start a new measured interval."""
        self.stats = Breakdown()
        self.most_dirty = self.dirty
        for server in (self._controller, self._mirror):
            server.reset_stats()
        for drive in self.drives:
            drive.reset_stats()
