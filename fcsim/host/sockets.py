"""The application's view of a host's TCP and UDP endpoints: the socket calls,
with the host's costs around the protocol (system calls, copies or page
mappings, wake-ups), as :mod:`fcsim.host.host` describes them."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from fcsim.host.bsd_send import BsdSend
from fcsim.host.buffer_send import BufferSend
from fcsim.host.copies import socket_copy_time
from fcsim.host.cpu import PROCESS
from fcsim.host.socket_host import SocketHost
from fcsim.transport.tcp import TcpEndpoint
from fcsim.transport.udp import MAX_UDP_PAYLOAD, UDP_IP_HEADER_BYTES, Datagram, UdpEndpoint


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

    def copy_time(self, nbytes: int, sending: bool, touched: bool = False) -> float:
        """Processor time to move *nbytes* in or out of this socket, s: a copy, or
        the host's zero-copy page mapping (:mod:`fcsim.host.copies`)."""
        tcb = self.endpoint.tcb
        return socket_copy_time(self.host.model, nbytes, sending, tcb.mss - tcb.optlen, touched)

    def send(self, nbytes: int, done: Callable[[], None], touched: bool = False) -> None:
        """send() of *nbytes*; *done()* when the call returns. *touched*: the
        process writes to its buffer before the kernel is done with it (with
        zero-copy send, a copy-on-write fault a page). The host model's
        *send_path* says how the data reach TCP (:class:`~fcsim.host.bsd_send.BsdSend`,
        :class:`~fcsim.host.buffer_send.BufferSend`)."""
        host = self.host
        if not nbytes:
            host.cpu.run(host.model.syscall, done, PROCESS)
            return
        path = host.model.send_path
        if path in ("mbuf", "moretocome", "whole"):
            start = BsdSend(host, self.endpoint, self.copy_time, nbytes, done, touched,
                            path == "whole", path == "moretocome").wait
        else:
            start = BufferSend(host, self.endpoint, self.copy_time, nbytes, done,
                               touched).piece
        host.cpu.run(host.model.syscall, start, PROCESS)

    def recv(self, max_bytes: int, got: Callable[[int], None]) -> None:
        """recv() of up to *max_bytes*; *got(n)* when the call returns."""
        host = self.host

        def read() -> None:
            called = host.sim.now
            self.endpoint.read(max_bytes, lambda n: host.resume(
                called, lambda: host.cpu.run(self.copy_time(n, False), lambda: got(n), PROCESS)))

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
