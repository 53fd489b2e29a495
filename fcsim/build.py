"""Build a scenario's parts on a simulation: its network (by topology), the
hosts around its nodes, and its workloads and applications (FC-2 streams and
generators, netperf, iperf, relayed transfers, Slice block I/O).
:mod:`fcsim.runner` drives what is built here."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from fcsim.apps.iperf import IperfMesh
from fcsim.apps.netperf import Netperf
from fcsim.apps.transfer import TRANSFER_PORT, Transfer
from fcsim.engine.simulation import Simulation
from fcsim.ethernet.build import build_ethernet
from fcsim.fabric import build as fabric_build
from fcsim.fabric.discovery import NameServerQuery
from fcsim.fabric.network import FabricNetwork
from fcsim.fabric.notifications import FabricNotifications
from fcsim.fabric.npiv import virtual_names
from fcsim.fc2.header import TYPE_FCP
from fcsim.fc2.nport import NPort
from fcsim.fc3.build import install_aliases, striped_stream
from fcsim.fc3.ports import port_names, ports_of
from fcsim.fc3.striping import stripe_pairs
from fcsim.fc4.nvme import TYPE_NVME
from fcsim.fc4.nvme_initiator import Discover
from fcsim.fc4.throttle import CongestionThrottle
from fcsim.host.block import HostIo
from fcsim.host.host import Host
from fcsim.host.host_model import HostModel
from fcsim.loop.build import build_loop
from fcsim.myrinet.build import build_myrinet
from fcsim.scenario.model import NodeConfig, Scenario
from fcsim.scenario.workload_model import (
    GeneratorConfig,
    IperfConfig,
    NetperfConfig,
    StreamConfig,
    TransferConfig,
    exchanging_pairs,
)
from fcsim.storage.build import Storage
from fcsim.storage.config import FioConfig
from fcsim.topology.internetwork import build_internetwork
from fcsim.topology.network import Network
from fcsim.topology.point_to_point import build_point_to_point
from fcsim.trapeze.build import SliceStorage
from fcsim.trapeze.config import SliceJobConfig
from fcsim.workload import Generator, Stream, Workload

if TYPE_CHECKING:
    import simpy


def build_fabric(sim: Simulation, scenario: Scenario) -> FabricNetwork:
    """The switched fabric of *scenario* (:func:`fcsim.fabric.build.build_fabric`)
    with its FC-3 alias groups (:func:`fcsim.fc3.build.install_aliases`): each
    N_Port of its nodes, logged in with the N_Ports its workloads exchange
    frames with (and its peers across an internetwork), its switches made to
    recover from faults if it has any (or cures that reset or disable links),
    with its congestion cures."""
    node_configs = {n.name: n for n in scenario.nodes}
    nports = {port: node_configs[node].params for port, node in ports_of(scenario.nodes).items()}
    paths = multipath_pairs(scenario)
    pairs = {(s, d) for w in scenario.workloads for s, d in exchanging_pairs(w)
             if d in nports and (s, d) not in paths} | stripe_pairs(scenario.workloads)
    pairs |= {pair for found in paths.values() for pair in found}
    pairs |= set(scenario.peers)
    # a block job's data goes both ways (a read's comes back from its target)
    both_ways = pairs | {(d, s) for w in scenario.workloads if isinstance(w, FioConfig)
                         for s, d in exchanging_pairs(w) if d in nports}
    # an FC-NVMe controller registers its FC-4 TYPEs (FCP's and FC-NVMe's) with
    # the name server, where hosts find it by TYPE
    nvme = {t for w in scenario.workloads if isinstance(w, FioConfig) and w.nvme is not None
            for t in w.targets}
    net = fabric_build.build_fabric(sim, scenario.switches, scenario.links,  # type: ignore[arg-type]
                                    nports, pairs, scenario.zones, scenario.run.login,
                                    scenario.recovering,
                                    scenario.zone_enforcement == "hard",
                                    {n.name: virtual_names(n.name, n.virtual_ports)
                                     for n in scenario.nodes if n.virtual_ports},
                                    dict(scenario.zone_priorities),
                                    scenario.cures, both_ways,
                                    {t: frozenset((TYPE_FCP, TYPE_NVME)) for t in nvme})
    if scenario.fpin is not None:
        net.fpin = FabricNotifications(sim, scenario.fpin, net.switches, net.nodes,
                                       net.addresses, net.flows, net.logins)
    if scenario.alias_groups:
        groups = {g.name for g in scenario.alias_groups}
        senders = [(w.source, w.destination) for w in scenario.workloads  # type: ignore[union-attr]
                   if getattr(w, "destination", "") in groups]
        install_aliases(sim, scenario.alias_groups, senders, net)
    return net


def multipath_pairs(scenario: Scenario) -> dict[tuple[str, str], set[tuple[str, str]]]:
    """Per (node, target) of a block job (FCP or FC-NVMe) from a node with a
    multipath layer, the (its N_Port, the target's N_Port) pairs on one
    fabric: the paths, which log in with each other in place of the two
    nodes."""
    nodes = {n.name: n for n in scenario.nodes}
    fabric_of = fabric_build.fabrics(scenario.links)  # type: ignore[arg-type]
    out: dict[tuple[str, str], set[tuple[str, str]]] = {}
    for w in scenario.workloads:
        if not isinstance(w, FioConfig):
            continue
        host = nodes[w.source]
        if host.multipath is None:
            continue
        for target in (t for t in w.targets if t in nodes):  # not the node's own disks
            out[(w.source, target)] = {
                (a, b) for a in port_names(host.name, host.ports)
                for b in port_names(target, nodes[target].ports)
                if a in fabric_of and fabric_of[a] == fabric_of.get(b)}
    return out
def nvme_discovery(net: Network) -> Callable[[NPort], Discover] | None:
    """How an FC-NVMe host on *net* finds NVMe subsystems: on a fabric whose
    N_Ports log in frame by frame, one GID_FT for TYPE 0x28 to the name server
    per N_Port (:class:`fcsim.fabric.discovery.NameServerQuery`); elsewhere
    (point to point, a loop, logins that take no time) None: it takes its
    targets as given."""
    if not (isinstance(net, FabricNetwork) and net.logins):
        return None
    queries: dict[str, NameServerQuery] = {}

    def discover(port: NPort) -> Discover:
        query = queries.get(port.name)
        if query is None:
            query = queries[port.name] = NameServerQuery(port, TYPE_NVME)
        return query.find
    return discover


BUILDERS: dict[str, Callable[[Simulation, Scenario], Network]] = {
    "point-to-point": lambda sim, sc: build_point_to_point(sim, sc.nodes, sc.links,
                                                           recovering=bool(sc.faults)),
    "fabric": build_fabric,
    "loop": lambda sim, sc: build_loop(sim, sc.nodes, sc.links),
    "ethernet": build_ethernet,
    "myrinet": build_myrinet,
}
"""Topology builders by the scenario's ``topology`` value: (simulation, scenario) -> network."""
BUILDERS["internetwork"] = lambda sim, sc: build_internetwork(sim, sc, BUILDERS)

def build_workloads(sim: Simulation, scenario: Scenario, net: Network) -> list[Workload]:
    """Create the scenario's workloads on the built network."""
    workloads: list[Workload] = []
    groups = net.aliases.by_name if getattr(net, "aliases", None) else {}
    for w in scenario.workloads:
        if not isinstance(w, StreamConfig | GeneratorConfig):
            continue
        source, d_id = net.route(w.source, w.destination, fibre_channel=True)
        if isinstance(w, StreamConfig) and w.stripe_ports > 1:
            workloads.append(striped_stream(sim, w, net))
        elif isinstance(w, StreamConfig):
            workloads.append(Stream(sim, w.name, source, d_id, w.size, w.cls, w.max_data_field,
                                    w.outstanding, w.start, w.count, w.exchanges))
        else:
            workloads.append(Generator(sim, w.name, source, d_id, w.interarrival, w.size, w.cls,
                                       w.max_data_field, w.start, w.count))
        if w.destination in groups:  # an alias group: sending starts once it is joined
            workloads[-1].waits.append(groups[w.destination].when_ready)
    return workloads


def install_throttles(sim: Simulation, scenario: Scenario,
                      storage: Storage) -> dict[str, CongestionThrottle]:
    """Per FCP initiator's N_Port (and FC-NVMe host's, named "NPORT (NVMe)"),
    the throttle of its outstanding commands (:mod:`fcsim.fc4.throttle`), told
    of the N_Port's notifications and signals; none without ``[fpin] throttle``."""
    policy = scenario.throttle
    if policy is None:
        return {}
    throttles = {}
    initiators = [*storage.initiators.items(),
                  *((f"{name} (NVMe)", nvme) for name, nvme in storage.nvme_initiators.items())]
    for name, initiator in initiators:
        limit = throttles[name] = CongestionThrottle(sim, policy)
        limit.attach(initiator)
        initiator.limit_outstanding(limit)
        initiator.nport.listen_fpin(limit)
        initiator.nport.listen_signals(limit)
    return throttles


def install_marginal_paths(scenario: Scenario, net: Network, storage: Storage) -> None:
    """Tell each multipath device that takes FPINs (``marginal_pathgroups =
    fpin``, :meth:`~fcsim.storage.build.Storage.fpin_listeners`) of the FPINs
    its host's N_Ports receive (:meth:`~fcsim.fc2.nport.NPort.listen_fpin`);
    nothing without ``[fpin]``."""
    if scenario.fpin is None:
        return
    for port, devices in storage.fpin_listeners().items():
        for device in devices:
            net.nodes[port].listen_fpin(device)  # type: ignore[attr-defined]


def build_hosts(sim: Simulation, scenario: Scenario, net: Network) -> dict[str, Host]:
    """A host around the link ports of every node that names a host model
    (one interface per network it is on, each card on the bus the node puts
    it on), loaded by the node's own background load and with its own TCP
    timestamps setting where it gives them, and with the node's static
    routes."""
    hosts = {}
    for n in scenario.nodes:
        if n.host is not None:
            host = hosts[n.name] = Host(sim, n.name, _node_host(n), net.attachments(n.name),
                                        n.ip_class, dict(n.buses))
            host.routes.update(n.routes)
    return hosts


def _node_host(node: NodeConfig) -> HostModel:
    """*node*'s host model with the node's own settings in place of the model's."""
    model: HostModel = node.host  # type: ignore[assignment]
    if node.background_load is not None:
        model = replace(model, background_utilisation=node.background_load)
    if node.tcp_timestamps is not None:
        model = replace(model, tcp_timestamps=node.tcp_timestamps)
    return model


def build_netperf(sim: Simulation, scenario: Scenario, hosts: dict[str, Host],
                  settled: simpy.Event | None = None) -> list[Netperf]:
    """The scenario's netperf runs (each already narrowed to one socket and send
    size); with the run's steady-state rule, *settled* succeeds when every one
    of them has settled."""
    configs = [w for w in scenario.workloads if isinstance(w, NetperfConfig)]
    steady = scenario.run.steady_state
    waiting = len(configs)

    def one_settled() -> None:
        nonlocal waiting
        waiting -= 1
        if waiting == 0 and settled is not None:
            settled.succeed()
    return [Netperf(sim, w.name, hosts[w.source], hosts[w.destination],
                    w.point(w.sockets[0], w.send_sizes[0]), w.start, port=index,
                    steady=steady, settled=one_settled)
            for index, w in enumerate(configs)]


def build_iperf(sim: Simulation, scenario: Scenario,
                hosts: dict[str, Host]) -> list[IperfMesh]:
    """The scenario's iperf runs (each a mesh of its clients and servers), every
    client-server pair numbered apart so that their ports differ."""
    meshes, first = [], 0
    for w in (w for w in scenario.workloads if isinstance(w, IperfConfig)):
        meshes.append(IperfMesh(sim, w.name, [hosts[c] for c in w.clients],
                                [hosts[s] for s in w.servers], w.options, w.start, first,
                                w.stagger))
        first += len(w.clients) * len(w.servers)
    return meshes


def build_transfers(sim: Simulation, scenario: Scenario, hosts: dict[str, Host],
                    storage: Storage) -> list[Transfer]:
    """The scenario's relayed transfers, their TCP connections numbered apart;
    a host's block path to a target at an end through *storage*'s initiators."""
    def volume(host: str, target: str) -> HostIo:
        local = storage.local.get(host)
        own = local is not None and target in local.disks  # else an FCP target: SCSI's stack
        return HostIo(hosts[host], storage.volume(host, (target,), None),
                      0.0 if own else hosts[host].model.scsi_command_cpu)
    transfers, port = [], TRANSFER_PORT
    for w in (w for w in scenario.workloads if isinstance(w, TransferConfig)):
        transfers.append(Transfer(sim, w.name, w.path, hosts, volume, w.options, w.start, port))
        port += len(w.path)
    return transfers


def build_slice(sim: Simulation, scenario: Scenario, net: Network, hosts: dict[str, Host],
                storage: Storage) -> SliceStorage | None:
    """The Slice block I/O service over Trapeze of a scenario with block servers
    or jobs against them (None otherwise), on the disks *storage* made."""
    if not (any(n.block_server for n in scenario.nodes)
            or any(isinstance(w, SliceJobConfig) for w in scenario.workloads)):
        return None
    return SliceStorage(sim, scenario, net, hosts, storage.local)
