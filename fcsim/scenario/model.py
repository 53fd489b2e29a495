"""A scenario as typed values in SI units, after loading and checking.

:mod:`fcsim.scenario.loader` turns a TOML file into these; the topology
builders and :mod:`fcsim.runner` consume them. Nothing here parses text. The
workloads' types are :mod:`fcsim.scenario.workload_model`'s.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fcsim.ethernet.switch import EthernetSwitchModel
from fcsim.fabric.cures import NO_CURES, Cures
from fcsim.fabric.fspf import DEFAULT_TIMERS, FspfTimers
from fcsim.fabric.notifications import FpinPolicy
from fcsim.fabric.switch_model import SwitchModel
from fcsim.faults.config import BY_PROTOCOL, DEV_LOSS_TMO, FaultConfig
from fcsim.fc0.cable import Cable
from fcsim.fc0.speed import Speed
from fcsim.fc2.login import ServiceParameters
from fcsim.fc4.nvme_recovery import CTRL_LOSS_TMO, RECONNECT_DELAY
from fcsim.fc4.throttle import ThrottlePolicy
from fcsim.host.host_model import HostModel
from fcsim.loop.config import LoopConfig, LoopPortConfig
from fcsim.myrinet.switch import MyrinetSwitchModel
from fcsim.scenario.workload_model import WorkloadConfig
from fcsim.stats.steady import SteadyState
from fcsim.storage.config import MultipathConfig
from fcsim.storage.device_model import (
    ArrayModel,
    DiskModel,
    FlashArrayModel,
    RamDiskModel,
    SsdModel,
)
from fcsim.storage.local import BlockConfig, ChannelConfig, LocalTarget
from fcsim.trapeze.config import BlockServerConfig


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
    target); *max_burst*: the target's maximum burst size, the most data it
    moves in one FCP_DATA sequence either way, bytes (None: no limit);
    *namespaces*: the target's logical units (SCSI LUNs, NVMe namespaces),
    equal parts of its device.
    *mtu*: the IP MTU of its Ethernet or Myrinet NIC,
    bytes (those topologies). *routes*: its static host routes, (peer node,
    network name) pairs (internetworks). *channels*: its disk channels and
    their disks; *block*: its block layer (None: the defaults).
    *tcp_timestamps*: the host's TCP asks for RFC 1323 timestamps in this
    scenario (None: as its host model says). *vlan*: on Ethernet, its NIC is
    VLAN-aware and tags its frames with this VLAN (None: untagged).
    *ports*: its N_Ports (fabric only; the first is the node itself, the others
    NAME.1 .., see :mod:`fcsim.fc3.ports`), and its virtual N_Ports behind the
    first (*virtual_ports*, NPIV: NAME.v1 ..). *block_server*: on Myrinet, the
    Slice block I/O service it runs over Trapeze (None: none).
    *buses*: (network name, bus index) pairs placing the node's card on each
    network on one of its host's I/O buses (internetworks; default bus 0).
    *link_down*: what its N_Port does with upper-layer sequences while its
    link is down (:data:`fcsim.faults.config.LINK_DOWN_POLICIES`), holding
    them at most *dev_loss_tmo* s; *fast_io_fail_tmo*: when its FC transport
    fails the SCSI commands held for a blocked remote port, s after the
    link went down (None: off, only at *dev_loss_tmo*). *multipath*: its
    multipath layer (None: none); *non_optimized_ports*: a target's N_Ports
    in the ALUA active/non-optimised group; *ana_states*: a target's (N_Port, ANA
    state) pairs for FC-NVMe (a port not listed: optimized). *nvme_sler*: it
    offers FC-NVMe-2 sequence level error recovery at PRLI.
    *nvme_reconnect_delay*, *nvme_ctrl_loss_tmo*: as an FC-NVMe host, the time
    between attempts to create an association again after a reset and how
    long it tries before it gives the controller up, s (None: forever).
    """

    name: str
    port_id: int | None = None
    params: ServiceParameters = field(default_factory=ServiceParameters)
    loop: LoopPortConfig | None = None
    host: HostModel | None = None
    ip_class: int = 3
    background_load: float | None = None
    target: (DiskModel | RamDiskModel | ArrayModel | SsdModel | FlashArrayModel | LocalTarget
             | None) = None
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
    link_down: str = BY_PROTOCOL
    dev_loss_tmo: float = DEV_LOSS_TMO
    fast_io_fail_tmo: float | None = None
    virtual_ports: int = 0
    multipath: MultipathConfig | None = None
    non_optimized_ports: tuple[str, ...] = ()
    ana_states: tuple[tuple[str, str], ...] = ()
    namespaces: int = 1
    nvme_sler: bool = True
    nvme_reconnect_delay: float = RECONNECT_DELAY
    nvme_ctrl_loss_tmo: float | None = CTRL_LOSS_TMO


@dataclass(frozen=True)
class LinkConfig:
    """A link *name* joining the *ends* at *speed* over *cable*.

    An end is a node name or, in a fabric, an Ethernet or a Myrinet network,
    ``"switch:port"`` (port numbered from 0). *cost* is the FSPF cost of an
    inter-switch link (None: from its speed). *vlans*: on Ethernet, the VLAN
    of each end that is a switch port, in order (empty: VLAN 1). *trunk*: an
    802.1Q trunk carrying these VLANs tagged (empty: access ports), with
    *native_vlan* untagged (None: none). *bb_credit*: in a fabric, the receive
    buffers of each switch port at an end of the link (None: the switch
    model's). *error_rates*: (end, rate) for an end whose frames have a bit
    error rate other than *bit_error_rate*. *virtual_channels*: an ISL's
    virtual channels, channel 0 included (None: none), *vc_credit* the
    receive buffers of each at each end (None: the port's split evenly),
    *vc_assignment* how data frames take them
    (:data:`fcsim.fabric.virtual_channels.ASSIGNMENTS`). *trunk_group*: in a
    fabric, the ISL trunk the link is a member of (None: none).
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
    bb_credit: int | None = None
    error_rates: tuple[tuple[str, float], ...] = ()
    virtual_channels: int | None = None
    vc_credit: int | None = None
    vc_assignment: str = "destination"
    trunk_group: str | None = None


@dataclass(frozen=True)
class SwitchConfig:
    """A switch *name* built as *model* (a Fibre Channel, Ethernet or Myrinet
    switch), with fabric *domain* (None: assigned; Fibre Channel only);
    *pause*: an Ethernet switch sends 802.3x PAUSE; *routing*: how a Fibre
    Channel switch chooses among equal-cost next hops (None: its model's);
    *bb_sc_n*: the BB_SC_N a Fibre Channel switch's ports offer at login (0:
    no BB credit recovery). *in_order*: a Fibre Channel switch's in-order
    delivery across route changes, its flush time in s (None: off)."""

    name: str
    model: SwitchModel | EthernetSwitchModel | MyrinetSwitchModel
    domain: int | None = None
    pause: bool = False
    routing: str | None = None
    bb_sc_n: int = 0
    in_order: float | None = None


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
    *zones*: a fabric's zones, each (name, its N_Port names), enforced by its
    switches as *zone_enforcement* says ("soft" or "hard"). *fspf*: a
    fabric's FSPF timers. *zone_priorities*: (zone name, QoS priority) of
    each zone whose priority is not 'medium'. *cures*: what its switches do
    against congestion (congestion isolation among them). *fpin*: a fabric's
    notification rules (None: no ``[fpin]``, no registration); *throttle*:
    how FCP initiators throttle on them (None: they do not)."""

    name: str
    topology: str
    run: RunConfig
    nodes: tuple[NodeConfig, ...]
    links: tuple[LinkConfig | LoopConfig, ...]
    workloads: tuple[WorkloadConfig, ...]
    source: str = "<memory>"
    description: str = ""
    switches: tuple[SwitchConfig, ...] = ()
    networks: tuple[Scenario, ...] = ()
    peers: tuple[tuple[str, str], ...] = ()
    alias_groups: tuple[AliasGroupConfig, ...] = ()
    faults: tuple[FaultConfig, ...] = ()
    zones: tuple[tuple[str, tuple[str, ...]], ...] = ()
    fspf: FspfTimers = DEFAULT_TIMERS
    zone_enforcement: str = "soft"
    zone_priorities: tuple[tuple[str, str], ...] = ()
    cures: Cures = NO_CURES
    fpin: FpinPolicy | None = None
    throttle: ThrottlePolicy | None = None

    @property
    def recovering(self) -> bool:
        """True if its links recover from resets and failures: it has faults, or
        congestion cures that reset or disable links."""
        return bool(self.faults) or self.cures.recovering
