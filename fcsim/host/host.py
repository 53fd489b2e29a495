"""A host: processor, I/O bus, one or more network interfaces (IP over FC, over
Ethernet or Myrinet) and TCP/UDP sockets (their calls in :mod:`fcsim.host.sockets`).

The protocol logic lives in :mod:`fcsim.transport` and charges no time; the
host puts the costs of its model around it, each on the processor:

- send(): a system call, then the copy of the data into the socket buffer
  (page mapping instead with copy avoidance or zero-copy send,
  :mod:`fcsim.host.copies`). With the model's *send_path* "mbuf", as
  4.4BSD ``sosend()`` does: one mbuf (a 2 KB cluster) copied, then handed to
  TCP as a PRU_SEND that runs tcp_output, then the next, waiting for free
  space as sosend does; with "buffer", a simpler path that is not 4.4BSD's:
  pieces as large as the send buffer, each handed to TCP whole once copied
  (:class:`~fcsim.host.sockets.Socket`);
- each segment TCP sends: TCP/IP output processing and the checksum (none on
  an Ethernet or Myrinet NIC with checksum offload), then the
  adapter's DMA and per-frame time, then the interface (IP over FC, Ethernet,
  Myrinet);
- each IP packet received (after the adapter has moved its frames to memory):
  one interrupt and the driver's per-frame work at interrupt level, which
  put the packet on the IP input queue (``ipintrq``) or, if the queue already
  holds the model's *ip_input_queue* packets, drop it (``IF_DROP``, counted);
  then, at the lower software-interrupt level, TCP/IP input and the checksum
  (none on a NIC with checksum offload, receive offload included), then TCP
  (4.4BSD: the driver's ``IF_ENQUEUE(&ipintrq)`` and ``schednetisr``, then
  ``ipintr()`` at splnet);
- recv(): a system call, then the copy out of the socket buffer (page
  renaming instead with zero-copy receive);
- a process that blocked in send() or recv() costs a context switch to wake;
- the TCP timer routines cost their time on every 200 ms and 500 ms tick;
- a process's timed wait (iperf pacing its datagrams) ends a random time
  after it was due, within the model's *timer_jitter*
  (:mod:`fcsim.host.timer_jitter`).

Receive interrupts run first, then IP/TCP input at the software-interrupt
level, then system calls and copies at process level: a receiver whose
interrupts and input take all its processor starves its reading process, and
its input queue overflows (receive livelock, Mogul and Ramakrishnan 1997).
Output protocol work and the TCP timers run at interrupt level. Background
load is user-mode work below them all, which any of them preempts
(:class:`~fcsim.host.cpu.Cpu`): 4.4BSD wakes a process sleeping in a socket
call at PSOCK, a kernel priority above any user-mode process, and
reschedules at once (``wakeup``/``setrunnable`` -> ``need_resched``).

A host on several networks has an interface on each. It reaches a peer host
through the first of its interfaces (in the order given) whose network the
peer is on too, unless a static route names the network for that peer: the
host route of a routing table, `route add -host peer -interface ifN`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from fcsim.engine.simulation import Simulation
from fcsim.fc2.nport import NPort
from fcsim.host.bus import BUS_TYPES, IoBus, PcieBus
from fcsim.host.copies import copy_time
from fcsim.host.cpu import INTERRUPT, PROCESS, SOFTINT, BackgroundLoad, Cpu
from fcsim.host.host_model import HostModel
from fcsim.host.interface import Deliver, FcInterface, Interface, NicInterface
from fcsim.host.routes import network_between
from fcsim.host.sockets import Socket, UdpSocket
from fcsim.host.timer_jitter import TimerJitter
from fcsim.transport.linux import LINUX_2_4, linux_2_4, rx_truesize
from fcsim.transport.segment import Segment
from fcsim.transport.tcp import TcpEndpoint
from fcsim.transport.tcp_config import TcpConfig
from fcsim.transport.udp import Datagram

FAST_TICK, SLOW_TICK = 0.2, 0.5
"""4.4BSD TCP fast and slow timer periods, s (PR_FASTHZ 5, PR_SLOWHZ 2)."""


def interface_on(sim: Simulation, name: str, port: Any, bus: IoBus, model: HostModel,
                 ip_class: int, deliver: Deliver) -> Interface:
    """The host's interface on its link port: IP over FC on an N_Port, IP over
    the NIC otherwise (Ethernet, Myrinet)."""
    if isinstance(port, NPort):
        return FcInterface(sim, name, port, bus, model.adapter_frame_time, ip_class, deliver,
                           model.adapter_command_time)
    return NicInterface(sim, port, bus, model.adapter_frame_time, deliver,
                        model.rx_coalesce_frames, model.rx_coalesce_time,
                        model.rx_interrupt_interval)


class Host:
    """Host *name* built as *model* around its link port *port*: an N_Port (IP
    over FC in Class *ip_class*) or a NIC (:mod:`fcsim.ethernet`,
    :mod:`fcsim.myrinet`), or a list of (port, network name) pairs for a host
    on several networks.
    :attr:`interfaces` are what IP runs over (:mod:`fcsim.host.interface`),
    :attr:`interface` the first of them; :attr:`routes` maps a peer host's
    name to the network to reach it through (static host routes).
    :attr:`buses` are the model's I/O buses; *bus_of* places the card on
    each network on one of them by index (default: the first, :attr:`bus`,
    which also carries the host's disk channels)."""

    def __init__(self, sim: Simulation, name: str, model: HostModel,
                 port: Any | list[tuple[Any, str]], ip_class: int = 3,
                 bus_of: dict[str, int] | None = None) -> None:
        self.sim = sim
        self.name = name
        self.model = model
        self.cpu = Cpu(sim, f"{name}.cpu", processors=model.processors)
        kind = BUS_TYPES[model.bus]
        self.buses = [
            PcieBus(sim, f"{name}.bus" if k == 0 else f"{name}.bus{k}", kind,
                    model.bus_bandwidth, model.bus_overhead, model.bus_max_payload)
            if kind.tlp_overhead else
            IoBus(sim, f"{name}.bus" if k == 0 else f"{name}.bus{k}", kind,
                  model.bus_bandwidth, model.bus_overhead)
            for k in range(model.buses)]
        self.bus = self.buses[0]
        bus_of = bus_of or {}
        for network, index in bus_of.items():
            if not 0 <= index < model.buses:
                raise ValueError(f"host {name}: the card on {network} is put on bus {index}; "
                                 f"{model.name} has buses 0..{model.buses - 1}")
        attachments = port if isinstance(port, list) else [(port, "")]
        self.interfaces: list[Interface] = [
            self._attach(p, network, ip_class, name if i == 0 else f"{name}.{network}",
                         self.buses[bus_of.get(network, 0)])
            for i, (p, network) in enumerate(attachments)]
        self.interface: Interface = self.interfaces[0]
        self.routes: dict[str, str] = {}
        self.background = BackgroundLoad(sim, self.cpu, model.background_utilisation,
                                         model.background_job, f"host/{name}/background")
        self.tick_phase = sim.rng(f"host/{name}/clock").uniform(0.0, 0.2)
        self.timer_jitter = TimerJitter(sim, name, model.timer_jitter)
        """How late this host's processes' timed waits end (the model's *timer_jitter*)."""
        self._endpoints: dict[str, TcpEndpoint] = {}
        self._udp: dict[str, UdpSocket] = {}
        self._routes: dict[str, tuple[Interface, int]] = {}
        self.ip_input_queued = 0
        """Packets on the IP input queue, the one in IP input counted until it ends."""
        self.ip_input_drops = 0
        """Packets dropped because the IP input queue was full, since the last reset."""
        if model.timer_tick > 0:
            for period in (FAST_TICK, SLOW_TICK):
                sim.call_later(self.tick_phase % period, self._tick, period)

    def _attach(self, port: Any, network: str, ip_class: int, name: str,
                bus: IoBus) -> Interface:
        """An interface on *port* of *network* with its card on *bus*, its
        received packets to IP input."""
        def deliver(packet: object, length: int, time: float, interrupt: bool = True) -> None:
            self._ip_input(packet, length, time, interrupt, interface)
        interface = interface_on(self.sim, name, port, bus, self.model, ip_class, deliver)
        interface.network = network
        model, nic = self.model, not isinstance(port, NPort)
        offload = model.checksum_offload and nic
        interface.checksum_per_byte = 0.0 if offload else model.checksum_per_byte
        interface.rx_checksum_per_byte = (
            0.0 if offload or (model.receive_checksum_offload and nic)
            else model.checksum_per_byte)
        return interface

    def interface_to(self, peer: Host) -> Interface:
        """The interface that reaches *peer*: the one on the network its static
        route names, else the first on a network *peer* is on too
        (:func:`fcsim.host.routes.network_between`)."""
        wanted = self.routes.get(peer.name)
        network = network_between([i.network for i in self.interfaces],
                                  [i.network for i in peer.interfaces], {}, wanted)
        if network is None:
            raise ValueError(f"host {self.name} has no interface on a network of {peer.name}"
                             + (f" named {wanted!r} by its route" if wanted else ""))
        return next(i for i in self.interfaces if i.network == network)

    def peer_address(self, peer: Host) -> tuple[Interface, int]:
        """This host's interface to *peer* and *peer*'s link address on its network."""
        interface = self.interface_to(peer)
        far = next(i for i in peer.interfaces if i.network == interface.network)
        return interface, far.address

    def _tick(self, period: float) -> None:
        """The TCP timer routines' own processor time, every fast and slow tick
        (*period* s apart)."""
        self.cpu.run(self.model.timer_tick, None, INTERRUPT)
        self.sim.call_later(period, self._tick, period)

    # -- sockets ------------------------------------------------------------------

    def tcp_socket(self, port: int, config: TcpConfig) -> Socket:
        """A TCP socket bound to *port* on this host (asking for RFC 1323
        timestamps if *config* or the host model's *tcp_timestamps* says so, and
        with the model's ACK policy *tcp_ack_every*, socket-buffer limit
        *sb_max*, cluster size *mclbytes* and buffer rounding
        *tcp_buffer_rounding* if it names them),
        its socket options applied as the host model's *tcp_stack* does."""
        address = f"{self.name}:{port}"
        if address in self._endpoints:
            raise ValueError(f"{self.name}: port {port} is already bound")
        if self.model.tcp_timestamps and not config.timestamps:
            config = replace(config, timestamps=True)
        if self.model.tcp_ack_every is not None:
            config = replace(config, ack_every=self.model.tcp_ack_every)
        if self.model.sb_max is not None:
            config = replace(config, sb_max=self.model.sb_max)
        if self.model.mclbytes is not None:
            config = replace(config, mclbytes=self.model.mclbytes)
        if self.model.tcp_buffer_rounding is not None:
            config = replace(config, round_buffers_down=self.model.tcp_buffer_rounding == "down")
        if self.model.tcp_stack == LINUX_2_4:
            config = linux_2_4(config, rx_truesize(config.mtu, self.model.rx_buffers))
        endpoint = TcpEndpoint(self.sim, address, config, self.output, self.tick_phase)
        self._endpoints[address] = endpoint
        return Socket(self, endpoint)

    @property
    def tcp_endpoints(self) -> list[TcpEndpoint]:
        """The TCP endpoints bound on this host, in the order they were bound."""
        return list(self._endpoints.values())

    @property
    def udp_sockets(self) -> list[UdpSocket]:
        """The UDP sockets bound on this host, in the order they were bound."""
        return list(self._udp.values())

    def udp_socket(self, port: int, sndbuf: int, rcvbuf: int) -> UdpSocket:
        """A UDP socket bound to *port* with send and receive buffers, bytes."""
        address = f"{self.name}:{port}"
        if address in self._udp:
            raise ValueError(f"{self.name}: UDP port {port} is already bound")
        socket = UdpSocket(self, address, sndbuf, rcvbuf)
        self._udp[address] = socket
        return socket

    def route(self, address: str, peer: Host) -> None:
        """Static address resolution: *address* ("host:port") is on host *peer*,
        reached through :meth:`interface_to` at its link address there (an
        N_Port ID, a MAC)."""
        self._routes[address] = self.peer_address(peer)

    # -- the kernel's data path -----------------------------------------------------

    def copy_cost(self, nbytes: int, sending: bool = False) -> float:
        """Processor time to copy *nbytes* between a process and the kernel (into
        it if *sending*), or to remap their pages with copy avoidance, s
        (:mod:`fcsim.host.copies`)."""
        return copy_time(self.model, nbytes, sending)

    def output(self, packet: Segment | Datagram) -> None:
        """TCP/IP (or UDP/IP) output and checksum, then the interface."""
        interface, address = self._routes[packet.dst]
        cost = self.model.tcp_output_per_packet + packet.length * interface.checksum_per_byte
        self.cpu.run(cost, lambda: self._to_adapter(packet, interface, address), INTERRUPT)

    def _to_adapter(self, packet: Segment | Datagram, interface: Interface,
                    address: int) -> None:
        size = packet.wire_bytes
        sent = None
        if isinstance(packet, Datagram):
            socket = self._udp[packet.src]
            sent = lambda _seq: socket.sent(size)  # noqa: E731
        interface.transmit(address, size, packet, sent)

    def _ip_input(self, packet: object, length: int, time: float, interrupt: bool,
                  interface: Interface) -> None:
        """An IP packet of *length* bytes has arrived on *interface*; *interrupt*:
        it raised the receive interrupt (with interrupt moderation, the first of
        a batch). The interrupt and the driver queue it for IP input, or drop it
        when the queue is full."""
        model = self.model
        receive: Callable[[Any], None]
        if isinstance(packet, Segment):
            endpoint = self._endpoints.get(packet.dst)
            if endpoint is None:
                return
            receive = endpoint.receive
        elif isinstance(packet, Datagram):
            socket = self._udp.get(packet.dst)
            if socket is None:
                return
            receive = socket.arrive
        else:
            return
        hardware = ((model.interrupt if interrupt else 0.0)
                    + interface.frames(length) * model.driver_per_frame)
        cost = model.tcp_input_per_packet + packet.length * interface.rx_checksum_per_byte

        def input_() -> None:
            self.ip_input_queued -= 1
            receive(packet)

        def enqueue() -> None:
            if self.ip_input_queued >= model.ip_input_queue:
                self.ip_input_drops += 1
                return
            self.ip_input_queued += 1
            self.cpu.run(cost, input_, SOFTINT)

        self.cpu.run(hardware, enqueue, INTERRUPT)

    def resume(self, called: float, then: Callable[[], None]) -> None:
        """Go on with *then*; a process that blocked since *called* is first woken."""
        if self.sim.now > called and self.model.context_switch > 0:
            self.cpu.run(self.model.context_switch, then, PROCESS)
        else:
            then()

    def reset_stats(self) -> None:
        """Start a new measurement interval (processor, buses, input drops)."""
        self.ip_input_drops = 0
        self.cpu.reset_stats()
        for bus in self.buses:
            bus.reset_stats()
