"""A scenario's workloads as typed values in SI units, after loading and
checking: FC-2 streams and generators, netperf, iperf, fio-like block jobs
and relayed transfers (block jobs are :mod:`fcsim.storage.config`'s, Slice
jobs :mod:`fcsim.trapeze.config`'s), and
which node pairs each exchanges frames between. Part of the scenario model
(:mod:`fcsim.scenario.model`)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from itertools import pairwise

from fcsim.apps.iperf import IperfOptions
from fcsim.apps.netperf import NetperfOptions
from fcsim.apps.transfer import TransferOptions
from fcsim.storage.config import FioConfig
from fcsim.trapeze.config import SliceJobConfig
from fcsim.workload.distributions import Distribution


@dataclass(frozen=True)
class StreamConfig:
    """A saturating stream (see :class:`fcsim.workload.Stream`); sizes in bytes.
    With *stripe_ports* > 1 its sequences are striped by FC-3 over that many
    N_Port pairs of the two nodes in units of *stripe_unit* bytes
    (:class:`fcsim.fc3.striping.StripedStream`). *exchanges* is how it uses
    exchanges (:data:`fcsim.workload.stream.EXCHANGE_USES`)."""

    name: str
    source: str
    destination: str
    size: int
    cls: int = 3
    max_data_field: int | None = None
    outstanding: int = 1
    start: float = 0.0
    count: int | None = None
    stripe_ports: int = 1
    stripe_unit: int | None = None
    exchanges: str = "per-slot"


@dataclass(frozen=True)
class GeneratorConfig:
    """An open-loop generator (see :class:`fcsim.workload.Generator`)."""

    name: str
    source: str
    destination: str
    interarrival: Distribution
    size: Distribution
    cls: int = 3
    max_data_field: int | None = None
    start: float = 0.0
    count: int | None = None


@dataclass(frozen=True)
class NetperfConfig:
    """A netperf test from *source* to *destination* (both hosts) run with
    *options* from *start* s. *send_sizes* and *sockets* (bytes; -s and -S
    alike) with more than one value make a sweep: one run per combination, as
    successive netperf invocations; the options' own sizes are ignored then.
    *sized_transactions*: a TCP_RR whose send sizes are its request and
    response sizes (netperf -r m,m), so that latency sweeps message sizes;
    otherwise a TCP_RR ignores its send sizes (netperf -m), as netperf 2.x's
    TCP_RR does, and runs the options' request and response sizes."""

    name: str
    source: str
    destination: str
    options: NetperfOptions = field(default_factory=NetperfOptions)
    send_sizes: tuple[int, ...] = (65536,)
    sockets: tuple[int, ...] = (65536,)
    start: float = 0.0
    sized_transactions: bool = False

    @property
    def sweeps(self) -> bool:
        """True if more than one (socket, send size) combination is asked for."""
        return len(self.send_sizes) * len(self.sockets) > 1

    def point(self, socket: int, send_size: int) -> NetperfOptions:
        """The netperf options of one point of the sweep."""
        one = replace(self.options, send_size=send_size, local_socket=socket,
                      remote_socket=socket)
        if self.sized_transactions:
            return replace(one, request=send_size, response=send_size)
        return one


@dataclass(frozen=True)
class IperfConfig:
    """An iperf client on *source* and server on *destination* (both hosts),
    run with *options* from *start* s. *mesh_clients* and *mesh_servers*:
    every client sends to every server (empty: *source*, *destination*).
    *windows* (-w, bytes) and *bandwidths* (-b, bit/s) with more than one
    value make a sweep: one run per combination, as successive iperf
    invocations (empty: the options' own value). *stagger*: s between the
    starts of successive client-server runs of the mesh (:meth:`start_of`)."""

    name: str
    source: str
    destination: str
    options: IperfOptions = field(default_factory=IperfOptions)
    start: float = 0.0
    mesh_clients: tuple[str, ...] = ()
    mesh_servers: tuple[str, ...] = ()
    windows: tuple[int, ...] = ()
    bandwidths: tuple[float, ...] = ()
    stagger: float = 0.0

    def start_of(self, run: int) -> float:
        """When client-server run *run* of the mesh starts (each client's runs
        to every server in turn, then the next client's), s."""
        return self.start + run * self.stagger

    @property
    def clients(self) -> tuple[str, ...]:
        """The nodes running an iperf client."""
        return self.mesh_clients or (self.source,)

    @property
    def servers(self) -> tuple[str, ...]:
        """The nodes running an iperf server."""
        return self.mesh_servers or (self.destination,)

    @property
    def sweeps(self) -> bool:
        """True if more than one (window, bandwidth) combination is asked for."""
        return len(self.windows) > 1 or len(self.bandwidths) > 1

    def points(self) -> list[tuple[int, float]]:
        """Every (window, bandwidth) combination of the sweep, in order."""
        return [(w, b) for w in self.windows or (self.options.window,)
                for b in self.bandwidths or (self.options.bandwidth,)]

    def point(self, window: int, bandwidth: float) -> IperfConfig:
        """This workload at one *window* and *bandwidth*."""
        return replace(self, options=replace(self.options, window=window, bandwidth=bandwidth),
                       windows=(window,), bandwidths=(bandwidth,))

    @property
    def targets(self) -> tuple[str, ...]:
        """The nodes the workload sends to."""
        return self.servers


@dataclass(frozen=True)
class TransferConfig:
    """A transfer relayed along the nodes of *path* (hosts, and FCP targets at
    either end) with *options*, from *start* s (see :mod:`fcsim.apps.transfer`)."""

    name: str
    path: tuple[str, ...]
    options: TransferOptions
    start: float = 0.0


WorkloadConfig = (StreamConfig | GeneratorConfig | NetperfConfig | IperfConfig | FioConfig
                  | TransferConfig | SliceJobConfig)


def exchanging_pairs(w: WorkloadConfig) -> list[tuple[str, str]]:
    """The (sender, receiver) node pairs workload *w* exchanges frames between:
    each hop of a transfer, each client with each server of an iperf mesh, the
    source with each target of a striped block job, else source and
    destination. Names that are not nodes (a node's own disks, an FC-3 alias
    group) are left for the caller to skip."""
    if isinstance(w, TransferConfig):
        return list(pairwise(w.path))
    if isinstance(w, IperfConfig):
        return [(a, b) for a in w.clients for b in w.servers]
    return [(w.source, b) for b in getattr(w, "targets", (w.destination,))]
