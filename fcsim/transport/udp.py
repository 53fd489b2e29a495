"""UDP: unreliable datagrams, counted (RFC 768).

A datagram is one IP datagram: 8 bytes of UDP header and 20 of IP header
around the payload. There is no fragmentation model: a datagram larger than
the limit is refused. The limit is 65507 bytes (65535 - 28), or ``mtu - 28``
when an MTU is given. Nothing is acknowledged or sent again.
"""

from __future__ import annotations

from collections.abc import Callable

from fcsim.engine.simulation import Simulation

UDP_IP_HEADER_BYTES = 28
"""IPv4 header (20 bytes) + UDP header (8 bytes), bytes."""

MAX_UDP_PAYLOAD = 65535 - UDP_IP_HEADER_BYTES
"""Largest UDP payload in one IPv4 datagram, bytes (65507)."""


class Datagram:
    """One UDP datagram: addresses and payload length, no payload bytes."""

    __slots__ = ("src", "dst", "length")

    def __init__(self, src: str, dst: str, length: int) -> None:
        self.src = src
        self.dst = dst
        self.length = length

    @property
    def wire_bytes(self) -> int:
        """IP datagram size: payload plus 28 header bytes, bytes."""
        return self.length + UDP_IP_HEADER_BYTES

    def __repr__(self) -> str:
        return f"Datagram({self.src}>{self.dst} len={self.length})"


class UdpEndpoint:
    """A UDP socket: :meth:`send` hands one datagram to *transmit* at once.

    *peer* is the destination of :meth:`send`; *mtu* (bytes), if given,
    limits a datagram to ``mtu - 28`` payload bytes. *on_receive(datagram)*,
    if given, is called for each datagram that arrives.
    """

    def __init__(
        self,
        sim: Simulation,
        name: str,
        transmit: Callable[[Datagram], None],
        peer: str = "",
        mtu: int | None = None,
        on_receive: Callable[[Datagram], None] | None = None,
    ) -> None:
        self.sim = sim
        self.name = name
        self.peer = peer
        self._transmit = transmit
        self._on_receive = on_receive
        self.max_payload = MAX_UDP_PAYLOAD if mtu is None else min(
            MAX_UDP_PAYLOAD, mtu - UDP_IP_HEADER_BYTES)
        """Largest payload :meth:`send` accepts, bytes."""
        if self.max_payload < 0:
            raise ValueError(f"{name}: mtu {mtu} is below the {UDP_IP_HEADER_BYTES} header bytes")
        self.datagrams_sent = 0
        self.bytes_sent = 0
        self.datagrams_received = 0
        self.bytes_received = 0

    def send(self, nbytes: int) -> Datagram:
        """sendto() one datagram of *nbytes* payload bytes; returns it."""
        if not 0 <= nbytes <= self.max_payload:
            raise ValueError(
                f"{self.name}: datagram of {nbytes} bytes, allowed 0..{self.max_payload}")
        datagram = Datagram(self.name, self.peer, nbytes)
        self.datagrams_sent += 1
        self.bytes_sent += nbytes
        self._transmit(datagram)
        return datagram

    def receive(self, datagram: Datagram) -> None:
        """A datagram has arrived from the layer below."""
        self.datagrams_received += 1
        self.bytes_received += datagram.length
        if self._on_receive is not None:
            self._on_receive(datagram)


__all__ = ["MAX_UDP_PAYLOAD", "UDP_IP_HEADER_BYTES", "Datagram", "UdpEndpoint"]
