"""The application's view of a host's TCP and UDP endpoints: the socket calls,
with the host's costs around the protocol (system calls, copies or page
mappings, wake-ups), as :mod:`fcsim.host.host` describes them."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Protocol, Self

from fcsim.engine.simulation import Simulation
from fcsim.host.copies import socket_copy_time
from fcsim.host.cpu import PROCESS, Cpu
from fcsim.host.host_model import HostModel
from fcsim.host.interface import Interface
from fcsim.transport.segment import Segment
from fcsim.transport.sockbuf import sosend_mbuf, sosend_pass
from fcsim.transport.tcp import TcpEndpoint
from fcsim.transport.udp import MAX_UDP_PAYLOAD, UDP_IP_HEADER_BYTES, Datagram, UdpEndpoint


class SocketHost(Protocol):
    """What a socket uses of the host it is on (:class:`fcsim.host.host.Host`
    implements it): its clock, model and processor, its interfaces and static
    routes, its IP output and the wake-up of a blocked process."""

    sim: Simulation
    model: HostModel
    cpu: Cpu
    interface: Interface
    """The host's first interface (a UDP socket's default MTU)."""

    def route(self, address: str, peer: Self) -> None:
        """Static address resolution: *address* ("host:port") is on *peer*."""

    def interface_to(self, peer: Self) -> Interface:
        """The interface that reaches *peer*."""

    def output(self, packet: Segment | Datagram) -> None:
        """TCP/IP (or UDP/IP) output of *packet*, then the interface."""

    def resume(self, called: float, then: Callable[[], None]) -> None:
        """Go on with *then*; a process that blocked since *called* (s) is first woken."""

    def copy_cost(self, nbytes: int, sending: bool = False) -> float:
        """Processor time to copy *nbytes* between a process and the kernel, s."""


class Socket:
    """The application's view of a TCP endpoint on *host*, with the host's costs."""

    def __init__(self, host: SocketHost, endpoint: TcpEndpoint) -> None:
        self.host = host
        self.endpoint = endpoint

    @property
    def address(self) -> str:
        """This socket's address, "host:port"."""
        return self.endpoint.name

    def connect(self, peer: Socket, connected: Callable[[], None]) -> None:
        """Connect to the listening socket *peer*; *connected()* when established."""
        self.host.route(peer.address, peer.host)
        peer.host.route(self.address, self.host)
        self.endpoint.open_active(peer.address, connected)

    def listen(self, connected: Callable[[], None] | None = None) -> None:
        """Wait for a connection."""
        self.endpoint.open_passive(connected)

    def _copy(self, nbytes: int, sending: bool, touched: bool = False) -> float:
        """Processor time to move *nbytes* in or out of this socket, s: a copy, or
        the host's zero-copy page mapping (:mod:`fcsim.host.copies`)."""
        tcb = self.endpoint.tcb
        return socket_copy_time(self.host.model, nbytes, sending, tcb.mss - tcb.optlen, touched)

    def send(self, nbytes: int, done: Callable[[], None], touched: bool = False) -> None:
        """send() of *nbytes*; *done()* when the call returns. *touched*: the
        process writes to its buffer before the kernel is done with it (with
        zero-copy send, a copy-on-write fault a page). The host model's
        *send_path* says how the data reach TCP (:meth:`_sosend_bsd`,
        :meth:`_sosend_buffer`)."""
        host = self.host
        path = host.model.send_path
        if path in ("mbuf", "moretocome", "whole"):
            whole, more = path == "whole", path == "moretocome"

            def go() -> None:
                self._sosend_bsd(nbytes, done, touched, whole, more)
        else:
            def go() -> None:
                self._sosend_buffer(nbytes, done, touched)
        host.cpu.run(host.model.syscall, go if nbytes else done, PROCESS)

    def _sosend_bsd(self, nbytes: int, done: Callable[[], None], touched: bool,
                    whole: bool = False, more_to_come: bool = False) -> None:
        """A BSD sosend() for a stream socket: wait until the free space is at
        least the rest of the write or SO_SNDLOWAT, copy, hand the copy to TCP
        as a PRU_SEND, which runs tcp_output, and go on.

        4.4BSD (uipc_socket.c 8.6): while sosend's count of the free space
        lasts, copy one mbuf (a cluster, or a header mbuf for a small rest,
        :func:`~fcsim.transport.sockbuf.sosend_mbuf`) and hand it over, then
        wait again. Each copy is its own piece of process-level work, so
        protocol work waiting on the processor runs between two mbufs. With
        *more_to_come*, FreeBSD's sosend(): each PRU_SEND but the write's last
        says more follows (PRUS_MORETOCOME, ``kern/uipc_socket.c``), so TCP
        holds a part segment (``netinet/tcp_usrreq.c`` tcp_usr_send,
        ``netinet/tcp_output.c``).

        With *whole*, 4.3BSD-Tahoe (``uipc_socket.c`` 7.10: ``while (space >
        0)`` builds one mbuf chain before the PRU_SEND): copy as much of the
        write as sosend's count of the free space holds in one pass
        (:func:`~fcsim.transport.sockbuf.sosend_pass`), hand it all over as
        one PRU_SEND, then wait again. With TCP_NODELAY each pass leaves as
        segments of up to the MSS."""
        host, endpoint = self.host, self.endpoint
        cluster = endpoint.tcb.so_snd.cluster
        size = sosend_pass if whole else sosend_mbuf

        def wait(resid: int) -> None:
            called = host.sim.now
            endpoint.send_space(resid, lambda space: host.resume(
                called, lambda: copy(resid, space)))

        def copy(resid: int, space: int) -> None:
            n = size(resid, space, cluster)
            host.cpu.run(self._copy(n, True, touched), lambda: hand(n, resid - n, space),
                         PROCESS)

        def hand(n: int, resid: int, space: int) -> None:
            space -= endpoint.pru_send(n, space, more_to_come and resid > 0)
            if not resid:
                done()
            elif space > 0 and not whole:
                copy(resid, space)
            else:
                wait(resid)

        wait(nbytes)

    def _sosend_buffer(self, nbytes: int, done: Callable[[], None], touched: bool) -> None:
        """The simpler send path: the write copied in pieces as large as the send
        buffer, each handed to TCP once copied (in the protocol's
        *sosend_chunk* pieces, by default whole). Not 4.4BSD's: kept for the
        hosts whose stack's own send path is not modelled (Linux 2.4,
        FreeBSD 4, AIX 4; their model files say so)."""
        host = self.host
        chunk = max(1, self.endpoint.config.sndbuf)

        def piece(left: int) -> None:
            if left == 0:
                done()
                return
            n = min(left, chunk)
            host.cpu.run(self._copy(n, True, touched), lambda: write(n, left - n))

        def write(n: int, left: int) -> None:
            called = host.sim.now
            self.endpoint.write(n, lambda: host.resume(called, lambda: piece(left)))

        piece(nbytes)

    def recv(self, max_bytes: int, got: Callable[[int], None]) -> None:
        """recv() of up to *max_bytes*; *got(n)* when the call returns."""
        host = self.host

        def read() -> None:
            called = host.sim.now
            self.endpoint.read(max_bytes, lambda n: host.resume(
                called, lambda: host.cpu.run(self._copy(n, False), lambda: got(n), PROCESS)))

        host.cpu.run(host.model.syscall, read, PROCESS)


class UdpSocket:
    """A UDP socket on *host* at *address* with a receive buffer of *rcvbuf* bytes.

    A datagram that arrives to a full receive buffer is dropped and counted,
    as a BSD socket does (sbappendaddr fails). UDP/IP processing costs the
    host's per-packet transport cost and the checksum, like TCP.
    """

    def __init__(self, host: SocketHost, address: str, sndbuf: int, rcvbuf: int) -> None:
        self.host = host
        self.sndbuf = sndbuf
        self.rcvbuf = rcvbuf
        self.queued = 0
        self._writer: tuple[int, Callable[[], None]] | None = None
        self.endpoint = UdpEndpoint(host.sim, address, host.output, mtu=host.interface.mtu)
        self.unread = 0
        self.dropped = 0
        self._queue: deque[int] = deque()
        self._reader: Callable[[int], None] | None = None

    @property
    def address(self) -> str:
        """This socket's address, "host:port"."""
        return self.endpoint.name

    def connect(self, peer: UdpSocket) -> None:
        """Send to *peer* (static address resolution on both hosts)."""
        self.endpoint.peer = peer.address
        self.host.route(peer.address, peer.host)
        mtu = self.host.interface_to(peer.host).mtu
        self.endpoint.max_payload = min(MAX_UDP_PAYLOAD, mtu - UDP_IP_HEADER_BYTES)

    def send(self, nbytes: int, done: Callable[[], None]) -> None:
        """sendto() of one datagram of *nbytes*; *done()* when the call returns.

        The call blocks while the datagrams not yet on the wire would exceed the
        send buffer (as Linux accounts them; 4.4BSD would drop with ENOBUFS).
        """
        host = self.host

        def copied() -> None:
            self.queued += nbytes + UDP_IP_HEADER_BYTES
            self.endpoint.send(nbytes)
            done()

        def go() -> None:
            host.cpu.run(host.model.syscall + host.copy_cost(nbytes, sending=True), copied,
                         PROCESS)

        if self.queued + nbytes + UDP_IP_HEADER_BYTES > self.sndbuf and self.queued:
            self._writer = (nbytes, go)
        else:
            go()

    def sent(self, size: int) -> None:
        """A datagram of *size* wire bytes has left; a blocked send may go on."""
        self.queued -= size
        if self._writer is not None:
            nbytes, go = self._writer
            if self.queued + nbytes + UDP_IP_HEADER_BYTES <= self.sndbuf or not self.queued:
                self._writer = None
                go()

    def arrive(self, datagram: Datagram) -> None:
        """A datagram has been through UDP/IP input: queue it or drop it."""
        if self.unread + datagram.length > self.rcvbuf:
            self.dropped += 1
            return
        self.endpoint.receive(datagram)
        self.unread += datagram.length
        self._queue.append(datagram.length)
        self._serve()

    def recv(self, got: Callable[[int], None]) -> None:
        """recvfrom() of one datagram; *got(n)* when the call returns."""
        self._reader = got
        self._serve()

    def _serve(self) -> None:
        if self._reader is None or not self._queue:
            return
        got, self._reader = self._reader, None
        n = self._queue.popleft()
        self.unread -= n
        host = self.host
        host.cpu.run(host.model.syscall + host.copy_cost(n), lambda: got(n), PROCESS)
