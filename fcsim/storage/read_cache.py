"""A disk array controller's read cache: the data it has read ahead of a
sequential stream, in cache blocks, each present or still on its way from the
drives, held until a read takes it, a write to its range makes it stale, or
room is needed for newer read-ahead (oldest present block first).

The controller manages its cache memory in blocks of a fixed size (the
LSI/Engenio lineage's "cache block size", 4 to 32 KiB in NetApp SANtricity,
the successor of the IBM FAStT / StorageTek D-series Storage Manager); a
block here is the part of one such block a fetch brings in, so a block never
crosses a cache-block boundary and is found by its index."""

from __future__ import annotations

from collections.abc import Callable


class CacheBlock:
    """Array bytes *start* .. *end* in the controller's cache, within one cache
    block: :attr:`ready` once they have crossed the back-end channel; until
    then the callbacks in :attr:`waiting` are called when they do."""

    __slots__ = ("start", "end", "ready", "waiting")

    def __init__(self, start: int, end: int) -> None:
        self.start, self.end = start, end
        self.ready = False
        self.waiting: list[Callable[[], None]] = []

    @property
    def size(self) -> int:
        """Bytes held."""
        return self.end - self.start

    def landed(self) -> None:
        """The bytes are in the cache: wake every reader waiting for them."""
        self.ready = True
        waiting, self.waiting = self.waiting, []
        for wake in waiting:
            wake()


class ReadCache:
    """Blocks read ahead, at most *capacity* bytes, indexed by cache block
    (*block* bytes each) and kept in the order they were read ahead."""

    def __init__(self, capacity: int, block: int) -> None:
        self.capacity, self.block = capacity, block
        self._blocks: dict[int, CacheBlock] = {}
        self.held = 0

    def find(self, start: int, end: int) -> CacheBlock | None:
        """The block holding array bytes *start* .. *end* (within one cache
        block), present or on its way; None if none holds all of them."""
        found = self._blocks.get(start // self.block)
        if found is not None and found.start <= start and end <= found.end:
            return found
        return None

    def holds(self, start: int) -> bool:
        """Whether a block (of any part) of the cache block of *start* is held."""
        return start // self.block in self._blocks

    def add(self, block: CacheBlock) -> bool:
        """Hold *block*, making room by dropping the oldest present blocks;
        False (not held) if blocks still on their way leave too little."""
        if self.held + block.size > self.capacity:
            for index in [i for i, b in self._blocks.items() if b.ready]:
                self.held -= self._blocks.pop(index).size
                if self.held + block.size <= self.capacity:
                    break
            if self.held + block.size > self.capacity:
                return False
        self._blocks[block.start // self.block] = block
        self.held += block.size
        return True

    def take(self, block: CacheBlock) -> None:
        """A read has taken *block* (present or on its way): it is no longer held."""
        if self._blocks.get(block.start // self.block) is block:
            del self._blocks[block.start // self.block]
            self.held -= block.size

    def drop(self, start: int, end: int) -> None:
        """A write to array bytes *start* .. *end*: the blocks over them are stale."""
        if not self._blocks:
            return
        for index in range(start // self.block, (end - 1) // self.block + 1):
            stale = self._blocks.pop(index, None)
            if stale is not None:
                self.held -= stale.size
