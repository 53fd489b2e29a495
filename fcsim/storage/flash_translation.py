"""The flash translation layer of one die of an SSD: a page-level map,
erase blocks written from open blocks, and greedy garbage collection.

Flash is written a page at a time into erased blocks and erased a whole
block at a time, so a rewritten logical page goes to a fresh page and its
old copy becomes invalid. A die takes its host pages (logical page *p* on die
*p* mod dies, MQSim's static CWDP allocation) into its open block; when that
is full it opens a free one. The collector writes into an open block of its
own (MQSim's separate GC write frontier). While its free blocks are fewer than the model's
``gc_blocks`` (MQSim ``GC_Exec_Threshold`` x blocks) it collects: it picks the
closed block with the fewest valid pages (greedy, as MQSim's ``GREEDY``
policy), moves its valid pages (each a page read on the die, the page out
and back in over the channel, as MQSim does without copyback, then a
program into its open block; all queued at once, as MQSim submits a victim's
transactions together) and erases the block (``erase_latency``), one block at
a time. Host programs and the collector's steps share the die's program
level in arrival order (collection is not preempted: MQSim's
``Preemptible_GC_Enabled`` false). Host writes wait while the die has no
room and no more than ``reserve_blocks`` free (MQSim ``GC_Hard_Threshold``),
which the collector may always use; the write buffer then fills and the
host's writes slow to the rate the collector frees pages at.

The collector's cost per host page, at a write amplification *A* (flash
pages programmed per host page), is *A* - 1 moves and *A* / pages_per_block
erases; under uniform random writes *A* follows from the spare factor of the
blocks that hold data (Xiang and Kurkoski, "An improved analytic expression
for write amplification in NAND flash", ICNC 2012; Agarwal and Marrow,
GLOBECOM 2010), which the tests check.
"""

from __future__ import annotations

from array import array
from collections import deque
from collections.abc import Callable

from fcsim.engine.server import Server
from fcsim.engine.simulation import Simulation
from fcsim.storage.device_model import SsdModel

PROGRAM_LEVEL = 1
"""The die's service level of programs, moves and erases (reads go first, at 0)."""


class FlashTranslation:
    """The map, blocks and collector of die *index* of *dies*, served by
    *die* and its *channel*, as *model* says. *host_pages*, *moved_pages*
    and *erases* count the measured interval's programs of host data, pages
    the collector moved, and blocks erased; :meth:`mean_free_blocks` the
    free blocks' time average."""

    def __init__(self, sim: Simulation, die: Server, channel: Server, model: SsdModel,
                 index: int, dies: int) -> None:
        self.sim, self.die, self.channel, self.model = sim, die, channel, model
        self.index, self.dies = index, dies
        self._np = model.pages_per_block
        blocks = model.blocks_per_die
        self.valid = array("I", bytes(4 * blocks))  # compact: an SSD has thousands a die
        self._contents: dict[int, list[int]] = {}  # block -> logical page of each slot
        self._map: dict[int, int] = {}  # logical page -> slot (block x pages + offset)
        self._written_in_order = 0  # logical pages preconditioned: slot = local index
        if model.preconditioned:
            local = len(range(index, model.logical_pages, dies))
            self._written_in_order = local
            full, rest = divmod(local, self._np)
            for block in range(full):
                self.valid[block] = self._np
            if rest:
                self.valid[full] = rest
            used = full + (1 if rest else 0)
        else:
            used = 0
        self._closed = bytearray(b"\1" * used + bytes(blocks - used))  # 1: closed
        self._unused = used  # blocks from here on were never written
        self._clean: deque[int] = deque()  # blocks erased since, in order
        self._open = [-1, -1]  # the open block of host writes, of the collector
        self._offset = [self._np, self._np]
        self._waiting: deque[tuple[int, Callable[[], None]]] = deque()
        self._collecting = False
        self.host_pages = self.moved_pages = self.erases = 0
        self._since = sim.now  # the measured interval's start
        self._changed = sim.now  # the free blocks' last change
        self._free_time = 0.0  # free blocks x s since the interval's start

    @property
    def free_blocks(self) -> int:
        """Erased blocks not yet opened."""
        return self.model.blocks_per_die - self._unused + len(self._clean)

    def _slot(self, page: int) -> int:
        """Where logical *page* is valid (-1: never written)."""
        slot = self._map.get(page)
        if slot is not None:
            return slot
        local = page // self.dies
        return local if local < self._written_in_order else -1

    def _logical(self, block: int, offset: int) -> int:
        """The logical page last written in a slot (-1: none)."""
        contents = self._contents.get(block)
        if contents is not None:
            return contents[offset]
        local = block * self._np + offset
        return local * self.dies + self.index if local < self._written_in_order else -1

    def _take(self, collector: bool) -> int:
        """A free slot of the host's or the *collector*'s open block, opening a
        free block when it is full (-1: none, host writes having left the
        reserve to the collector)."""
        which = int(collector)
        if self._offset[which] == self._np:
            if self.free_blocks <= (0 if collector else self.model.reserve_blocks):
                return -1
            if self._open[which] >= 0:
                self._closed[self._open[which]] = 1
            self._count_free()
            if self._clean:
                block = self._clean.popleft()
            else:
                block, self._unused = self._unused, self._unused + 1
            self._open[which] = block
            self._contents[block] = [-1] * self._np
            self._offset[which] = 0
            self._collect()
        slot = self._open[which] * self._np + self._offset[which]
        self._offset[which] += 1
        return slot

    def _write(self, page: int, slot: int) -> None:
        """Map *page* to *slot*, invalidating its old copy."""
        old = self._slot(page)
        if old >= 0:
            self.valid[old // self._np] -= 1
        self._map[page] = slot
        block, offset = divmod(slot, self._np)
        self._contents[block][offset] = page
        self.valid[block] += 1

    def program(self, page: int, done: Callable[[], None]) -> None:
        """Program host data of logical *page* (its bytes already over the
        channel); *done()* when it is on the flash."""
        if not self._waiting:
            slot = self._take(False)
            if slot >= 0:
                self._write(page, slot)
                self.host_pages += 1
                self.die.serve(self.model.program_latency, done, PROGRAM_LEVEL)
                return
        self._waiting.append((page, done))

    def _collect(self) -> None:
        """Collect a block if free blocks are below the threshold and the
        collector is idle."""
        if self._collecting or self.free_blocks >= self.model.gc_blocks:
            return
        closed, valid = self._closed, self.valid
        victim = min((b for b in range(len(closed)) if closed[b]), key=valid.__getitem__,
                     default=-1)
        if victim < 0:
            return
        self._collecting = True
        closed[victim] = 0
        self._move(victim)

    def _move(self, victim: int) -> None:
        """Queue the moves of *victim*'s valid pages, all at once as MQSim
        submits a victim's transactions, then its erase."""
        model = self.model
        crossings = 2 * model.page_size / model.channel_rate
        base = victim * self._np
        moves = [(page, base + offset) for offset in range(self._np)
                 if (page := self._logical(victim, offset)) >= 0
                 and self._slot(page) == base + offset]
        left = [len(moves)]

        def one() -> None:
            left[0] -= 1
            if left[0] == 0:
                self.die.serve(model.erase_latency, lambda: self._erased(victim),
                               PROGRAM_LEVEL)
        if not moves:
            left[0] = 1
            one()
        for page, old in moves:
            self.die.serve(model.read_latency, lambda page=page, old=old: self.channel.serve(
                crossings, lambda: self._moved(page, old, one)), PROGRAM_LEVEL)

    def _moved(self, page: int, old: int, then: Callable[[], None]) -> None:
        """A page is read and back over the channel: program it, unless the
        host rewrote it meanwhile; *then()* once done."""
        if self._slot(page) != old:
            then()
            return
        slot = self._take(True)
        assert slot >= 0, "the collector always has a block (reserve_blocks >= 1)"
        self._write(page, slot)
        self.moved_pages += 1
        self.die.serve(self.model.program_latency, then, PROGRAM_LEVEL)

    def _erased(self, victim: int) -> None:
        """The victim is erased: free it, let waiting host writes in, and go on
        collecting while free blocks are below the threshold."""
        self.erases += 1
        self.valid[victim] = 0
        self._contents.pop(victim, None)
        self._count_free()
        self._clean.append(victim)
        self._collecting = False
        while self._waiting:
            slot = self._take(False)
            if slot < 0:
                break
            page, done = self._waiting.popleft()
            self._write(page, slot)
            self.host_pages += 1
            self.die.serve(self.model.program_latency, done, PROGRAM_LEVEL)
        self._collect()

    def _count_free(self) -> None:
        """Add the free blocks' time since their last change (before a change)."""
        now = self.sim.now
        self._free_time += self.free_blocks * (now - self._changed)
        self._changed = now

    def mean_free_blocks(self) -> float:
        """The free blocks' time average over the measured interval so far."""
        self._count_free()
        span = self.sim.now - self._since
        return self._free_time / span if span > 0 else float(self.free_blocks)

    def reset_stats(self) -> None:
        """Start a new measured interval."""
        self.host_pages = self.moved_pages = self.erases = 0
        self._since = self._changed = self.sim.now
        self._free_time = 0.0
