"""A host: processor, I/O bus, FC adapter, IP over FC and TCP/UDP sockets.

The protocol logic lives in :mod:`fcsim.transport` and charges no time; the
host puts the costs of its model around it, each on the processor:

- send(): a system call, then the copy of the data into the socket buffer
  (page remapping instead with copy avoidance), in pieces of at most the
  send-buffer size, each handed to TCP once copied (as 4.4BSD ``sosend()``
  copies and calls tcp_output piece by piece);
- each segment TCP sends: TCP/IP output processing and the checksum, then the
  adapter's DMA and per-frame time, then IP over FC;
- each IP packet received (after the adapter has moved its frames to memory):
  one interrupt, the driver's per-frame work, TCP/IP input and the checksum,
  then TCP;
- recv(): a system call, then the copy out of the socket buffer;
- a process that blocked in send() or recv() costs a context switch to wake;
- the TCP timer routines cost their time on every 200 ms and 500 ms tick.

Protocol work runs at interrupt level, system calls and copies at process
level, so that background load delays the application but not the protocol.
"""

from __future__ import annotations

from collections.abc import Callable

from fcsim.engine.simulation import Simulation
from fcsim.fc2.frame import MAX_DATA_FIELD
from fcsim.fc2.nport import NPort
from fcsim.fc4.ip import LLC_SNAP, NETWORK_HEADER, IpOverFc
from fcsim.host.adapter import AdapterModel, HostAdapter
from fcsim.host.bus import BUS_TYPES, IoBus
from fcsim.host.cpu import INTERRUPT, PROCESS, BackgroundLoad, Cpu
from fcsim.host.host_model import HostModel
from fcsim.transport.segment import Segment
from fcsim.transport.tcp import TcpEndpoint
from fcsim.transport.tcp_config import TcpConfig

PAGE = 4096
"""Page size for copy avoidance by remapping, bytes."""
FAST_TICK, SLOW_TICK = 0.2, 0.5
"""4.4BSD TCP fast and slow timer periods, s (PR_FASTHZ 5, PR_SLOWHZ 2)."""


class Host:
    """Host *name* built as *model* around *nport*; IP goes in Class *ip_class*."""

    def __init__(self, sim: Simulation, name: str, model: HostModel, nport: NPort,
                 ip_class: int = 3) -> None:
        self.sim = sim
        self.name = name
        self.model = model
        self.nport = nport
        self.cpu = Cpu(sim, f"{name}.cpu")
        self.bus = IoBus(sim, f"{name}.bus", BUS_TYPES[model.bus], model.bus_bandwidth,
                         model.bus_overhead)
        self.adapter = HostAdapter(sim, nport, self.bus,
                                   AdapterModel(f"{name}.hba", model.adapter_frame_time))
        self.ip = IpOverFc(nport, ip_class, deliver=self._ip_input)
        self.background = BackgroundLoad(sim, self.cpu, model.background_utilisation,
                                         model.background_job, f"host/{name}/background")
        self.tick_phase = sim.rng(f"host/{name}/clock").uniform(0.0, 0.2)
        self._endpoints: dict[str, TcpEndpoint] = {}
        self._routes: dict[str, int] = {}
        if model.timer_tick > 0:
            for period in (FAST_TICK, SLOW_TICK):
                sim.call_later(self.tick_phase % period, self._tick, period)

    def _tick(self, event: object) -> None:
        """The TCP timer routines' own processor time, every fast and slow tick."""
        self.cpu.run(self.model.timer_tick, None, INTERRUPT)
        self.sim.call_later(event.value, self._tick, event.value)  # type: ignore[attr-defined]

    # -- sockets ------------------------------------------------------------------

    def tcp_socket(self, port: int, config: TcpConfig) -> Socket:
        """A TCP socket bound to *port* on this host."""
        address = f"{self.name}:{port}"
        if address in self._endpoints:
            raise ValueError(f"{self.name}: port {port} is already bound")
        endpoint = TcpEndpoint(self.sim, address, config, self._output, self.tick_phase)
        self._endpoints[address] = endpoint
        return Socket(self, endpoint)

    def route(self, address: str, n_port_id: int) -> None:
        """Static address resolution: *address* ("host:port") is at *n_port_id*."""
        self._routes[address] = n_port_id

    # -- the kernel's data path -----------------------------------------------------

    def _copy_cost(self, nbytes: int) -> float:
        model = self.model
        if model.copy_avoidance:
            return -(-nbytes // PAGE) * model.page_remap
        return nbytes * model.copy_per_byte

    def _output(self, segment: Segment) -> None:
        model = self.model
        cost = model.tcp_output_per_packet + segment.length * model.checksum_per_byte
        self.cpu.run(cost, lambda: self._to_adapter(segment), INTERRUPT)

    def _to_adapter(self, segment: Segment) -> None:
        size = segment.wire_bytes
        frames = -(-(size + NETWORK_HEADER + LLC_SNAP) // MAX_DATA_FIELD)
        d_id = self._routes[segment.dst]
        self.adapter.transmit(size, frames, lambda: self.ip.send(d_id, size, segment))

    def _ip_input(self, packet: object, length: int, time: float) -> None:
        segment: Segment = packet  # type: ignore[assignment]
        model = self.model
        frames = -(-(length + NETWORK_HEADER + LLC_SNAP) // MAX_DATA_FIELD)
        cost = (model.interrupt + frames * model.driver_per_frame + model.tcp_input_per_packet
                + segment.length * model.checksum_per_byte)
        endpoint = self._endpoints.get(segment.dst)
        if endpoint is not None:
            self.cpu.run(cost, lambda: endpoint.receive(segment), INTERRUPT)

    def _resume(self, called: float, then: Callable[[], None]) -> None:
        """Go on with *then*; a process that blocked since *called* is first woken."""
        if self.sim.now > called and self.model.context_switch > 0:
            self.cpu.run(self.model.context_switch, then, PROCESS)
        else:
            then()

    def reset_stats(self) -> None:
        """Start a new measurement interval (processor and bus)."""
        self.cpu.reset_stats()
        self.bus.reset_stats()


class Socket:
    """The application's view of a TCP endpoint on *host*, with the host's costs."""

    def __init__(self, host: Host, endpoint: TcpEndpoint) -> None:
        self.host = host
        self.endpoint = endpoint

    @property
    def address(self) -> str:
        """This socket's address, "host:port"."""
        return self.endpoint.name

    def connect(self, peer: Socket, connected: Callable[[], None]) -> None:
        """Connect to the listening socket *peer*; *connected()* when established."""
        self.host.route(peer.address, peer.host.nport.port_id)
        peer.host.route(self.address, self.host.nport.port_id)
        self.endpoint.open_active(peer.address, connected)

    def listen(self, connected: Callable[[], None] | None = None) -> None:
        """Wait for a connection."""
        self.endpoint.open_passive(connected)

    def send(self, nbytes: int, done: Callable[[], None]) -> None:
        """send() of *nbytes*; *done()* when the call returns."""
        host = self.host
        chunk = max(1, self.endpoint.config.sndbuf)

        def piece(left: int) -> None:
            if left == 0:
                done()
                return
            n = min(left, chunk)
            host.cpu.run(host._copy_cost(n), lambda: write(n, left - n))

        def write(n: int, left: int) -> None:
            called = host.sim.now
            self.endpoint.write(n, lambda: host._resume(called, lambda: piece(left)))

        host.cpu.run(host.model.syscall, lambda: piece(nbytes) if nbytes else done(), PROCESS)

    def recv(self, max_bytes: int, got: Callable[[int], None]) -> None:
        """recv() of up to *max_bytes*; *got(n)* when the call returns."""
        host = self.host

        def read() -> None:
            called = host.sim.now
            self.endpoint.read(max_bytes, lambda n: host._resume(
                called, lambda: host.cpu.run(host._copy_cost(n), lambda: got(n), PROCESS)))

        host.cpu.run(host.model.syscall, read, PROCESS)
