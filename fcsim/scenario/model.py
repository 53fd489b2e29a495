"""A scenario as typed values in SI units, after loading and checking.

:mod:`fcsim.scenario.loader` turns a TOML file into these; the topology
builders and :mod:`fcsim.runner` consume them. Nothing here parses text.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from itertools import pairwise

from fcsim.apps.iperf import IperfOptions
from fcsim.apps.netperf import NetperfOptions
from fcsim.apps.transfer import TransferOptions
from fcsim.ethernet.switch import EthernetSwitchModel
from fcsim.fabric.switch_model import SwitchModel
from fcsim.faults.config import FaultConfig
from fcsim.fc0.cable import Cable
from fcsim.fc0.speed import Speed
from fcsim.fc2.login import ServiceParameters
from fcsim.host.host_model import HostModel
from fcsim.loop.ring import DEFAULT_REPEAT_WORDS
from fcsim.myrinet.switch import MyrinetSwitchModel
from fcsim.stats.steady import SteadyState
from fcsim.storage.device_model import ArrayModel, DiskModel, RamDiskModel
from fcsim.storage.local import BlockConfig, ChannelConfig, LocalTarget
from fcsim.trapeze.config import BlockServerConfig, SliceJobConfig
from fcsim.workload.distributions import Distribution
from fcsim.workload.fio import FioOptions


@dataclass(frozen=True)
class RunConfig:
    """Simulated *duration* and *warmup* (s; results cover the time after the
    warm-up), first *seed*, *repetitions* (repetition i uses seed + i), and
    whether N_Ports *login* to a fabric frame by frame at start; *steady_state*:
    the rule that ends the run once its netperf tests settle (None: never)."""

    duration: float
    warmup: float = 0.0
    seed: int = 1
    repetitions: int = 1
    login: bool = True
    steady_state: SteadyState | None = None


@dataclass(frozen=True)
class NodeConfig:
    """A node with one N_Port: *name*, N_Port ID (None: assigned) and login values.

    *loop*: its loop-port settings, on an arbitrated loop only. *host*: the
    host model behind the N_Port (None: a bare N_Port driven by FC-2
    workloads); *ip_class*: the class its IP over FC uses; *background_load*:
    the fraction of the host's processor other processes keep busy in this
    scenario (None: the host model's own value). *target*: the storage device
    behind the node's FCP target, or its own disks it serves (None: not a
    target); *max_burst*: the most write data the target asks for at once,
    bytes (None: no limit). *mtu*: the IP MTU of its Ethernet or Myrinet NIC,
    bytes (those topologies). *routes*: its static host routes, (peer node,
    network name) pairs (internetworks). *channels*: its disk channels and
    their disks; *block*: its block layer (None: the defaults).
    *tcp_timestamps*: the host's TCP asks for RFC 1323 timestamps in this
    scenario (None: as its host model says). *vlan*: on Ethernet, its NIC is
    VLAN-aware and tags its frames with this VLAN (None: untagged).
    *ports*: its N_Ports (fabric only; the first is the node itself, the others
    NAME.1 .., see :mod:`fcsim.fc3.ports`). *block_server*: on Myrinet, the
    Slice block I/O service it runs over Trapeze (None: none).
    *buses*: (network name, bus index) pairs placing the node's card on each
    network on one of its host's I/O buses (internetworks; default bus 0).
    """

    name: str
    port_id: int | None = None
    params: ServiceParameters = field(default_factory=ServiceParameters)
    loop: LoopPortConfig | None = None
    host: HostModel | None = None
    ip_class: int = 3
    background_load: float | None = None
    target: DiskModel | RamDiskModel | ArrayModel | LocalTarget | None = None
    max_burst: int | None = None
    mtu: int = 1500
    routes: tuple[tuple[str, str], ...] = ()
    channels: tuple[ChannelConfig, ...] = ()
    block: BlockConfig | None = None
    tcp_timestamps: bool | None = None
    vlan: int | None = None
    ports: int = 1
    buses: tuple[tuple[str, int], ...] = ()
    block_server: BlockServerConfig | None = None


@dataclass(frozen=True)
class LinkConfig:
    """A link *name* joining the *ends* at *speed* over *cable*.

    An end is a node name or, in a fabric, an Ethernet or a Myrinet network,
    ``"switch:port"`` (port numbered from 0). *cost* is the FSPF cost of an
    inter-switch link (None: from its speed). *vlans*: on Ethernet, the VLAN
    of each end that is a switch port, in order (empty: VLAN 1). *trunk*: an
    802.1Q trunk carrying these VLANs tagged (empty: access ports), with
    *native_vlan* untagged (None: none).
    """

    name: str
    ends: tuple[str, str]
    speed: Speed
    cable: Cable = field(default_factory=Cable)
    bit_error_rate: float = 0.0
    cost: float | None = None
    vlans: tuple[int, ...] = ()
    trunk: tuple[int, ...] = ()
    native_vlan: int | None = None


@dataclass(frozen=True)
class SwitchConfig:
    """A switch *name* built as *model* (a Fibre Channel, Ethernet or Myrinet
    switch), with fabric *domain* (None: assigned; Fibre Channel only);
    *pause*: an Ethernet switch sends 802.3x PAUSE."""

    name: str
    model: SwitchModel | EthernetSwitchModel | MyrinetSwitchModel
    domain: int | None = None
    pause: bool = False


@dataclass(frozen=True)
class StreamConfig:
    """A saturating stream (see :class:`fcsim.workload.Stream`); sizes in bytes.
    With *stripe_ports* > 1 its sequences are striped by FC-3 over that many
    N_Port pairs of the two nodes in units of *stripe_unit* bytes
    (:class:`fcsim.fc3.striping.StripedStream`)."""

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
    invocations (empty: the options' own value)."""

    name: str
    source: str
    destination: str
    options: IperfOptions = field(default_factory=IperfOptions)
    start: float = 0.0
    mesh_clients: tuple[str, ...] = ()
    mesh_servers: tuple[str, ...] = ()
    windows: tuple[int, ...] = ()
    bandwidths: tuple[float, ...] = ()

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
class FioConfig:
    """An fio job from *source* against *destination*: an FCP target node or a
    disk on *source*'s own channels (then no FC is involved),
    with *options*, in Class *cls*; commands time out after *timeout* s; it
    starts at *start* s. A dd is a job of this kind (:attr:`dd`: report it as
    dd does). *stripe_over*: the targets of a volume striped in grains of
    *stripe* bytes (the first is *destination*; empty: one target)."""

    name: str
    source: str
    destination: str
    options: FioOptions
    cls: int = 3
    timeout: float = 30.0
    start: float = 0.0
    dd: bool = False
    stripe_over: tuple[str, ...] = ()
    stripe: int | None = None

    @property
    def targets(self) -> tuple[str, ...]:
        """Every target the job addresses, in stripe order."""
        return self.stripe_over or (self.destination,)


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


@dataclass(frozen=True)
class AliasGroupConfig:
    """An FC-3 alias group of a fabric (:mod:`fcsim.fc3`): *kind* ``"hunt-group"``
    or ``"multicast"``, its *members* (N_Port names, in group order), how they
    join (*registration*: ``"alias-server"``, frame by frame at start, or
    ``"static"``) and, for a hunt group, how many of its exchanges a member
    serves at once before the fabric counts it busy (*exchanges_per_member*)."""

    name: str
    kind: str
    members: tuple[str, ...]
    registration: str = "alias-server"
    exchanges_per_member: int = 1


@dataclass(frozen=True)
class Scenario:
    """Everything one scenario file says. *source* names the file it came from.
    An internetwork's *networks* are each a scenario of one network (its name,
    topology, the ports of the nodes on it as nodes, links and switches; no
    workloads, but the *peers*, pairs of its ports the internetwork's
    workloads exchange over it, which log in with each other on a fabric).
    *faults*: the fault schedule, in time order (equal times in file order).
    *zones*: a fabric's zones, each (name, its N_Port names)."""

    name: str
    topology: str
    run: RunConfig
    nodes: tuple[NodeConfig, ...]
    links: tuple[LinkConfig, ...]
    workloads: tuple[WorkloadConfig, ...]
    source: str = "<memory>"
    description: str = ""
    switches: tuple[SwitchConfig, ...] = ()
    networks: tuple[Scenario, ...] = ()
    peers: tuple[tuple[str, str], ...] = ()
    alias_groups: tuple[AliasGroupConfig, ...] = ()
    faults: tuple[FaultConfig, ...] = ()
    zones: tuple[tuple[str, tuple[str, ...]], ...] = ()


# -- arbitrated loop (topology = "loop") ----------------------------------------------


@dataclass(frozen=True)
class LoopPortConfig:
    """A node's loop port: hard *al_pa* (None: soft address), *fairness* (access
    fairness algorithm), *repeat_delay* in transmission words (None: the loop's)
    and *login_credit*, the BB credit it announces at login (frames)."""

    al_pa: int | None = None
    fairness: bool = True
    repeat_delay: int | None = None
    login_credit: int = 0


@dataclass(frozen=True)
class LoopConfig:
    """The ring of an arbitrated loop; for ``topology = "loop"`` it is the one
    element of :attr:`Scenario.links`.

    *order*: node names in ring order (each sends to the next, the last to the
    first); *speed*; *cable* of every hop; *bit_error_rate* per hop;
    *repeat_delay*: default repeat delay of a port, transmission words;
    *lip_at*: times of loop initialisations after the one at start, s;
    *position_map*: initialisation includes LIRP and LILP.
    """

    name: str
    order: tuple[str, ...]
    speed: Speed
    cable: Cable = field(default_factory=Cable)
    bit_error_rate: float = 0.0
    repeat_delay: int = DEFAULT_REPEAT_WORDS
    lip_at: tuple[float, ...] = ()
    position_map: bool = True
