"""One send() on a stream socket through a BSD sosend(): :class:`BsdSend`."""

from __future__ import annotations

from collections.abc import Callable

from fcsim.host.cpu import PROCESS
from fcsim.host.socket_host import SocketHost
from fcsim.transport.sockbuf import sosend_mbuf, sosend_pass
from fcsim.transport.tcp import TcpEndpoint


class BsdSend:
    """A BSD sosend() for one write on a stream socket: wait until the free space
    is at least the rest of the write or SO_SNDLOWAT, copy, hand the copy to TCP
    as a PRU_SEND, which runs tcp_output, and go on.

    4.4BSD (uipc_socket.c 8.6): while sosend's count of the free space lasts,
    copy one mbuf (a cluster, or a header mbuf for a small rest,
    :func:`~fcsim.transport.sockbuf.sosend_mbuf`) and hand it over, then wait
    again. Each copy is its own piece of process-level work, so protocol work
    waiting on the processor runs between two mbufs. With *more_to_come*,
    FreeBSD's sosend(): each PRU_SEND but the write's last says more follows
    (PRUS_MORETOCOME, ``kern/uipc_socket.c``), so TCP holds a part segment
    (``netinet/tcp_usrreq.c`` tcp_usr_send, ``netinet/tcp_output.c``).

    With *whole*, 4.3BSD-Tahoe (``uipc_socket.c`` 7.10: ``while (space > 0)``
    builds one mbuf chain before the PRU_SEND): copy as much of the write as
    sosend's count of the free space holds in one pass
    (:func:`~fcsim.transport.sockbuf.sosend_pass`), hand it all over as one
    PRU_SEND, then wait again. With TCP_NODELAY each pass leaves as segments of
    up to the MSS.

    The write's state (bytes left, sosend's count of the free space, the piece
    being copied) lives here and each step is a bound method handed on as the
    next callback, so a finished write leaves no reference cycle for the
    garbage collector (closures that call each other would).
    """

    __slots__ = ("host", "endpoint", "copy_time", "done", "touched", "whole",
                 "more_to_come", "size", "cluster", "resid", "space", "n", "called")

    def __init__(self, host: SocketHost, endpoint: TcpEndpoint,
                 copy_time: Callable[[int, bool, bool], float], nbytes: int,
                 done: Callable[[], None], touched: bool, whole: bool = False,
                 more_to_come: bool = False) -> None:
        """*copy_time(n, sending, touched)*: processor time to copy *n* bytes
        in, s; *nbytes*: the write's size, bytes; *done()* when it is all
        handed to TCP."""
        self.host = host
        self.endpoint = endpoint
        self.copy_time = copy_time
        self.done = done
        self.touched = touched
        self.whole = whole
        self.more_to_come = more_to_come
        self.size = sosend_pass if whole else sosend_mbuf
        self.cluster = endpoint.tcb.so_snd.cluster
        self.resid = nbytes
        """Bytes of the write not yet copied."""
        self.space = 0
        """sosend's count of the free space, bytes."""
        self.n = 0
        """Bytes of the piece being copied."""
        self.called = 0.0
        """When the last wait for space began, s."""

    def wait(self) -> None:
        """Wait for room for the rest of the write (or SO_SNDLOWAT)."""
        self.called = self.host.sim.now
        self.endpoint.send_space(self.resid, self._room)

    def _room(self, space: int) -> None:
        """sosend()'s count of the free space is *space* bytes: wake the process."""
        self.space = space
        self.host.resume(self.called, self._copy)

    def _copy(self) -> None:
        """Copy the next mbuf (or pass) of the write in."""
        n = self.size(self.resid, self.space, self.cluster)
        self.n = n
        self.host.cpu.run(self.copy_time(n, True, self.touched), self._hand, PROCESS)

    def _hand(self) -> None:
        """Hand the copied piece to TCP (PRU_SEND); then finish, copy on or wait."""
        self.resid -= self.n
        self.space -= self.endpoint.pru_send(self.n, self.space,
                                             self.more_to_come and self.resid > 0)
        if not self.resid:
            self.done()
        elif self.space > 0 and not self.whole:
            self._copy()
        else:
            self.wait()
