"""A file transfer along a chain of nodes, relayed by the processes on the hosts
between, as an HPSS mover relays a client's data to its storage device.

The chain is a list of nodes. Every host on it runs one relay process that
reads blocks from its input and writes them to its output:

- the first node, a host: its input is memory (the data are made, not read:
  ``dd if=/dev/zero``), or a disk on its own channels read through its block
  path; an FCP target: the next host reads it through its block path
  (``read()`` of a raw device, sequential from offset 0);
- between two hosts: a TCP connection; the upstream host ``send()``s each
  block, the downstream host ``recv()``s until it has a whole block (recv
  returns what has arrived, so a block may take several calls);
- the last node, a host: its output discards (``of=/dev/null``), or writes a
  disk on its own channels; an FCP target: the host before it writes it
  through its block path.

A relay keeps at most *buffers* blocks: with one, it reads a block, writes
it, then reads the next, as a copy loop does; with more, a reading thread
and a writing thread share that many buffers, so reading the next block
overlaps writing the last. A host named the transfer's HPSS *mover* stages
the data in its own buffers of *mover_buffer* bytes instead: it overlaps
device and network I/O only when a client's request (*mover_request* bytes,
by default a block) is larger than one mover buffer, moving it in pieces of
a mover buffer, two at a time; a request that fits in one buffer is read
whole, then written, before the next (:func:`mover_staging`). Each read and
write costs the host its system call, copies (or page remaps), wake-ups and
interrupts, as every socket and block request does (:mod:`fcsim.host.host`,
:mod:`fcsim.host.block`).

The transfer starts at its start time once every connection is established
and every target has accepted its process login; it ends when the last
node's writer has written the last byte. The rate is bytes over that time.
After a run's warm-up (:meth:`Transfer.reset_stats`) it also reports its
steady rate: the slope of the bytes the last node has written against time,
fitted over the blocks it writes in the measured interval, so that a
transfer of a large file can be measured in the middle, without its start
(connection, slow start, the first block through every hop) and without a
block's worth of rounding at either end.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise
from typing import Any, Protocol

from fcsim.engine.simulation import Simulation
from fcsim.host.block import HostIo, Request
from fcsim.host.host import Host
from fcsim.host.sockets import Socket
from fcsim.transport.tcp_config import TcpConfig

TRANSFER_PORT = 20
"""First TCP port of transfer connections (FTP's data port); each connection
of the scenario's transfers takes the next one."""


@dataclass(frozen=True)
class TransferOptions:
    """*size* bytes moved in blocks of *block* bytes; TCP connections with socket
    buffers of *socket* bytes (TCP_NODELAY if *nodelay*); *buffers* blocks per
    relay; the first host reads *read_disk*, the last writes *write_disk*
    (disks on their own channels; None: memory); the host *mover* (None: none)
    is an HPSS mover staging the data in buffers of *mover_buffer* bytes, the
    client asking it for *mover_request* bytes at a time (None: a block)."""

    size: int
    block: int
    socket: int = 65536
    buffers: int = 1
    nodelay: bool = False
    read_disk: str | None = None
    write_disk: str | None = None
    mover: str | None = None
    mover_buffer: int = 1 << 20
    mover_request: int | None = None


def mover_staging(block: int, mover_buffer: int) -> tuple[int, int]:
    """How an HPSS mover stages a client's requests of *block* bytes (the size of
    a request, not of the client's reads and writes) in its
    buffers of *mover_buffer* bytes: (bytes it reads or writes per call,
    buffers it holds). A request larger than one buffer is moved in pieces of
    one buffer, device I/O into one while the network drains the other; one
    that fits in a buffer gets "no double buffering benefit because the entire
    amount of the transfer fits in one Mover buffer" (HPSS 7.3 Management
    Guide, Mover configuration, Buffer Size): read whole, then written."""
    return (mover_buffer, 2) if block > mover_buffer else (block, 1)


class End(Protocol):
    """One side of a relay: where it reads blocks from, or writes them to."""

    def ready(self, then: Callable[[], None]) -> None:
        """Call *then()* once usable (connected, logged in)."""

    def move(self, nbytes: int, done: Callable[[], None]) -> None:
        """Read (an input) or write (an output) *nbytes*; *done()* when the call returns."""


class Memory:
    """Data made or dropped in memory: no cost (``/dev/zero``, ``/dev/null``)."""

    def ready(self, then: Callable[[], None]) -> None:
        """At once."""
        then()

    def move(self, nbytes: int, done: Callable[[], None]) -> None:
        """At once."""
        done()


class SocketIn:
    """Blocks read from a connected TCP socket, recv() after recv() until whole."""

    def __init__(self, socket: Socket, connected: Callable[[Callable[[], None]], None]) -> None:
        self.socket, self.ready = socket, connected

    def move(self, nbytes: int, done: Callable[[], None]) -> None:
        """recv() until *nbytes* have been read."""
        def got(n: int) -> None:
            left[0] -= n
            if left[0] > 0:
                self.socket.recv(left[0], got)
            else:
                done()
        left = [nbytes]
        self.socket.recv(nbytes, got)


class SocketOut:
    """Blocks written to a TCP socket, one send() each."""

    def __init__(self, socket: Socket, connected: Callable[[Callable[[], None]], None]) -> None:
        self.socket, self.ready = socket, connected

    def move(self, nbytes: int, done: Callable[[], None]) -> None:
        """send() of *nbytes*."""
        self.socket.send(nbytes, done)


class BlockEnd:
    """A block device read or written sequentially from offset 0 through *io*."""

    def __init__(self, io: HostIo, write: bool) -> None:
        self.io, self.write, self.offset = io, write, 0

    def ready(self, then: Callable[[], None]) -> None:
        """After the process logins with the targets."""
        self.io.login(then)

    def move(self, nbytes: int, done: Callable[[], None]) -> None:
        """read() or write() of the next *nbytes*."""
        offset, self.offset = self.offset, self.offset + nbytes

        def returned(_request: Request) -> None:
            done()
        self.io.submit(self.write, offset, nbytes, returned)


class Relay:
    """The process on one host: the transfer's *size* bytes from *source* to
    *sink* in pieces of *piece* bytes, with *buffers* pieces between its
    reading and writing."""

    def __init__(self, host: Host, source: End, sink: End, options: TransferOptions,
                 piece: int, buffers: int, finished: Callable[[], None],
                 progress: Callable[[int], None] | None = None) -> None:
        self.host, self.source, self.sink = host, source, sink
        self.options, self.finished, self.progress = options, finished, progress
        self.piece, self.buffers = piece, buffers
        self.to_read = self.to_write = options.size
        self.filled: list[int] = []  # blocks read, not yet written, bytes each
        self.reading = self.writing = False

    def begin(self) -> None:
        """Start reading."""
        self._pump()

    def _pump(self) -> None:
        held = len(self.filled) + self.reading + self.writing
        if not self.reading and self.to_read > 0 and held < self.buffers:
            size = min(self.piece, self.to_read)
            self.to_read -= size
            self.reading = True
            self.source.move(size, lambda: self._read(size))
        if not self.writing and self.filled:
            block = self.filled.pop(0)
            self.writing = True
            self.sink.move(block, lambda: self._written(block))

    def _read(self, n: int) -> None:
        self.reading = False
        self.filled.append(n)
        self._pump()

    def _written(self, n: int) -> None:
        self.writing = False
        self.to_write -= n
        if self.progress is not None:
            self.progress(self.options.size - self.to_write)
        if self.to_write == 0:
            self.finished()
        else:
            self._pump()


class Transfer:
    """The transfer *name* along the nodes of *chain* (hosts, and FCP targets at
    either end), started at *start* s.

    *hosts* are the scenario's hosts by name; *volume(host, device)* gives a
    host's block path to an FCP target node or to a disk of its own; *port* is
    the first TCP port it uses.
    """

    def __init__(self, sim: Simulation, name: str, chain: tuple[str, ...],
                 hosts: dict[str, Host], volume: Callable[[str, str], HostIo],
                 options: TransferOptions, start: float = 0.0, port: int = TRANSFER_PORT
                 ) -> None:
        self.sim, self.name, self.options, self.chain = sim, name, options, chain
        self.began: float | None = None
        self.ended: float | None = None
        self._marked = False  # a warm-up ended: steady-rate bookkeeping on
        self._blocks: list[tuple[float, int]] = []  # (time, bytes written) after it
        ins: dict[str, End] = {}
        outs: dict[str, End] = {}
        relays = [node for node in chain if node in hosts]
        first, last = chain[0], chain[-1]
        source = first if first not in hosts else options.read_disk
        sink = last if last not in hosts else options.write_disk
        ins[relays[0]] = (Memory() if source is None
                          else BlockEnd(volume(relays[0], source), write=False))
        outs[relays[-1]] = (Memory() if sink is None
                            else BlockEnd(volume(relays[-1], sink), write=True))
        for k, (up, down) in enumerate(pairwise(relays)):
            outs[up], ins[down] = self._connection(hosts[up], hosts[down], port + k)
        self.relays = [Relay(hosts[node], ins[node], outs[node], options,
                             *(mover_staging(options.mover_request or options.block,
                                             options.mover_buffer)
                               if node == options.mover else (options.block, options.buffers)),
                             self._relay_done)
                       for node in relays]
        self.relays[-1].progress = self._written
        self._left = len(self.relays)
        sim.call_later(start, self._prepare)

    def _connection(self, up: Host, down: Host, number: int) -> tuple[SocketOut, SocketIn]:
        """A TCP connection from *up* to *down*: its two ends, ready once established."""
        o = self.options

        def config(host: Host, peer: Host) -> TcpConfig:
            return TcpConfig(sndbuf=o.socket, rcvbuf=o.socket, mtu=host.interface_to(peer).mtu,
                             nodelay=o.nodelay)
        sender = up.tcp_socket(number, config(up, down))
        receiver = down.tcp_socket(number, config(down, up))
        waiting: list[Callable[[], None]] = []
        established = [False]

        def connected(then: Callable[[], None]) -> None:
            if established[0]:
                then()
            else:
                waiting.append(then)

        def up_now() -> None:
            established[0] = True
            for then in waiting:
                then()

        def open_() -> None:
            receiver.listen()
            sender.connect(receiver, up_now)
        up.interface_to(down).when_ready(lambda: down.interface_to(up).when_ready(open_))
        return SocketOut(sender, connected), SocketIn(receiver, connected)

    def _prepare(self, _event: object) -> None:
        """Wait for every end to be ready, then begin."""
        ends = [end for relay in self.relays for end in (relay.source, relay.sink)]
        left = [len(ends)]

        def one() -> None:
            left[0] -= 1
            if left[0] == 0:
                self.began = self.sim.now
                for relay in self.relays:
                    relay.begin()
        for end in ends:
            end.ready(one)

    def _relay_done(self) -> None:
        self._left -= 1
        if self._left == 0:
            self.ended = self.sim.now

    def _written(self, total: int) -> None:
        """The last node has written *total* bytes so far (a block more)."""
        if self._marked:
            self._blocks.append((self.sim.now, total))

    def reset_stats(self) -> None:
        """Start the measured interval: the steady rate counts blocks written from now."""
        self._marked = True
        self._blocks = []

    def steady_rate(self) -> float | None:
        """Bytes per second the last node wrote in the measured interval: the
        least-squares slope of the bytes written against the time of each
        block written in it (a relay with two buffers writes its blocks in
        bursts, so the first and last alone would depend on where the
        interval falls). None: fewer than two blocks, or no interval started."""
        points = self._blocks
        if len(points) < 2:
            return None
        n = len(points)
        mean_t = sum(t for t, _ in points) / n
        mean_b = sum(b for _, b in points) / n
        spread = sum((t - mean_t) ** 2 for t, _ in points)
        if spread <= 0:
            return None
        return sum((t - mean_t) * (b - mean_b) for t, b in points) / spread

    def results(self) -> dict[str, Any]:
        """Bytes moved, the elapsed time and the rate, as a transfer tool reports
        them; after a warm-up, the steady rate in the measured interval too."""
        moved = self.options.size - self.relays[-1].to_write
        elapsed = (self.ended if self.ended is not None else self.sim.now) - (
            self.began if self.began is not None else self.sim.now)
        return {"path": list(self.chain), "size": self.options.size,
                "block": self.options.block, "bytes": moved,
                "finished": self.ended is not None, "began_s": self.began,
                "elapsed_s": elapsed if self.began is not None else None,
                "bytes_per_s": moved / elapsed if self.began is not None and elapsed > 0
                else None,
                **({"steady_bytes_per_s": self.steady_rate()} if self._marked else {})}
