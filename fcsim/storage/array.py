"""A disk array: a controller, a back-end channel and member disks, as RAID 0 or
RAID 5 (left-symmetric: the parity rotates from the last disk backwards, the
data of a stripe starts on the disk after its parity).

Every host command costs the controller its overhead (one command at a
time). A read asks each member disk holding a piece of it for that piece;
each piece then crosses the shared back-end channel to the controller; the
command is done when every piece is. A write (write-through) sends each piece
over the channel to its disk. RAID 5 adds parity: a write covering whole
stripes writes their data and a parity unit per stripe (no reads); a smaller
write reads the old data and the old parity of the range it covers, then
writes both (four disk commands per piece: the small-write penalty). With a
write-back cache the controller acknowledges a write once its data is in the
cache and writes it to the disks behind, as above; a write that finds the
cache full waits until enough has been written out.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

from fcsim.engine.server import Server
from fcsim.engine.simulation import Simulation
from fcsim.storage.device_model import ArrayModel
from fcsim.storage.disk import Breakdown, Disk

Piece = tuple[int, int, int, int]
"""(stripe, member disk, offset on the disk, bytes) of a command's range."""


class DiskArray:
    """The array *model* as a simulated device named *name*."""

    def __init__(self, sim: Simulation, name: str, model: ArrayModel) -> None:
        self.sim, self.name, self.model = sim, name, model
        self.members = [Disk(sim, f"{name}/disk{i}", model.disk) for i in range(model.disks)]
        self._controller = Server(sim, f"{name}/controller")
        self._channel = Server(sim, f"{name}/channel")
        self._dirty = 0
        self._full: deque[tuple[int, int, Callable[[], None]]] = deque()
        self._open = 0
        self.member_commands = 0
        self.stats = Breakdown()

    @property
    def queued(self) -> int:
        """Host commands in service."""
        return self._open

    # -- layout -----------------------------------------------------------------------------

    def parity_disk(self, stripe: int) -> int:
        """The member holding *stripe*'s parity (RAID 5)."""
        return self.model.disks - 1 - stripe % self.model.disks

    def pieces(self, offset: int, length: int) -> list[Piece]:
        """The pieces of the array range *offset* .. *offset* + *length*, one per
        stripe unit it touches."""
        model = self.model
        unit, data = model.stripe_unit, model.data_disks
        out = []
        end = offset + length
        while offset < end:
            index, into = divmod(offset, unit)
            stripe, k = divmod(index, data)
            disk = (self.parity_disk(stripe) + 1 + k) % model.disks if model.raid == 5 else k
            size = min(unit - into, end - offset)
            out.append((stripe, disk, stripe * unit + into, size))
            offset += size
        return out

    # -- commands -----------------------------------------------------------------------------

    def submit(self, write: bool, offset: int, length: int, done: Callable[[], None]) -> None:
        """Read or write *length* bytes at *offset* of the array; *done()* when the
        host may be answered."""
        self._open += 1
        stats = self.stats
        stats.command(write, length)
        stats.overhead += self.model.controller_overhead

        def answered() -> None:
            self._open -= 1
            done()

        def started() -> None:
            if not write:
                self._read(offset, length, answered)
            elif self.model.cache:
                self._cache(offset, length, answered)
            else:
                self._write(offset, length, answered)
        self._controller.serve(self.model.controller_overhead, started)

    def _all(self, count: int, done: Callable[[], None]) -> Callable[[], None]:
        """A callback that calls *done* on its *count*-th call."""
        left = [count]

        def one() -> None:
            left[0] -= 1
            if left[0] == 0:
                done()
        return one

    def _disk(self, member: int, write: bool, offset: int, length: int,
              done: Callable[[], None]) -> None:
        self.member_commands += 1
        self.members[member].submit(write, offset, length, done)

    def _cross(self, length: int, done: Callable[[], None]) -> None:
        self._channel.serve(length / self.model.channel_rate, done)

    def _read(self, offset: int, length: int, done: Callable[[], None]) -> None:
        pieces = self.pieces(offset, length)
        one = self._all(len(pieces), done)
        for _, disk, at, size in pieces:
            self._disk(disk, False, at, size, lambda size=size: self._cross(size, one))

    def _write(self, offset: int, length: int, done: Callable[[], None]) -> None:
        pieces = self.pieces(offset, length)
        if self.model.raid == 0:
            one = self._all(len(pieces), done)
            for _, disk, at, size in pieces:
                self._cross(size, lambda d=disk, a=at, s=size: self._disk(d, True, a, s, one))
            return
        unit, data = self.model.stripe_unit, self.model.data_disks
        stripes: dict[int, list[Piece]] = {}
        for piece in pieces:
            stripes.setdefault(piece[0], []).append(piece)
        writes = []  # (disk, offset, bytes, reads first)
        for stripe, parts in stripes.items():
            parity = self.parity_disk(stripe)
            if sum(p[3] for p in parts) == unit * data:  # the whole stripe: no reads
                writes += [(d, a, s, False) for _, d, a, s in parts]
                writes.append((parity, stripe * unit, unit, False))
            else:
                for _, d, a, s in parts:
                    writes += [(d, a, s, True), (parity, a, s, True)]
        one = self._all(len(writes), done)
        for disk, at, size, rmw in writes:
            self._write_piece(disk, at, size, rmw, one)

    def _write_piece(self, disk: int, at: int, size: int, read_first: bool,
                     done: Callable[[], None]) -> None:
        """Write one piece to its disk over the channel, reading its old
        contents to the controller first for a parity update."""
        def write() -> None:
            self._cross(size, lambda: self._disk(disk, True, at, size, done))
        if read_first:
            self._disk(disk, False, at, size, lambda: self._cross(size, write))
        else:
            write()

    def _cache(self, offset: int, length: int, done: Callable[[], None]) -> None:
        if self._dirty + length > self.model.cache and self._dirty:
            self._full.append((offset, length, done))
            return
        self._dirty += length
        done()
        self._write(offset, length, lambda: self._flushed(length))

    def _flushed(self, length: int) -> None:
        self._dirty -= length
        while self._full and (self._dirty + self._full[0][1] <= self.model.cache
                              or not self._dirty):
            self._cache(*self._full.popleft())

    # -- figures ------------------------------------------------------------------------------

    def utilisations(self, interval: float) -> dict[str, float]:
        """Busy fraction of the controller, the member disks (mean) and the
        back-end channel over *interval* s."""
        def share(busy: float) -> float:
            return busy / interval if interval > 0 else 0.0
        return {"controller": share(self._controller.busy_time),
                "member disks": share(sum(m.stats.busy for m in self.members)
                                      / len(self.members)),
                "back-end channel": share(self._channel.busy_time)}

    def results(self, interval: float) -> dict[str, Any]:
        """Figures of the measured *interval* (s): the host commands, the member
        disks' mean service breakdown, each internal resource's utilisation and
        each member disk's."""
        stats = self.stats
        member = Breakdown()
        for m in self.members:
            for name in ("overhead", "seek", "rotation", "transfer", "busy", "commands",
                         "buffer_hits"):
                setattr(member, name, getattr(member, name) + getattr(m.stats, name))
        used = self.utilisations(interval)
        out = member.as_dict(interval)
        out.update({"commands": stats.commands, "bytes": stats.bytes,
                    "bytes_written": stats.written, "member_commands": self.member_commands,
                    "utilisation": max(used.values()),
                    "utilisations": used,
                    "disk_utilisations": {f"disk{i}": m.stats.busy / interval
                                          if interval > 0 else 0.0
                                          for i, m in enumerate(self.members)}})
        return out

    def reset_stats(self) -> None:
        """Start a new measured interval."""
        self.stats = Breakdown()
        self.member_commands = 0
        self._controller.reset_stats()
        self._channel.reset_stats()
        for m in self.members:
            m.reset_stats()
