"""Slice network block I/O over NetRPC: the block device a client's block
layer sees for each block I/O server, and the server.

The Slice block I/O service is a set of PCs, each with a few disks and a
Myrinet card, serving block reads and writes to clients over NetRPC (Chase et
al., Hot Interconnects 1999, section 2.1); the client stripes a file over
the servers (:mod:`fcsim.host.block` :class:`~fcsim.host.block.Volume`, round
robin in stripe grains). A :class:`NetBlockDevice` is one server as a device
behind the client's request queue, as an FCP logical unit is on a SAN: each
request is one NetRPC call.

A :class:`BlockServer` serves its volume: its own disks, striped in grains,
each behind the server's request queue (its block layer), with a memory
cache of pages (the servers' I/O cache: data read or written stays in
memory, least recently used pages leave first). A read found wholly in the
cache is answered at once, from memory; otherwise the server reads the
range from its disks into memory and then answers. A write is answered once
its data is on the disks (in the drive's write cache when the drive has one
on). Server processor time: the NetRPC costs, and an interrupt per disk
command (the request queue's, set by :mod:`fcsim.trapeze.build`).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from fcsim.fc4.fcp import GOOD
from fcsim.host.block import Volume
from fcsim.host.request_queue import Status
from fcsim.trapeze.netrpc import READ, WRITE, Call, NetRpc


class NetBlockDevice:
    """Block I/O server *server* reached through the client's *rpc* endpoint: a
    device behind a request queue (:class:`fcsim.host.request_queue.Device`)."""

    def __init__(self, rpc: NetRpc, server: str) -> None:
        self.rpc, self.server = rpc, server

    def login(self, then: Callable[[], None]) -> None:
        """Nothing to log in to (the Myrinet map is made before the run): *then()*."""
        then()

    def submit(self, write: bool, offset: int, length: int, done: Status) -> None:
        """One NetRPC call reading or writing the range; *done(GOOD)* in the
        receive interrupt once the reply is in."""
        self.rpc.call(self.server, WRITE if write else READ, offset, length,
                      lambda _call: done(GOOD))


class PageCache:
    """A memory cache of *capacity* bytes in pages of *page* bytes, least
    recently used first out."""

    def __init__(self, capacity: int, page: int) -> None:
        if page < 1 or capacity < 0:
            raise ValueError("a page cache needs page >= 1 and capacity >= 0 bytes")
        self.capacity, self.page = capacity // page, page
        self._pages: OrderedDict[int, None] = OrderedDict()

    def _range(self, offset: int, length: int) -> range:
        return range(offset // self.page, -(-(offset + length) // self.page))

    def holds(self, offset: int, length: int) -> bool:
        """Whether every page of the range is in the cache (then each is used)."""
        pages = self._pages
        wanted = self._range(offset, length)
        if not all(p in pages for p in wanted):
            return False
        for p in wanted:
            pages.move_to_end(p)
        return True

    def insert(self, offset: int, length: int) -> None:
        """Put the pages of the range in, pushing the least recently used out."""
        pages = self._pages
        for p in self._range(offset, length):
            pages[p] = None
            pages.move_to_end(p)
        while len(pages) > self.capacity:
            pages.popitem(last=False)

    def __len__(self) -> int:
        return len(self._pages)


class BlockServer:
    """The block I/O server on the host of *rpc*, serving *volume* (its disks,
    each behind its request queue) with a memory *cache*."""

    def __init__(self, rpc: NetRpc, volume: Volume, cache: PageCache) -> None:
        self.rpc, self.volume, self.cache = rpc, volume, cache
        rpc.handler = self._serve
        self.reset_stats()

    def _serve(self, call: Call) -> None:
        """A request is in (in the receive interrupt)."""
        self.requests += 1
        if call.op == WRITE:
            self.written += call.length
            self.volume.submit(True, call.offset, call.length,
                               lambda _r: self._done(call))
            return
        self.read += call.length
        if self.cache.holds(call.offset, call.length):
            self.hits += 1
            self.rpc.reply(call)
            return
        self.volume.submit(False, call.offset, call.length, lambda _r: self._done(call))

    def _done(self, call: Call) -> None:
        """The disks are through with *call*'s range: it is in memory; answer."""
        self.cache.insert(call.offset, call.length)
        self.rpc.reply(call)

    def results(self) -> dict[str, Any]:
        """Requests, bytes read and written, and reads answered from memory."""
        return {"requests": self.requests, "bytes_read": self.read,
                "bytes_written": self.written, "cache_hits": self.hits,
                "cached_bytes": len(self.cache) * self.cache.page}

    def reset_stats(self) -> None:
        """Start a new measured interval."""
        self.requests = self.read = self.written = self.hits = 0
