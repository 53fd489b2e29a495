"""The Slice client: a process reading or writing a file striped over block I/O
servers through the client kernel's file cache, and a process taking page
faults on a mapped file.

:class:`SliceFile` is what dd's read() and write() calls reach (FreeBSD 4.0
on the client; Hot Interconnects 1999, section 4):

- **read-ahead** (FreeBSD's clustered read, ``cluster_read`` in
  ``sys/kern/vfs_cluster.c``; GMS/Trapeze and Slice issue it as nonblocking
  NetRPCs whose replies are handled in the receive interrupt, USENIX ATC
  1998, section 3.4): at each sequential read() the kernel makes sure the
  *readahead* bytes beyond the call are requested, in clusters of at most
  *cluster* bytes (``MAXPHYS``) aligned on cluster boundaries; the block
  layer cuts each cluster into one request per server (its pieces there are
  contiguous). The call waits until its own bytes are in, then returns;
- **page remapping on read**: with the host model's *remap_reads* the data
  are not copied out but the pages mapped into the process (FreeBSD 4.0's
  ``vfs.ioopt``), ``page_remap`` each; a call that waited also costs the
  ``context_switch`` that wakes the process;
- **write-behind** (``cluster_write``): write() copies the data into the
  cache (``copy_per_byte``) and returns; each full cluster is written
  asynchronously; a write() waits first while the data copied but not yet
  acknowledged by the servers would pass *write_behind* bytes (the limit on
  dirty and running buffers).

Random access is not modelled: the file is read or written sequentially, as
dd does.

:class:`MappedFile` is a process touching pages of a file mapped with
mmap(): each touch of a page not in memory is an unpredicted page fault
(no read-ahead): the trap (the host model's ``syscall``, the kernel's entry),
one NetRPC getpage of the page to the server holding it, the page put by the
card straight into its frame, and the ``context_switch`` that resumes the
process.
"""

from __future__ import annotations

from collections.abc import Callable

from fcsim.fc4.fcp import GOOD
from fcsim.host.block import Request, Volume
from fcsim.host.copies import block_copy_time
from fcsim.host.cpu import PROCESS
from fcsim.host.host import Host

Done = Callable[[Request], None]
"""Called with the request when the call returns to the process."""


def piece_units(index: int, at: int, size: int, servers: int, unit: int) -> list[int]:
    """The file's units of *unit* bytes a piece covers: *size* bytes at *at* on
    server *index* of *servers* (striped in grains of *unit* bytes when
    several: row *r* of a server's grains is grain *r* x *servers* + *index*
    of the file; one server's bytes are the file's)."""
    rows = range(at // unit, (at + size - 1) // unit + 1)
    return list(rows) if servers == 1 else [row * servers + index for row in rows]


class SliceFile:
    """A file on *volume* (the servers striped) as the client's processes see
    it through *host*'s kernel: read-ahead of *readahead* bytes in clusters of
    *cluster* bytes, write-behind of at most *write_behind* bytes."""

    def __init__(self, host: Host, volume: Volume, readahead: int, cluster: int,
                 write_behind: int) -> None:
        striped = len(volume.devices) > 1
        if (cluster < 1 or readahead < 0 or write_behind < cluster
                or striped and cluster % volume.stripe):  # type: ignore[operator]
            raise ValueError(f"{host.name}: a cluster of >= 1 byte (whole stripe grains), "
                             "read-ahead >= 0 and write-behind of at least a cluster")
        self.host, self.volume, self.sim = host, volume, host.sim
        self.readahead, self.cluster, self.write_behind = readahead, cluster, write_behind
        self.unit: int = volume.stripe if striped else cluster  # type: ignore[assignment]
        self._issued = 0  # reads requested up to here
        self._next = 0  # the next sequential offset
        self._in: set[int] = set()  # units of *unit* bytes read into the cache
        self._waiting: list[tuple[Request, Done]] = []
        self._flushed = 0  # writes issued up to here
        self._dirty = 0  # bytes copied in and not yet acknowledged
        self._inflight = 0  # bytes being written
        self._writer: tuple[Request, Done] | None = None
        self.blocked = 0  # calls that had to wait (since the measured interval began)

    def login(self, then: Callable[[], None]) -> None:
        """The volume's logins."""
        self.volume.login(then)

    def submit(self, write: bool, offset: int, length: int, done: Done) -> Request:
        """A write() or read() of *length* bytes at *offset*, the next bytes of
        the file; *done(request)* when it returns to the process."""
        if offset != self._next:
            raise ValueError(f"{self.host.name}: the file is read or written sequentially; "
                             f"call at {offset}, expected {self._next}")
        self._next = offset + length
        request = Request(write, offset, length, self.sim.now)
        entry = self._write if write else self._read
        self.host.cpu.run(self.host.model.syscall, lambda: entry(request, done), PROCESS)
        return request

    # -- reading -----------------------------------------------------------------------

    def _units(self, offset: int, length: int) -> range:
        return range(offset // self.unit, (offset + length - 1) // self.unit + 1)

    def _read(self, request: Request, done: Done) -> None:
        self._ahead(request.offset + request.length + self.readahead)
        if all(u in self._in for u in self._units(request.offset, request.length)):
            self._return(request, done, False)
        else:
            self.blocked += 1
            self._waiting.append((request, done))

    def _ahead(self, until: int) -> None:
        """Request every cluster up to *until* not yet requested."""
        while self._issued < until:
            start = self._issued
            end = (start // self.cluster + 1) * self.cluster
            self._issued = end
            self._fetch(start, end - start)

    def _fetch(self, offset: int, length: int) -> None:
        """One request per server for the cluster's pieces there."""
        volume, n = self.volume, len(self.volume.devices)
        for index, (at, size) in volume.pieces(offset, length).items():
            units = piece_units(index, at, size, n, self.unit)
            volume.devices[index].submit(False, at, size, lambda _s, u=units: self._arrived(u))

    def _arrived(self, units: list[int]) -> None:
        """A piece is in the cache (in the receive interrupt)."""
        self._in.update(units)
        still = []
        for request, done in self._waiting:
            if all(u in self._in for u in self._units(request.offset, request.length)):
                self._return(request, done, True)
            else:
                still.append((request, done))
        self._waiting = still

    def _return(self, request: Request, done: Done, woken: bool) -> None:
        """The bytes are in: remap (or copy) them, wake the process if it slept."""
        end = request.offset + request.length
        for u in range(-(-request.offset // self.unit), end // self.unit):
            self._in.discard(u)  # read once, sequentially: units wholly read are dropped
        model = self.host.model
        cost = block_copy_time(model, request.length, False) + (
            model.context_switch if woken else 0.0)

        def returned() -> None:
            request.status, request.completed = GOOD, self.sim.now
            done(request)
        self.host.cpu.run(cost, returned, PROCESS)

    # -- writing -----------------------------------------------------------------------

    def _write(self, request: Request, done: Done) -> None:
        if self._dirty + request.length > self.write_behind and self._inflight > 0:
            self.blocked += 1
            self._writer = (request, done)
            return
        self._copy(request, done, False)

    def _copy(self, request: Request, done: Done, woken: bool) -> None:
        model = self.host.model
        cost = block_copy_time(model, request.length, writing=True) + (
            model.context_switch if woken else 0.0)
        self._dirty += request.length
        self.host.cpu.run(cost, lambda: self._copied(request, done), PROCESS)

    def _copied(self, request: Request, done: Done) -> None:
        """In the cache: write every full cluster behind, return to the process."""
        end = request.offset + request.length
        while end - self._flushed >= self.cluster:
            start = self._flushed
            self._flushed = (start // self.cluster + 1) * self.cluster
            self._store(start, self._flushed - start)
        request.status, request.completed = GOOD, self.sim.now
        done(request)

    def _store(self, offset: int, length: int) -> None:
        for index, (at, size) in self.volume.pieces(offset, length).items():
            self._inflight += size
            self.volume.devices[index].submit(True, at, size,
                                              lambda _s, n=size: self._stored(n))

    def _stored(self, size: int) -> None:
        """A piece is acknowledged (in the receive interrupt)."""
        self._inflight -= size
        self._dirty -= size
        if self._writer is not None:
            request, done = self._writer
            if self._dirty + request.length <= self.write_behind or self._inflight == 0:
                self._writer = None
                self._copy(request, done, True)


class MappedFile:
    """A file on *volume* mapped into a process on *host*: each read is a page
    fault served by one NetRPC from the server holding the page."""

    def __init__(self, host: Host, volume: Volume) -> None:
        self.host, self.volume, self.sim = host, volume, host.sim
        self.blocked = 0  # every fault waits: counted in fio's figures instead

    def login(self, then: Callable[[], None]) -> None:
        """The volume's logins."""
        self.volume.login(then)

    def submit(self, write: bool, offset: int, length: int, done: Done) -> Request:
        """A touch of the page at *offset* (*length* bytes, within one stripe
        grain): trap, fetch, resume; *done(request)* when the process goes on."""
        if write:
            raise ValueError(f"{self.host.name}: page faults here are reads")
        request = Request(False, offset, length, self.sim.now)
        model, cpu = self.host.model, self.host.cpu

        def fetched(_r: Request) -> None:
            def resumed() -> None:
                request.status, request.completed = GOOD, self.sim.now
                done(request)
            cpu.run(model.context_switch, resumed, PROCESS)
        cpu.run(model.syscall, lambda: self.volume.submit(False, offset, length, fetched,
                                                          request), PROCESS)
        return request
