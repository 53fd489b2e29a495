"""What a socket uses of the host it is on: :class:`SocketHost`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, Self

from fcsim.engine.simulation import Simulation
from fcsim.host.cpu import Cpu
from fcsim.host.host_model import HostModel
from fcsim.host.interface import Interface
from fcsim.transport.segment import Segment
from fcsim.transport.udp import Datagram


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
