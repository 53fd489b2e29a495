"""Build a switched fabric: N_Ports on switches, switches joined by ISLs.

Link ends name an N_Port or a switch port as ``"switch:port"``. Each switch
gets a domain (given, or 1, 2, ... in order); an N_Port on switch port p gets
the N_Port ID domain / p / 00. Routes between switches come from
:func:`fcsim.fabric.routing.next_hops`; each switch chooses among equal-cost
ISLs by its routing policy (:func:`fcsim.fabric.routing.chooser`). Each
N_Port's BB credit towards its F_Port is the switch model's, the switch's
towards the N_Port is the N_Port's. With *login* each N_Port logs in frame
by frame at start (:mod:`fcsim.fabric.login`) and its workloads wait for
that; otherwise logins take no time. In a run with faults (*recovering*)
every switch is a :class:`~fcsim.fabric.recovering_switch.RecoveringSwitch` and
every port a :class:`~fcsim.fc2.recovering_port.RecoveringPort`.
With zones enforced in hardware (*hard_zoning*) every node's switch port is
a :class:`~fcsim.fabric.hard_zoning.ZonedFPort`, which drops the frames
between N_Ports that share no zone; without, no port checks a frame. ISLs
of one ``trunk_group`` become one trunk (:mod:`fcsim.fabric.trunk`): one
switch port at each end, one FSPF adjacency.

The builder takes what it reads as the small protocols below (the scenario's
switch and link configurations satisfy them); the run's builder
(:mod:`fcsim.build`) hands it the N_Ports (a node with several has one per
port, :mod:`fcsim.fc3.ports`), the pairs that exchange frames and the zones,
and plugs FC-3's alias groups in afterwards (:mod:`fcsim.fc3.build`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any, Protocol

from fcsim.engine.simulation import Simulation
from fcsim.fabric.addressing import port_id
from fcsim.fabric.congestion_isolation import CongestionIsolation
from fcsim.fabric.cures import NO_CURES, Cures
from fcsim.fabric.ingress_limit import DynamicIngressLimit, make_paced_port
from fcsim.fabric.login import FabricLogin
from fcsim.fabric.network import FabricNetwork
from fcsim.fabric.npiv import SharedPort
from fcsim.fabric.port_guard import PortGuard
from fcsim.fabric.recovering_switch import RecoveringSwitch
from fcsim.fabric.routing import chooser, fspf_cost, next_hops, switch_seed
from fcsim.fabric.services import E_D_TOV, FabricServices
from fcsim.fabric.switch import Switch
from fcsim.fabric.switch_port import SwitchPort
from fcsim.fabric.trunk import Trunk, trunk_cost
from fcsim.fabric.virtual_channels import (
    ChannelAssignment,
    VirtualChannelSwitch,
)
from fcsim.fabric.zoning import Zoning
from fcsim.fc2.credit_recovery import negotiated_bb_sc_n
from fcsim.fc2.login import ServiceParameters
from fcsim.fc2.nport import NPort
from fcsim.fc2.port_kinds import make_port
from fcsim.fc2.vc_port import VirtualChannelPort
from fcsim.link.link import Link, LinkSpec


class SwitchSpec(Protocol):
    """A switch to build: its name, model (a fabric switch's
    :class:`~fcsim.fabric.switch_model.SwitchModel`), domain (None: the next
    free), routing policy (None: the model's), the BB_SC_N its ports offer
    (0: no BB credit recovery) and the flush time of its in-order delivery
    across route changes (s; None: off)."""

    @property
    def name(self) -> str: ...
    @property
    def model(self) -> Any: ...
    @property
    def domain(self) -> int | None: ...
    @property
    def routing(self) -> str | None: ...
    @property
    def bb_sc_n(self) -> int: ...
    @property
    def in_order(self) -> float | None: ...


class FabricLinkSpec(LinkSpec, Protocol):
    """A link to build: its name, ends, line speed, cable, bit error rate (and
    per end), FSPF cost (None: from its speed), its switch ports' receive
    buffers (None: the switch model's), the ISL trunk it is a member of
    (None: none, :mod:`fcsim.fabric.trunk`); an ISL's virtual channels
    (None: none), the receive buffers of each (None: the port's split
    evenly) and how data frames are assigned to them
    (:data:`fcsim.fabric.virtual_channels.ASSIGNMENTS`)."""

    @property
    def cost(self) -> float | None: ...
    @property
    def bb_credit(self) -> int | None: ...
    @property
    def virtual_channels(self) -> int | None: ...
    @property
    def vc_credit(self) -> int | None: ...
    @property
    def vc_assignment(self) -> str: ...
    def trunk_group(self) -> str | None: ...


def assign_domains(switches: Iterable[SwitchSpec]) -> dict[str, int]:
    """The domain of each of *switches* by name: its own, or the lowest of
    1..239 no switch names, in order."""
    configs = list(switches)
    used = {s.domain for s in configs if s.domain is not None}
    free = (d for d in range(1, 240) if d not in used)
    return {s.name: s.domain if s.domain is not None else next(free) for s in configs}


def split_end(end: str) -> tuple[str, int | None]:
    """``"sw1:3"`` -> ("sw1", 3); a node name -> (name, None)."""
    name, sep, index = end.partition(":")
    return (name, int(index)) if sep else (name, None)


def fabrics(links: Iterable[FabricLinkSpec]) -> dict[str, int]:
    """The fabric of every switch and N_Port *links* join, by name: switches
    joined by inter-switch links, and the N_Ports cabled to them, share a
    number; switches with no link between them (fabric A and fabric B of a
    dual-fabric SAN) do not."""
    parent: dict[str, str] = {}

    def root(name: str) -> str:
        parent.setdefault(name, name)
        while parent[name] != name:
            parent[name] = parent[parent[name]]
            name = parent[name]
        return name
    for link in links:
        a, b = (root(split_end(e)[0]) for e in link.ends)
        parent[a] = b
    roots: dict[str, int] = {}
    return {name: roots.setdefault(root(name), len(roots)) for name in list(parent)}


def build_fabric(sim: Simulation, switches: Sequence[SwitchSpec], links: Sequence[FabricLinkSpec],
                 nports: Mapping[str, ServiceParameters], pairs: set[tuple[str, str]],
                 zones: tuple[tuple[str, tuple[str, ...]], ...] = (), login: bool = True,
                 recovering: bool = False, hard_zoning: bool = False,
                 virtual: Mapping[str, Sequence[str]] | None = None,
                 priorities: Mapping[str, str] | None = None,
                 cures: Cures = NO_CURES,
                 flows: set[tuple[str, str]] | None = None,
                 fc4_types: Mapping[str, frozenset[int]] | None = None) -> FabricNetwork:
    """Build *switches*, the N_Ports *nports* (each N_Port's name and login
    service parameters) and *links*, and route the fabric; the N_Ports of
    each of *pairs* (sender, receiver) log in with each other, with fabric
    login frame by frame at start if *login*; *zones*: each (name, N_Port
    names); *recovering*: a run with faults (its switches and ports
    recover); *hard_zoning*: the F_Ports drop the frames between N_Ports
    that share no zone; *virtual*: per N_Port
    name, the virtual N_Ports (NPIV) behind it, of *nports* too, which log in
    with FDISC after it (:mod:`fcsim.fabric.npiv`);
    *priorities*: the QoS priority of zones not of medium priority, by zone
    name (read by ISLs whose virtual channels are assigned by priority);
    *cures*: what the switches do against congestion
    (:mod:`fcsim.fabric.cures`): with credit loss recovery a switch port's
    link timeout is its time at zero credit; with fencing, their port
    monitors (:class:`~fcsim.fabric.port_guard.PortGuard`); with ingress rate
    limiting, F_Ports whose ingress can be limited and the loop that limits
    them (:class:`~fcsim.fabric.ingress_limit.DynamicIngressLimit`); with
    congestion isolation, the port monitor that moves flows to slow devices
    to the ISLs' low-priority virtual channel
    (:class:`~fcsim.fabric.congestion_isolation.CongestionIsolation`); *flows*:
    the (sender, receiver) pairs data goes between, for the congestion view
    (default: *pairs*; a read's data comes back from its target);
    *fc4_types*: per N_Port name, the FC-4 TYPEs it registers with the name
    server at login (RFT_ID; the others register none)."""
    virtual = virtual or {}
    fc4_types = fc4_types or {}
    loss = cures.credit_loss
    f_timeout = E_D_TOV if loss is None else loss.f_port
    e_timeout = E_D_TOV if loss is None else loss.e_port
    net = FabricNetwork()
    isolation = cures.isolation
    isolated: set[int] | None = None if isolation is None else set()
    high: set[tuple[int, int]] = set()  # filled once the N_Ports have their IDs
    permitted: dict[int, frozenset[int]] | None = {} if hard_zoning and zones else None
    domains = assign_domains(switches)
    channelled = {split_end(end)[0] for link in links if link.virtual_channels
                  for end in link.ends}
    if channelled and recovering:
        raise ValueError("virtual channels are not modelled in a run with faults or with "
                         "cures that reset or disable links")
    offers = {config.name: config.bb_sc_n for config in switches}
    for config in switches:
        if config.name in channelled:
            net.switches[config.name] = VirtualChannelSwitch(
                sim, config.name, domains[config.name], config.model, config.routing)
        elif recovering:
            net.switches[config.name] = RecoveringSwitch(
                sim, config.name, domains[config.name], config.model, config.routing, net.losses,
                config.in_order)
        else:
            net.switches[config.name] = Switch(sim, config.name, domains[config.name],
                                               config.model, config.routing)
    isls: list[tuple[str, str, str, float]] = []
    ends_of: dict[str, dict[str, SwitchPort]] = {}
    trunked: dict[str, list[FabricLinkSpec]] = {}
    for link in links:
        if link.trunk_group is not None:
            trunked.setdefault(link.trunk_group, []).append(link)
            continue
        (a_name, a_port), (b_name, b_port) = (split_end(e) for e in link.ends)
        if a_port is None and b_port is None:
            raise ValueError(f"link {link.name}: a fabric link needs a switch port at one end")
        if a_port is None or b_port is None:
            node, (sw_name, index) = ((a_name, (b_name, b_port)) if a_port is None
                                      else (b_name, (a_name, a_port)))
            _attach_node(sim, net, node, nports[node], net.switches[sw_name], index, link,
                         recovering, permitted, f_timeout, cures.ingress_limit is not None,
                         offers[sw_name])
            if virtual.get(node):
                _attach_virtual(sim, net, node, virtual[node], nports)
        elif link.virtual_channels:
            ends_of[link.name] = _channelled_isl(sim, net, link, (a_name, a_port),
                                                 (b_name, b_port), isolated, high)
            cost = link.cost if link.cost is not None else fspf_cost(link.speed.line_rate)
            isls.append((a_name, b_name, link.name, cost))
        else:
            a, b = net.switches[a_name], net.switches[b_name]
            n = negotiated_bb_sc_n(offers[a_name], offers[b_name])
            pa = make_port(sim, f"{a_name}:{a_port}", link.bb_credit or a.model.bb_credit,
                           e_timeout, recovering, n)
            pb = make_port(sim, f"{b_name}:{b_port}", link.bb_credit or b.model.bb_credit,
                           e_timeout, recovering, n)
            net.links[link.name] = Link(link.name, pa, pb, link.speed, link.cable,
                                        link.bit_error_rate, link.error_rates)
            pa.login(pb.rx_buffers)
            pb.login(pa.rx_buffers)
            ends_of[link.name] = {a_name: a.add_port(a_port, pa), b_name: b.add_port(b_port, pb)}
            cost = link.cost if link.cost is not None else fspf_cost(link.speed.line_rate)
            isls.append((a_name, b_name, link.name, cost))
    for name, members in trunked.items():
        isls.append(_build_trunk(sim, net, name, members, recovering, ends_of, offers))
    unattached = set(nports) - set(net.nodes)  # a virtual N_Port is attached with its port
    if unattached:
        raise ValueError(f"nodes not linked to a switch: {', '.join(sorted(unattached))}")
    net.isls, net.isl_ends = isls, ends_of
    net.fabric_of = fabrics(links)
    route(net, isls)
    directory: set[int] = set()
    registered: dict[int, frozenset[int]] = {}
    zoning = Zoning({name: frozenset(net.nodes[member].port_id for member in members)
                     for name, members in zones}) if zones else None
    if permitted is not None and zoning is not None:  # the ports hold it: filled in place
        permitted.update(zoning.permitted())
    for switch in net.switches.values():
        switch.services = FabricServices(switch, directory, registered, offers[switch.name])
        switch.services.zoning = zoning
    net.zones = zones
    net.hard_zoning = permitted is not None
    # N_Ports log in with the peers they exchange with (both ways): the work of
    # a fabric of thousands of N_Ports grows with its traffic, not its size squared;
    # an alias group is logged in with implicitly (fcsim.fc3.build)
    for a, b in pairs | {(b, a) for a, b in pairs}:
        net.nodes[a].login(net.nodes[b])
    for name, members in zones:
        if (priorities or {}).get(name) == "high":
            ids = [net.nodes[m].port_id for m in members]
            high.update((a, b) for a in ids for b in ids if a != b)
    if isolation is not None:
        assert isolated is not None
        net.cures.append(CongestionIsolation(sim, net.switches, isolated, isolation))
    net.addresses = {name: node.port_id for name, node in net.nodes.items()}
    net.flows = tuple(sorted(pairs if flows is None else flows))
    if cures.fencing is not None:
        net.cures.append(PortGuard(sim, net.switches, cures.fencing))
    if cures.ingress_limit is not None:
        net.cures.append(DynamicIngressLimit(sim, net.switches, cures.ingress_limit))
    if login:
        for name, node in net.nodes.items():
            targets = sorted({net.addresses[d] for s, d in pairs if s == name})
            shared = net.shared.get(net.virtual_of.get(name, name))
            net.logins[name] = FabricLogin(node, targets, name in net.virtual_of,
                                           None if shared is None else shared.answered,
                                           fc4_types.get(name, frozenset()))
        for name in net.nodes:
            if name in net.shared:  # the port's N_Ports log in one after another
                group = [name, *virtual[name]]
                net.shared[name].log_in([net.logins[n].start for n in group])
            elif name not in net.virtual_of:
                net.logins[name].start()
    return net


def _channelled_isl(sim: Simulation, net: FabricNetwork, link: FabricLinkSpec,
                    a: tuple[str, int], b: tuple[str, int],
                    isolated: Collection[int] | None,
                    high: Collection[tuple[int, int]]) -> dict[str, SwitchPort]:
    """The ISL *link* between switch ports *a* and *b*, each (switch, index),
    split into its virtual channels; *isolated*: the fabric's isolated
    devices (None: no congestion isolation); *high*: its high-priority
    (S_ID, D_ID) pairs. Each channel has *vc_credit*
    buffers at each end, or the port's buffers split evenly (an assumption:
    vendors set the split per platform)."""
    channels = link.virtual_channels
    assert channels is not None
    ends = {}
    ports = []
    for name, index in (a, b):
        switch = net.switches[name]
        assert isinstance(switch, VirtualChannelSwitch)
        buffers = link.vc_credit or max(1, (link.bb_credit or switch.model.bb_credit)
                                        // channels)
        ports.append((switch, index, VirtualChannelPort(sim, f"{name}:{index}", channels,
                                                        buffers)))
    pa, pb = ports[0][2], ports[1][2]
    net.links[link.name] = Link(link.name, pa, pb, link.speed, link.cable,
                                link.bit_error_rate, link.error_rates)
    pa.login(pb.channel_buffers)
    pb.login(pa.channel_buffers)
    for switch, index, port in ports:
        assignment = ChannelAssignment(channels, link.vc_assignment, isolated, high)
        ends[switch.name] = switch.add_channelled_port(index, port, assignment)
    return ends


def _attach_node(sim: Simulation, net: FabricNetwork, name: str, params: ServiceParameters,
                 switch: Switch, index: int, link: FabricLinkSpec, recovering: bool,
                 permitted: dict[int, frozenset[int]] | None = None,
                 link_timeout: float = E_D_TOV, paced: bool = False, bb_sc_n: int = 0) -> None:
    """N_Port *name* with login service parameters *params*, cabled by *link*
    to port *index* of *switch*; with *recovering*, both ports recover from
    link faults (:class:`~fcsim.fc2.recovering_port.RecoveringPort`), and lost
    credit if the N_Port and the switch's *bb_sc_n* negotiate BB_SC_N; with
    *permitted* (hard zoning), the switch port drops the frames between
    N_Ports it does not pair; *link_timeout*: the switch port's time at zero
    credit before a Link Reset, s; *paced*: the switch port's ingress can be
    rate-limited (:class:`~fcsim.fabric.ingress_limit.PacedPort`; not with
    BB_SC_N, which the scenario's checks refuse)."""
    n = negotiated_bb_sc_n(params.bb_sc_n, bb_sc_n)
    if name in net.nodes:
        raise ValueError(f"N_Port {name} has more than one link; one link per N_Port")
    node = NPort(sim, name, port_id(switch.domain, index), params,
                 port=make_port(sim, name, params.bb_credit, params.e_d_tov, recovering, n))
    net.nodes[name] = node
    buffers = link.bb_credit or switch.model.bb_credit
    if paced and n:
        raise ValueError(f"{switch.name}:{index}: ingress rate limiting with BB_SC_N")
    f_port = (make_paced_port(sim, f"{switch.name}:{index}", buffers, link_timeout, recovering)
              if paced else
              make_port(sim, f"{switch.name}:{index}", buffers, link_timeout, recovering, n))
    net.links[link.name] = Link(link.name, node.port, f_port, link.speed, link.cable,
                                link.bit_error_rate, link.error_rates)
    node.port.login(f_port.rx_buffers)
    f_port.login(params.bb_credit)
    switch.local[index] = switch.add_port(index, f_port, permitted)


def _build_trunk(sim: Simulation, net: FabricNetwork, name: str,
                 members: Sequence[FabricLinkSpec], recovering: bool,
                 ends_of: dict[str, dict[str, SwitchPort]],
                 offers: Mapping[str, int]) -> tuple[str, str, str, float]:
    """ISL trunk *name* of the *members* (the first its master; all between
    the same two switches at one speed, as the scenario's checks make sure):
    their links, and the trunk's end at each switch as one switch port,
    numbered as the master's port. Returns its FSPF adjacency."""
    (a_name, a_master), (b_name, b_master) = (split_end(e) for e in members[0].ends)
    a, b = net.switches[a_name], net.switches[b_name]
    links = []
    n = negotiated_bb_sc_n(offers[a_name], offers[b_name])
    for link in members:
        ports = dict(split_end(e) for e in link.ends)
        pa = make_port(sim, f"{a_name}:{ports[a_name]}", link.bb_credit or a.model.bb_credit,
                       E_D_TOV, recovering, n)
        pb = make_port(sim, f"{b_name}:{ports[b_name]}", link.bb_credit or b.model.bb_credit,
                       E_D_TOV, recovering, n)
        net.links[link.name] = Link(link.name, pa, pb, link.speed, link.cable,
                                    link.bit_error_rate, link.error_rates)
        links.append(net.links[link.name])
        pa.login(pb.rx_buffers)
        pb.login(pa.rx_buffers)
    trunk = net.trunks[name] = Trunk(name, a_name, b_name, links)
    ends_of[name] = {a_name: a.add_port(a_master, trunk.ends[a_name]),  # type: ignore[arg-type]
                     b_name: b.add_port(b_master, trunk.ends[b_name])}  # type: ignore[arg-type]
    master = members[0]
    cost = (master.cost if master.cost is not None
            else trunk_cost(master.speed.line_rate, len(members)))
    return (a_name, b_name, name, cost)


def _attach_virtual(sim: Simulation, net: FabricNetwork, name: str, names: Sequence[str],
                    nports: Mapping[str, ServiceParameters]) -> None:
    """The virtual N_Ports *names* (NPIV) behind N_Port *name*, on its link
    port, the k-th with N_Port ID domain / port / k."""
    physical = net.nodes[name]
    group = [physical]
    for k, v in enumerate(names, 1):
        node = NPort(sim, v, physical.port_id | k, nports[v], physical.port)
        net.nodes[v] = node
        net.virtual_of[v] = name
        group.append(node)
    net.shared[name] = SharedPort(physical.port, group)


def route(net: FabricNetwork, isls: list[tuple[str, str, str, float]],
          switches: list[str] | None = None, table: dict[Any, Any] | None = None) -> None:
    """Give every switch of *net* (or those named in *switches*) its FSPF
    routes over *isls* (those of :attr:`FabricNetwork.isls` in use); *table*:
    their next hops (:func:`fcsim.fabric.routing.next_hops`), if already
    computed."""
    ends_of = net.isl_ends
    if table is None:
        table = next_hops(net.switches, isls)
    domains = {name: sw.domain for name, sw in net.switches.items()}
    for name in net.switches if switches is None else switches:
        switch = net.switches[name]
        routes = {domains[target]: [ends_of[key][name] for key in keys]  # type: ignore[index]
                  for target, keys in table[name].items()}
        switch.set_routing(routes, chooser(switch.routing, switch_seed(switch.domain)))
