"""iperf 2 on simulated hosts: TCP with parallel flows, UDP at a shaped rate,
between one client and one server or over a mesh of clients and servers.

Options as iperf's (fact sheet section 10.2): ``-P`` parallel TCP flows, each
with ``-w`` as its window (SO_SNDBUF and SO_RCVBUF), ``-l`` bytes per write
(iperf 2.0.5: 8 KB for TCP, 1470 B for UDP), ``-t`` seconds, ``-N``
TCP_NODELAY, ``-u`` UDP with ``-b`` the offered rate in bits/s (iperf paces
its datagrams evenly, one sendto() after the other: a sender that falls
behind, its processor or send buffer full, sends at once until it catches up,
never two at a time; each wait for a due time ends up to the client host's
*timer_jitter* late, :mod:`fcsim.host.timer_jitter`). Results: the aggregate
throughput the receiving application got in 10^6 bits/s, per flow for TCP;
for UDP also the datagrams lost (sent but not read). A mesh
(:class:`IperfMesh`) runs one such iperf from each client to each server at
once, as a script starting them together would (or *stagger* apart, as a
script starting them one after another), and reports their sum; with ``-i``
it also reports the sum over each interval and the median of those interval
reports.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any

from fcsim.apps.netperf import Netperf, NetperfOptions
from fcsim.engine.simulation import Simulation
from fcsim.host.host import Host

IPERF_PORT = 5001
"""iperf's default port; flows take the ports after it."""


@dataclass(frozen=True)
class IperfOptions:
    """One iperf client command line. Sizes in bytes, *bandwidth* in bits/s,
    *duration* and *interval* (``-i``, the period of the interim reports;
    None: none) in s."""

    udp: bool = False
    parallel: int = 1
    window: int = 65536
    length: int | None = None
    bandwidth: float = 1e6
    duration: float = 10.0
    nodelay: bool = False
    interval: float | None = None

    def __post_init__(self) -> None:
        if self.parallel < 1 or self.window < 1 or self.duration <= 0 or self.bandwidth <= 0:
            raise ValueError("iperf needs -P >= 1, -w >= 1 B, -t > 0 s and -b > 0 bit/s")
        if self.interval is not None and self.interval <= 0:
            raise ValueError("iperf -i must be > 0 s")
        if self.length is not None and self.length < 1:
            raise ValueError("iperf -l must be >= 1 byte")

    @property
    def write_size(self) -> int:
        """Bytes per write (``-l``; iperf 2.0.5 defaults: 8 KB TCP, 1470 B UDP)."""
        return self.length if self.length is not None else (1470 if self.udp else 8192)


class _UdpFlow:
    """One UDP flow of an iperf -u: the client's socket on *client* pacing
    datagrams to the server's on *server*, both bound to port *number*."""

    def __init__(self, iperf: Iperf, number: int) -> None:
        options = iperf.options
        self.iperf = iperf
        self.out = iperf.client.udp_socket(number, options.window, options.window)
        self.into = iperf.server.udp_socket(number, options.window, options.window)
        self.sent = self.received = 0
        self._due = 0.0

    def open(self) -> None:
        """Connect and send the first datagram."""
        self.out.connect(self.into)
        self._due = self.iperf.sim.now
        self.into.recv(self._got)
        self._send(None)

    def _send(self, _event: object) -> None:
        """One sendto(); the next when this one has returned, at its due time
        (the wait ending up to the host's timer jitter late) or at once if
        behind (iperf 2's sending thread and its delay loop). The due times
        stay a fixed gap apart, so a late wait does not slow the rate down."""
        iperf = self.iperf
        if not iperf.running():
            return
        self.sent += 1
        self._due += iperf.gap
        self.out.send(iperf.options.write_size, self._sent)

    def _sent(self) -> None:
        iperf = self.iperf
        wait = self._due - iperf.sim.now
        if wait > 0:  # the wait ends late by the client host's timer jitter
            iperf.sim.call_later(wait + iperf.client.timer_jitter.lateness(), self._send)
        else:
            self._send(None)

    def _got(self, n: int) -> None:
        if self.iperf.running():
            self.received += 1
        self.into.recv(self._got)


class Iperf:
    """An iperf client on *client* sending to a server on *server* from *start*
    s: ``-P`` TCP flows, or with ``-u`` as many UDP flows, each paced at ``-b``
    (iperf 2 runs a thread per flow, each at the rate asked for). *port*
    numbers this run among the scenario's iperf runs."""

    def __init__(self, sim: Simulation, name: str, client: Host, server: Host,
                 options: IperfOptions, start: float = 0.0, port: int = 0) -> None:
        self.sim = sim
        self.name = name
        self.options = options
        self.flows: list[Netperf] = []
        self.udp: list[_UdpFlow] = []
        if not options.udp:
            flow_options = NetperfOptions(
                "TCP_STREAM", options.write_size, options.window, options.window,
                options.nodelay, options.duration, recv_size=options.write_size)
            self.flows = [Netperf(sim, f"{name}.{i}", client, server, flow_options, start,
                                  port=100 * (port + 1) + i)  # apart from netperf's
                          for i in range(options.parallel)]
            return
        self.client, self.server = client, server
        self.gap = 8 * options.write_size / options.bandwidth
        self.began = start
        self.udp = [_UdpFlow(self, IPERF_PORT + 100 * port + i) for i in range(options.parallel)]
        sim.call_later(start, self._udp_start)

    def _udp_start(self, _event: object) -> None:
        client, server = self.client, self.server
        client.interface_to(server).when_ready(
            lambda: server.interface_to(client).when_ready(self._udp_open))

    def _udp_open(self) -> None:
        self.began = self.sim.now
        for flow in self.udp:
            flow.open()

    def running(self) -> bool:
        """Whether the UDP test is still on (from the first datagram for -t s)."""
        return self.sim.now < self.began + self.options.duration

    @property
    def sent(self) -> int:
        """UDP datagrams sent so far, over every flow."""
        return sum(flow.sent for flow in self.udp)

    @property
    def received(self) -> int:
        """UDP datagrams the server application has read in the test, over every flow."""
        return sum(flow.received for flow in self.udp)

    def delivered(self) -> int:
        """Bytes the receiving application has got so far in the test."""
        if self.options.udp:
            return self.received * self.options.write_size
        return sum(flow.bytes for flow in self.flows)

    def results(self) -> dict[str, Any]:
        """iperf's report: aggregate throughput in 10^6 bits/s, per flow or with loss."""
        options = self.options
        if not options.udp:
            flows = [f.results()["throughput_mbit_s"] for f in self.flows]
            return {"protocol": "TCP", "throughput_mbit_s": sum(flows), "flows_mbit_s": flows}
        sent, received = self.sent, self.received
        return {"protocol": "UDP", "offered_mbit_s": options.parallel * options.bandwidth / 1e6,
                "throughput_mbit_s": 8 * received * options.write_size
                / options.duration / 1e6,
                "datagrams_sent": sent, "datagrams_lost": sent - received}


class IperfMesh:
    """An iperf from each of *clients* to each of *servers* (hosts by name),
    started together at *start* s, or *stagger* s apart (each client's runs
    to every server in turn, then the next client's), reported as one: the
    sum of their throughputs and, with ``-i``, the sum over the mesh in each
    interval from *start* until the last run ends and its median, each run's
    interval reports (on its own clock, from its own start, as iperf -i
    reports) and median, and the sum of those medians (the figure seed 003
    reports: per-flow medians of 4 s reports, summed). *port* numbers its
    first client-server pair among the scenario's iperf runs; the others
    follow."""

    def __init__(self, sim: Simulation, name: str, clients: list[Host], servers: list[Host],
                 options: IperfOptions, start: float = 0.0, port: int = 0,
                 stagger: float = 0.0) -> None:
        self.sim, self.name, self.options = sim, name, options
        pairs = [(c, s) for c in clients for s in servers]
        single = len(pairs) == 1
        starts = [start + i * stagger for i in range(len(pairs))]
        self.runs = [Iperf(sim, name if single else f"{name}/{c.name}->{s.name}", c, s,
                           options, starts[i], port=port + i)
                     for i, (c, s) in enumerate(pairs)]
        self.intervals: list[float] = []  # bits/s of each whole interval
        self.run_intervals: list[list[float]] = [[] for _ in self.runs]  # the same, per run
        self._last = 0
        self._run_last = [0] * len(self.runs)
        self._ends = [at + options.duration for at in starts]  # each run's, s
        if options.interval is not None:
            sim.call_later(start + options.interval, self._report)
            for i, at in enumerate(starts):  # each run's own clock, from its start
                sim.call_later(at + options.interval, self._run_report, i)

    def _again(self, callback: Any, end: float, value: Any = None) -> None:
        """Call *callback* one interval on, if that interval ends by *end* s."""
        interval: float = self.options.interval  # type: ignore[assignment]
        if self.sim.now + interval <= end * (1 + 1e-12):
            self.sim.call_later(interval, callback, value)

    def _report(self, _event: object) -> None:
        """One interim report of the mesh: what arrived in the interval just ended."""
        interval: float = self.options.interval  # type: ignore[assignment]
        total = sum(run.delivered() for run in self.runs)
        self.intervals.append(8 * (total - self._last) / interval)
        self._last = total
        self._again(self._report, self._ends[-1])

    def _run_report(self, index: int) -> None:
        """One interim report of run *index*: what it delivered in its interval just ended."""
        interval: float = self.options.interval  # type: ignore[assignment]
        now = self.runs[index].delivered()
        self.run_intervals[index].append(8 * (now - self._run_last[index]) / interval)
        self._run_last[index] = now
        self._again(self._run_report, self._ends[index], index)

    def results(self) -> dict[str, Any]:
        """The runs' summed throughput (10^6 bits/s), each run's, and the
        interval reports with their medians."""
        runs = {run.name: run.results() for run in self.runs}
        medians = []
        if self.options.interval is not None and len(runs) > 1:
            for result, bits in zip(runs.values(), self.run_intervals, strict=True):
                reports = [b / 1e6 for b in bits]
                result["intervals_mbit_s"] = reports
                result["median_mbit_s"] = statistics.median(reports) if reports else None
                medians.append(result["median_mbit_s"])
        if len(runs) == 1:
            out = dict(next(iter(runs.values())))
        else:
            out = {"protocol": "UDP" if self.options.udp else "TCP",
                   "throughput_mbit_s": sum(r["throughput_mbit_s"] for r in runs.values()),
                   "runs": runs}
            if self.options.udp:
                out["datagrams_lost"] = sum(r["datagrams_lost"] for r in runs.values())
        if self.options.interval is not None:
            reports = [bits / 1e6 for bits in self.intervals]
            out["intervals_mbit_s"] = reports
            out["median_mbit_s"] = statistics.median(reports) if reports else None
            if len(runs) > 1:
                out["sum_of_medians_mbit_s"] = (sum(medians) if None not in medians
                                                else None)
        return out
