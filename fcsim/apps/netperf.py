"""netperf 2.x tests on simulated hosts: TCP_STREAM, TCP_RR and UDP_STREAM.

Options as netperf's (fact sheet section 10.1; netperf ``nettest_bsd.c``):
``-m`` send size, ``-s``/``-S`` local/remote socket buffer size (SO_SNDBUF and
SO_RCVBUF alike), ``-D`` TCP_NODELAY on both ends, ``-l`` test length, ``-M``
receive size (default: the remote receive buffer size); TCP_RR ``-r req,resp``.

TCP_STREAM: the sender calls send() of ``-m`` bytes back to back for ``-l``
seconds from connection set-up; throughput is the bytes the receiving
application got in that time, in 10^6 bits/s as netperf reports it. TCP_RR:
one transaction at a time (request then response, each read whole);
transactions per second, and the mean round-trip time as their inverse.
UDP_STREAM: datagrams of ``-m`` bytes sent back to back; throughput is what
the receiving application got (netperf's receive-side figure), with the send
rate and the datagrams the full receive buffer (``-S``) dropped.

With a :class:`~fcsim.stats.steady.SteadyState` rule, a TCP_STREAM or TCP_RR
test counts its bytes or transactions in batches and, once the steady rate is
known within the rule's precision, reports the figure of the full ``-l`` as
measured so far plus that rate times the length left (see
:mod:`fcsim.stats.steady` and :mod:`fcsim.apps.netperf_batches`); it keeps
running until the run ends, so that the tests beside it see the same traffic.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fcsim.apps.netperf_batches import Batches
from fcsim.engine.simulation import Simulation
from fcsim.fc4.ip import MTU
from fcsim.host.host import Host
from fcsim.stats.steady import Settled, SteadyState
from fcsim.transport.tcp_config import TcpConfig

TESTS = ("TCP_STREAM", "TCP_RR", "UDP_STREAM")
"""The netperf tests modelled."""

SERVER_PORT = 12865
"""netserver's control port; data sockets are numbered from it."""


@dataclass(frozen=True)
class NetperfOptions:
    """One netperf command line. Sizes in bytes, *length* in s."""

    test: str = "TCP_STREAM"
    send_size: int = 65536
    local_socket: int = 65536
    remote_socket: int = 65536
    nodelay: bool = False
    length: float = 10.0
    recv_size: int | None = None
    request: int = 1
    response: int = 1
    window_scaling: bool = True

    def __post_init__(self) -> None:
        if self.test not in TESTS:
            raise ValueError(f"netperf test must be one of {', '.join(TESTS)}, got {self.test!r}")
        if min(self.send_size, self.local_socket, self.remote_socket, self.request,
               self.response) < 1 or self.length <= 0:
            raise ValueError("netperf sizes must be >= 1 byte and the length > 0 s")

    def config(self, socket: int, mtu: int = MTU, tcp: TcpConfig | None = None) -> TcpConfig:
        """The TCP configuration of one end with socket buffers of *socket* bytes,
        on an interface of IP MTU *mtu* bytes (default: IP over FC's)."""
        base = tcp or TcpConfig(sndbuf=socket, rcvbuf=socket, mtu=mtu)
        return TcpConfig(**{**base.__dict__, "sndbuf": socket, "rcvbuf": socket,
                            "nodelay": self.nodelay, "window_scaling": self.window_scaling})


class Netperf:
    """One netperf run from *local* to *remote* (netserver), starting at *start* s
    or once both ports have logged in, whichever is later. With *steady*, a
    TCP_STREAM or TCP_RR test settles early by that rule and then calls
    *settled()*."""

    def __init__(self, sim: Simulation, name: str, local: Host, remote: Host,
                 options: NetperfOptions, start: float = 0.0, port: int = 0,
                 tcp: TcpConfig | None = None, steady: SteadyState | None = None,
                 settled: Callable[[], None] | None = None) -> None:
        if steady is not None and options.test == "UDP_STREAM":
            raise ValueError("steady-state stopping covers TCP_STREAM and TCP_RR, "
                             "not UDP_STREAM")
        self.sim = sim
        self.name = name
        self.options = options
        self.steady = steady
        self._settled = settled
        self._batches = None if steady is None else Batches(steady)
        self._settled_units = 0.0  # the count when the test settled
        self.rate: float | None = None  # the steady rate once settled, units/s
        self.settled_at: float | None = None
        self.local_host, self.remote_host = local, remote
        number = SERVER_PORT + 1 + port
        if options.test == "UDP_STREAM":
            self.udp_local = local.udp_socket(number, options.local_socket, options.local_socket)
            self.udp_remote = remote.udp_socket(number, options.remote_socket,
                                                options.remote_socket)
        else:
            self.local = local.tcp_socket(number, options.config(
                options.local_socket, local.interface_to(remote).mtu, tcp))
            self.remote = remote.tcp_socket(number, options.config(
                options.remote_socket, remote.interface_to(local).mtu, tcp))
        self.bytes = 0
        self.bytes_sent = 0
        self.sends = 0  # TCP_STREAM: send() calls returned within the test
        self._settled_sends = 0  # ... by the moment the test settled
        self.transactions = 0
        self.began: float | None = None
        self.ends = 0.0
        self._pending = 0
        self._cpu: list[tuple[float, float]] = []  # (local, remote) busy time at start, end
        sim.call_later(start, self._connect)

    def _connect(self, _event: object) -> None:
        """Connect once both N_Ports have logged in with the fabric."""
        local, remote = self.local_host, self.remote_host
        local.interface_to(remote).when_ready(
            lambda: remote.interface_to(local).when_ready(self._open))

    def _open(self) -> None:
        if self.options.test == "UDP_STREAM":
            self.udp_local.connect(self.udp_remote)
            self._connected()
            return
        self.remote.listen()
        self.local.connect(self.remote, self._connected)

    def _cpu_sample(self, _event: object = None) -> None:
        """Processor time of both hosts now, s (netperf's -c and -C samples)."""
        self._cpu.append((self.local_host.cpu.served_by_now(),
                          self.remote_host.cpu.served_by_now()))

    def _connected(self) -> None:
        self.began = self.sim.now
        if self._batches is not None:
            self._batches.start(self.began)
        self.ends = self.began + self.options.length
        self._cpu_sample()
        self.sim.call_later(self.options.length, self._cpu_sample)
        if self.steady is not None and self.steady.batch < self.options.length:
            self.sim.call_later(self.steady.batch, self._batch)
        if self.options.test == "TCP_STREAM":
            self._send()
            self._receive()
        elif self.options.test == "UDP_STREAM":
            self._send_datagram()
            self.udp_remote.recv(self._datagram)
        else:
            self._request()

    def _running(self) -> bool:
        return self.sim.now < self.ends

    def _measured(self) -> float:
        """The time the test's figures cover, s: to the moment it settled, or its
        whole length."""
        return self.options.length if self.settled_at is None else self.settled_at - self.began

    def _units(self) -> float:
        """What the test counts so far: transactions (TCP_RR) or bytes received."""
        return self.transactions if self.options.test == "TCP_RR" else self.bytes

    def _batch(self, _event: object) -> None:
        """The end of a batch: its count, then the steady rate if settled (a
        TCP_RR batch is counted when the transaction in progress completes)."""
        if self.settled_at is not None:
            return
        if self.sim.now + self.steady.batch < self.ends:  # type: ignore[union-attr]
            self.sim.call_later(self.steady.batch, self._batch)  # type: ignore[union-attr]
        batches: Batches = self._batches  # type: ignore[assignment]
        if self.options.test == "TCP_RR":
            batches.ended_in_transaction(self.sim.now)
        else:
            self._stop_if(batches.ended(self._units()))

    def _stop_if(self, found: Settled | None) -> None:
        """Stop with the steady rate if the batches have just settled it."""
        if found is None:
            return
        self.rate, self.settled_at = found.rate, self.sim.now
        self._settled_units, self._settled_sends = self._units(), self.sends
        self._cpu_sample()
        if self._settled is not None:
            self._settled()

    # TCP_STREAM
    def _send(self) -> None:
        if self._running():
            self.local.send(self.options.send_size, self._sent)

    def _sent(self) -> None:
        """A send() call returned: count it if within the test, send the next."""
        if self._running():
            self.sends += 1
        self._send()

    def _receive(self) -> None:
        size = self.options.recv_size or self.remote.endpoint.config.rcvbuf
        self.remote.recv(size, self._received)

    def _received(self, n: int) -> None:
        if self._running():
            self.bytes += n
            if self._batches is not None:
                self._batches.received(n)
        if n:
            self._receive()

    # UDP_STREAM
    def _send_datagram(self) -> None:
        if self._running():
            self.bytes_sent += self.options.send_size
            self.udp_local.send(self.options.send_size, self._send_datagram)

    def _datagram(self, n: int) -> None:
        if self._running():
            self.bytes += n
        self.udp_remote.recv(self._datagram)

    # TCP_RR
    def _request(self) -> None:
        if not self._running():
            return
        self.local.send(self.options.request, lambda: None)
        self._pending = self.options.request
        self.remote.recv(self.options.request, self._server_got)

    def _server_got(self, n: int) -> None:
        self._pending -= n
        if self._pending > 0:
            self.remote.recv(self._pending, self._server_got)
            return
        self.remote.send(self.options.response, lambda: None)
        self._pending = self.options.response
        self.local.recv(self.options.response, self._client_got)

    def _client_got(self, n: int) -> None:
        self._pending -= n
        if self._pending > 0:
            self.local.recv(self._pending, self._client_got)
            return
        if self._running():
            self.transactions += 1
            if self._batches is not None and self.settled_at is None:
                self._stop_if(self._batches.completed(self.sim.now, self.transactions - 1))
        self._request()

    def results(self) -> dict[str, Any]:
        """netperf's figures for this run (a settled test's: estimated for its
        full length, with ``steady_state`` saying when and how closely)."""
        length = self.options.length
        settled = self.settled_at is not None
        done = self.began is not None and (settled or self.sim.now >= self.ends)
        out: dict[str, Any] = {"test": self.options.test, "complete": done,
                               "connected_at_s": self.began}
        units = float(self._units())
        if settled:
            measured = self._measured()
            more = self.rate * (length - measured)
            if self.options.test == "TCP_RR":  # netperf counts whole transactions
                more = math.floor(more)
            units = self._settled_units + more
            out["steady_state"] = self._batches.report(measured)  # type: ignore[union-attr]
        if self.options.test in ("TCP_STREAM", "UDP_STREAM"):
            out["throughput_mbit_s"] = 8 * units / length / 1e6
            out["bytes"] = units if settled else self.bytes
        if self.options.test == "TCP_STREAM":
            # the sender's time per send() call (RD11's "overhead"): netperf
            # calls send() back to back, so the calls fill the measured time
            calls = self._settled_sends if settled else self.sends
            out["send_call_s"] = self._measured() / calls if calls else None
        if self.options.test == "UDP_STREAM":
            out["sent_mbit_s"] = 8 * self.bytes_sent / length / 1e6
            out["datagrams_dropped"] = self.udp_remote.dropped
        if self.options.test == "TCP_RR":
            rate = units / length
            out["transactions"] = units if settled else self.transactions
            out["transactions_per_s"] = rate
            out["round_trip_s"] = 1 / rate if rate else None
        out.update(self._cpu_figures())
        return out

    def _cpu_figures(self) -> dict[str, float | None]:
        """netperf -c -C: each host's processor utilisation over the test (every
        process, background load included, as the OS counters netperf reads
        show it) and its service demand, microseconds of processor per KB
        moved (stream tests) or per transaction (TCP_RR), as netperf computes
        them (utilisation averaged over a multiprocessor's processors, service
        demand the processor time of all of them). A settled test's figures
        cover the time up to the moment it settled."""
        if len(self._cpu) < 2:
            return {"local_cpu_utilisation": None, "remote_cpu_utilisation": None,
                    "local_service_demand_us": None, "remote_service_demand_us": None}
        (local0, remote0), (local1, remote1) = self._cpu[:2]
        length = self._measured()
        counted = self._units() if self.settled_at is None else self._settled_units
        units = counted if self.options.test == "TCP_RR" else counted / 1024
        out: dict[str, float | None] = {}
        for side, used, host in (("local", local1 - local0, self.local_host),
                                 ("remote", remote1 - remote0, self.remote_host)):
            out[f"{side}_cpu_utilisation"] = used / length / host.cpu.processors
            out[f"{side}_service_demand_us"] = used * 1e6 / units if units else None
        return out
