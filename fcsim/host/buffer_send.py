"""One send() on a stream socket through the simpler send path: :class:`BufferSend`."""

from __future__ import annotations

from collections.abc import Callable

from fcsim.host.socket_host import SocketHost
from fcsim.transport.tcp import TcpEndpoint


class BufferSend:
    """The simpler send path for one write: the write copied in pieces as large
    as the send buffer, each handed to TCP once copied (in the protocol's
    *sosend_chunk* pieces, by default whole). Not 4.4BSD's: kept for the hosts
    whose stack's own send path is not modelled (Linux 2.4, FreeBSD 4, AIX 4;
    their model files say so).

    The write's state lives here and each step is a bound method handed on as
    the next callback, so a finished write leaves no reference cycle for the
    garbage collector.
    """

    __slots__ = ("host", "endpoint", "copy_time", "done", "touched", "chunk", "left",
                 "n", "called")

    def __init__(self, host: SocketHost, endpoint: TcpEndpoint,
                 copy_time: Callable[[int, bool, bool], float], nbytes: int,
                 done: Callable[[], None], touched: bool) -> None:
        """*copy_time(n, sending, touched)*: processor time to copy *n* bytes
        in, s; *nbytes*: the write's size, bytes; *done()* when it is all
        written."""
        self.host = host
        self.endpoint = endpoint
        self.copy_time = copy_time
        self.done = done
        self.touched = touched
        self.chunk = max(1, endpoint.config.sndbuf)
        """The largest piece, bytes: the send buffer's size."""
        self.left = nbytes
        """Bytes of the write not yet copied."""
        self.n = 0
        """Bytes of the piece being copied."""
        self.called = 0.0
        """When the piece's write to TCP began, s."""

    def piece(self) -> None:
        """Copy the next piece in, or finish the write."""
        if self.left == 0:
            self.done()
            return
        n = min(self.left, self.chunk)
        self.n = n
        self.left -= n
        self.host.cpu.run(self.copy_time(n, True, self.touched), self._write)

    def _write(self) -> None:
        """Write the copied piece to TCP."""
        self.called = self.host.sim.now
        self.endpoint.write(self.n, self._written)

    def _written(self) -> None:
        """TCP has taken the piece: wake the process and go on."""
        self.host.resume(self.called, self.piece)
