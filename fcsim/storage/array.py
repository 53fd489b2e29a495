"""A disk array: a controller, a back-end channel and member disks, as RAID 0 or
RAID 5 (left-symmetric: the parity rotates from the last disk backwards, the
data of a stripe starts on the disk after its parity).

Every host command costs the controller its overhead (one command at a
time). A read asks each member disk holding a piece of it for that piece;
each piece then crosses the shared back-end channel to the controller; the
command is done when every piece is. A write sends each piece over the
channel to its disk. RAID 5 updates each stripe's parity once per write,
over the rows of the stripe the write covers, by the cheaper of two methods
(fewer member reads; reconstruct-write on a tie), as Linux md's
``handle_stripe_dirtying`` (drivers/md/raid5.c) chooses: read-modify-write
reads the old data of the pieces written and the old parity;
reconstruct-write reads the rest of those rows from the other data disks. A
write covering whole stripes therefore reads nothing. The reads cross the
channel to the controller, then the new data and parity cross back to the
disks. With a write-back cache the controller acknowledges a write once its
data is in the cache and writes it to the disks behind, as above; a write
that finds the cache full waits until enough has been written out.

The controller keeps at most the member drive's ``queue_depth`` commands at
each member (reads and destaging writes alike); the rest wait at the
controller, writes (which complete an update whose reads are done) before
reads, each in arrival order. Each member's platter starts at its own angle,
drawn from the run's random stream of the array (independent spindles, not
synchronised).

The read path (:meth:`DiskArray.stream_read`): a read's data cross the
channel in cache blocks of the model's ``cache_block`` (the unit of the
controller's cache) and, cut-through, each goes out to the host as soon as it
and every block before it have landed, while the channel carries the next
(a controller's front-end and back-end DMA work on different cache blocks at
once); with ``cache_block`` 0 the data go out once the whole command is in
the cache (store-and-forward). A read that continues the one before it (two
back-to-back reads of consecutive ranges: a sequential stream) makes the
controller read ``prefetch`` times its length ahead, from the drives into
its :class:`~fcsim.storage.read_cache.ReadCache` (SCSI's caching mode page
expresses its pre-fetch the same way, as a multiple of the command's
transfer length when its MF bit is set; FAStT Storage Manager's "cache
read-ahead multiplier"); a later read takes what it finds there, present or
still on its way, and the drives only for the rest. Each read is compared
with the last one only: one sequential stream is followed, interleaved
streams are not seen (as disk systems detecting sequential reads per LUN).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

from fcsim.engine.server import Server
from fcsim.engine.simulation import Simulation
from fcsim.storage.device_model import ArrayModel
from fcsim.storage.disk import Breakdown, Disk
from fcsim.storage.read_cache import CacheBlock, ReadCache

Piece = tuple[int, int, int, int]
"""(stripe, member disk, offset on the disk, bytes) of a command's range."""
Held = tuple[bool, int, int, Callable[[], None]]
"""A member command waiting at the controller: write, offset, bytes, done."""
Access = tuple[int, int, int]
"""(member disk, offset on the disk, bytes) of a member command."""


class DiskArray:
    """The array *model* as a simulated device named *name*."""

    def __init__(self, sim: Simulation, name: str, model: ArrayModel) -> None:
        self.sim, self.name, self.model = sim, name, model
        spindles = sim.rng(f"{name}/spindles")
        self.members = [Disk(sim, f"{name}/disk{i}", model.disk, spindles.random())
                        for i in range(model.disks)]
        # member commands waiting at the controller, per member: writes, reads
        self._held: list[tuple[deque[Held], deque[Held]]] = [
            (deque(), deque()) for _ in range(model.disks)]
        self._controller = Server(sim, f"{name}/controller")
        self._channel = Server(sim, f"{name}/channel")
        self._dirty = 0
        self._full: deque[tuple[int, int, Callable[[], None]]] = deque()
        self._open = 0
        self.member_commands = 0
        self.stats = Breakdown()
        # a read's data cross the channel in grains: cache blocks, or whole pieces
        self._grain = model.cache_block or model.stripe_unit
        self._cache = ReadCache(model.cache, self._grain) if model.prefetch else None
        self._last_end = -1  # where the last read ended: a read starting there is sequential
        self.prefetched = 0  # bytes read ahead into the cache
        self.read_ahead_hits = 0  # bytes of reads found there

    @property
    def cached(self) -> int:
        """Bytes read ahead and held in the cache (present or on their way)."""
        return self._cache.held if self._cache is not None else 0

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

    def stripe_write(self, stripe: int, parts: list[Piece]) -> tuple[list[Access], list[Access]]:
        """The member reads and writes of a RAID 5 write of *parts* (pieces of
        *stripe*): the parity is written once, over the rows *lo* .. *hi* that
        the parts span within their units. Read-modify-write reads each part's
        old data and the old parity of those rows; reconstruct-write reads
        what the write does not supply of those rows from every data disk.
        The fewer reads win, reconstruct-write on a tie (Linux md's
        ``handle_stripe_dirtying``, which compares the blocks each would read
        and takes read-modify-write only when strictly fewer)."""
        lo = min(at for _, _, at, _ in parts)
        hi = max(at + size for _, _, at, size in parts)
        parity = self.parity_disk(stripe)
        writes = [(disk, at, size) for _, disk, at, size in parts] + [(parity, lo, hi - lo)]
        written = {disk: (at, at + size) for _, disk, at, size in parts}
        reconstruct = []
        for disk in range(self.model.disks):
            if disk == parity:
                continue
            start, end = written.get(disk, (hi, hi))
            if start > lo:
                reconstruct.append((disk, lo, start - lo))
            if end < hi:
                reconstruct.append((disk, end, hi - end))
        return (writes if len(writes) < len(reconstruct) else reconstruct), writes

    # -- commands -----------------------------------------------------------------------------
    def submit(self, write: bool, offset: int, length: int, done: Callable[[], None]) -> None:
        """Read or write *length* bytes at *offset* of the array; *done()* when the
        host may be answered."""
        self._command(write, offset, length, None, done)

    def stream_read(self, offset: int, length: int, arrived: Callable[[int], None],
                    done: Callable[[], None]) -> None:
        """Read *length* bytes at *offset*, handing the data over as they reach
        the cache, in order: cut-through (a ``cache_block``), *arrived(bytes)*
        for each run of cache blocks landed before the last, *done()* with
        the last; store-and-forward, *done()* alone once all have."""
        self._command(False, offset, length, arrived if self.model.cache_block else None, done)

    def _command(self, write: bool, offset: int, length: int,
                 arrived: Callable[[int], None] | None, done: Callable[[], None]) -> None:
        self._open += 1
        stats = self.stats
        stats.command(write, length)
        stats.overhead += self.model.controller_overhead

        def answered() -> None:
            self._open -= 1
            done()

        def started() -> None:
            if not write:
                self._read(offset, length, arrived, answered)
                return
            if self._cache is not None:
                self._cache.drop(offset, offset + length)
            if self.model.cache:
                self._cache_write(offset, length, answered)
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
        """A member command; it waits at the controller while the member holds
        its drive's queue depth, and a held write goes before held reads (it
        completes a stripe update whose reads are done)."""
        self.member_commands += 1
        disk = self.members[member]
        if disk.queued >= disk.model.queue_depth:
            self._held[member][not write].append((write, offset, length, done))
        else:
            disk.submit(write, offset, length, lambda: self._member_done(member, done))

    def _member_done(self, member: int, done: Callable[[], None]) -> None:
        writes, reads = self._held[member]
        held = writes or reads
        if held:
            write, offset, length, then = held.popleft()
            self.members[member].submit(write, offset, length,
                                        lambda: self._member_done(member, then))
        done()

    def _cross(self, length: int, done: Callable[[], None]) -> None:
        self._channel.serve(length / self.model.channel_rate, done)

    def _grains(self, start: int, end: int) -> list[tuple[int, int]]:
        """Array bytes *start* .. *end* cut at every grain boundary."""
        grain = self._grain
        out = []
        while start < end:
            stop = min(end, (start // grain + 1) * grain)
            out.append((start, stop))
            start = stop
        return out

    def _read(self, offset: int, length: int, arrived: Callable[[int], None] | None,
              done: Callable[[], None]) -> None:
        """The read after the controller's overhead: each grain from the cache
        if read ahead, else from the drives; handed over in order; then, if
        it continues the last read, the next ``prefetch`` times its length
        read ahead."""
        cache = self._cache
        blocks: list[CacheBlock] = []
        sizes: list[int] = []
        missed: list[CacheBlock] = []
        for start, end in self._grains(offset, offset + length):
            if cache is not None and (block := cache.find(start, end)) is not None:
                cache.take(block)
                self.read_ahead_hits += end - start
            else:
                block = CacheBlock(start, end)
                missed.append(block)
            blocks.append(block)
            sizes.append(end - start)
        self._fetch(missed)
        self._hand_over(blocks, sizes, arrived, done)
        if cache is not None and offset == self._last_end:
            ahead = []
            end = min(offset + length * (1 + self.model.prefetch), self.model.capacity)
            for start, stop in self._grains(offset + length, end):
                if cache.holds(start):
                    continue
                block = CacheBlock(start, stop)
                if not cache.add(block):
                    break
                ahead.append(block)
                self.prefetched += block.size
            self._fetch(ahead)
        self._last_end = offset + length

    def _fetch(self, blocks: list[CacheBlock]) -> None:
        """Read *blocks* (in array order) from the drives: one member command per
        stripe unit's run of them, then each block across the channel, landing
        in the cache as it crosses."""
        rate = self.model.channel_rate
        k = 0
        while k < len(blocks):
            first = k
            while k + 1 < len(blocks) and blocks[k + 1].start == blocks[k].end:
                k += 1
            k += 1
            run = iter(blocks[first:k])
            start, end = blocks[first].start, blocks[k - 1].end
            for _, disk, where, size in self.pieces(start, end - start):
                part, got = [], 0
                while got < size:  # a grain divides the stripe unit: whole blocks
                    part.append(block := next(run))
                    got += block.size

                def crossed(part: list[CacheBlock] = part) -> None:
                    for block in part:
                        self._channel.serve(block.size / rate, block.landed)
                self._disk(disk, False, where, size, crossed)

    def _hand_over(self, blocks: list[CacheBlock], sizes: list[int],
                   arrived: Callable[[int], None] | None, done: Callable[[], None]) -> None:
        """Hand the read's *blocks* (its *sizes* bytes of each) over in order: with
        *arrived*, each run of landed blocks before the last as it lands and
        *done()* with the last; without, *done()* once all have landed."""
        if arrived is None:
            waiting = [b for b in blocks if not b.ready]
            if not waiting:
                done()
                return
            one = self._all(len(waiting), done)
            for block in waiting:
                block.waiting.append(one)
            return
        last = len(blocks) - 1
        at = [0]

        def step() -> None:
            k = at[0]
            while k < last and blocks[k].ready:
                k += 1
            if k > at[0]:
                arrived(sum(sizes[at[0]:k]))
                at[0] = k
            if k == last and blocks[k].ready:
                done()
            else:
                blocks[k].waiting.append(step)
        step()

    def _write(self, offset: int, length: int, done: Callable[[], None]) -> None:
        pieces = self.pieces(offset, length)
        if self.model.raid == 0:
            self._update([], [(disk, at, size) for _, disk, at, size in pieces], done)
            return
        stripes: dict[int, list[Piece]] = {}
        for piece in pieces:
            stripes.setdefault(piece[0], []).append(piece)
        one = self._all(len(stripes), done)
        for stripe, parts in stripes.items():
            self._update(*self.stripe_write(stripe, parts), one)

    def _update(self, reads: list[Access], writes: list[Access],
                done: Callable[[], None]) -> None:
        """Read *reads* from their members to the controller over the channel,
        then (the parity computed) send *writes* over it to theirs; *done()*
        when every write is through."""
        def write() -> None:
            one = self._all(len(writes), done)
            for disk, at, size in writes:
                self._cross(size, lambda d=disk, a=at, s=size: self._disk(d, True, a, s, one))
        if not reads:
            write()
            return
        read = self._all(len(reads), write)
        for disk, at, size in reads:
            self._disk(disk, False, at, size, lambda s=size: self._cross(s, read))

    def _cache_write(self, offset: int, length: int, done: Callable[[], None]) -> None:
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
            self._cache_write(*self._full.popleft())

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
                    "prefetched_bytes": self.prefetched,
                    "read_ahead_hit_bytes": self.read_ahead_hits,
                    "max_member_queue": max(m.max_queued for m in self.members),
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
        self.prefetched = self.read_ahead_hits = 0
        self._controller.reset_stats()
        self._channel.reset_stats()
        for m in self.members:
            m.reset_stats()
