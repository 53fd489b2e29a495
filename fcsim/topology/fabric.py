"""Switched fabric topology: N_Ports on switches, switches joined by ISLs.

Link ends name a node or a switch port as ``"switch:port"``. Each switch gets
a domain (given, or 1, 2, ... in order); an N_Port on switch port p gets the
N_Port ID domain / p / 00. Routes between switches come from
:func:`fcsim.fabric.routing.next_hops`; each switch chooses among equal-cost
ISLs by its routing policy (:func:`fcsim.fabric.routing.chooser`). Each
N_Port's BB credit towards its F_Port is the switch model's, the switch's
towards the N_Port is the node's. With ``run.login``
each N_Port logs in frame by frame at start (:mod:`fcsim.fabric.login`) and
its workloads wait for that; otherwise logins take no time. A node with
several N_Ports (``ports``) is cabled once per N_Port (:mod:`fcsim.fc3.ports`);
FC-3 alias groups are built in by :func:`fcsim.fc3.fabric.install_aliases`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from fcsim.engine.simulation import Simulation
from fcsim.fabric.addressing import port_id
from fcsim.fabric.login import FabricLogin
from fcsim.fabric.routing import balance, chooser, fspf_cost, next_hops, switch_seed
from fcsim.fabric.services import E_D_TOV, FabricServices
from fcsim.fabric.switch import Switch
from fcsim.fabric.switch_port import SwitchPort
from fcsim.fabric.zoning import Zoning
from fcsim.fc2.nport import NPort
from fcsim.fc2.recovering_port import make_port
from fcsim.fc3.fabric import AliasRouter, install_aliases
from fcsim.fc3.ports import ports_of
from fcsim.fc3.striping import stripe_pairs
from fcsim.link.link import Link
from fcsim.scenario.model import LinkConfig, Scenario, SwitchConfig
from fcsim.scenario.workload_model import exchanging_pairs
from fcsim.topology.network import Network


class FabricNetwork(Network):
    """A built fabric: N_Ports, links and switches by name, the timed fabric
    login of each N_Port (with ``run.login``), and the ISLs, each as (switch,
    switch, link name, FSPF cost) with its switch port at each end by switch
    name (:attr:`isl_ends`); its *zones*, each (name, N_Port names)."""

    def __init__(self) -> None:
        super().__init__()
        self.switches: dict[str, Switch] = {}
        self.addresses: dict[str, int] = {}
        self.aliases: AliasRouter | None = None
        self.logins: dict[str, FabricLogin] = {}
        self.isls: list[tuple[str, str, str, float]] = []
        self.isl_ends: dict[str, dict[str, SwitchPort]] = {}
        self.zones: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def address_of(self, node: str) -> int:
        """The N_Port ID the fabric gives *node* (domain / port / 00), or the
        Alias_ID of an alias group."""
        return self.addresses[node]

    def not_up(self) -> str | None:
        """Why the fabric is not usable yet: logins, then alias groups joining."""
        why = super().not_up()
        return why if why is not None or self.aliases is None else self.aliases.not_up()

    def up_at(self) -> float:
        """When every N_Port had logged in and every alias group was joined, s."""
        up = super().up_at()
        return up if self.aliases is None else max(up, self.aliases.up_at())

    def reset_stats(self) -> None:
        """Start a new measurement interval for ports, N_Ports, switches and groups."""
        super().reset_stats()
        for switch in self.switches.values():
            switch.reset_stats()
        if self.aliases is not None:
            self.aliases.reset_stats()

    def results(self, interval: float) -> dict[str, Any]:
        """Per link direction, N_Port and switch figures over *interval* s."""
        out = super().results(interval)
        out["login_s"] = {name: node.ready_at for name, node in self.nodes.items()}
        out["switches"] = {
            name: {"domain": sw.domain, "model": sw.model.name,
                   "frames_forwarded": sw.stats.forwarded, "f_bsy": sw.stats.f_bsy,
                   "f_rjt": sw.stats.f_rjt, "discarded": sw.stats.discarded,
                   "discarded_payload": sw.stats.discarded_payload,
                   "refused_payload": sw.stats.refused_payload, "errors": sw.stats.errors,
                   "output_queues": {str(index): sp.queue.results(sw.sim.now)
                                     for index, sp in sorted(sw.ports.items())}}
            for name, sw in self.switches.items()}
        if self.aliases is not None:
            out["fc3"] = self.aliases.results(interval)
        if self.zones:
            out["zoning"] = self._zoning()
        out["routing"] = self._routing(out["links"])
        return out

    def _routing(self, links: dict[str, Any]) -> dict[str, Any]:
        """Each switch's routing policy and its equal-cost groups: per switch,
        each set of two or more next hops some destination domains share, with
        the load of each ISL direction leaving by it (utilisation, frames,
        share of the group's mean) and how evenly it falls (:func:`balance`)."""
        isl_of = {(switch, sp.index): name for name, ends in self.isl_ends.items()
                  for switch, sp in ends.items()}
        groups = []
        for name, switch in self.switches.items():
            domains_of: dict[tuple[int, ...], list[int]] = {}
            for domain, hops in sorted(switch.routes.items()):
                if len(hops) > 1:
                    domains_of.setdefault(tuple(sp.index for sp in hops), []).append(domain)
            for indices, domains in domains_of.items():
                members = []
                for index in indices:
                    link = isl_of[(name, index)]
                    direction = next(d for key, d in links[link]["directions"].items()
                                     if key.startswith(f"{switch.ports[index].port.name}->"))
                    members.append({"isl": link, "port": index,
                                    "utilisation": direction["utilisation"],
                                    "frames": direction["frames"]})
                even = balance([m["utilisation"] for m in members])
                for m in members:
                    m["share"] = m["utilisation"] / even["mean"] if even["mean"] > 0 else 0.0
                groups.append({"switch": name, "policy": switch.routing, "domains": domains,
                               "isls": members, "balance": even})
        return {"policies": {name: sw.routing for name, sw in self.switches.items()},
                "groups": groups}

    def _zoning(self) -> dict[str, Any]:
        """The zones and, per N_Port, the others its name server shows it."""
        sharing = {name: {m for _, members in self.zones if name in members for m in members}
                   for name in self.nodes}
        return {"zones": {name: list(members) for name, members in self.zones},
                "visible": {name: sorted(others - {name}) for name, others in sharing.items()}}


def assign_domains(switches: Iterable[SwitchConfig]) -> dict[str, int]:
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


def build_fabric(sim: Simulation, scenario: Scenario) -> FabricNetwork:
    """Build the switches, N_Ports and links of *scenario* and route the fabric."""
    net = FabricNetwork()
    recovering = bool(scenario.faults)  # every port recovers from link faults
    domains = assign_domains(scenario.switches)
    for config in scenario.switches:
        net.switches[config.name] = Switch(sim, config.name, domains[config.name],
                                           config.model, config.routing)
    node_configs = {n.name: n for n in scenario.nodes}
    port_configs = {port: node_configs[node] for port, node in ports_of(scenario.nodes).items()}
    isls: list[tuple[str, str, str, float]] = []
    ends_of: dict[str, dict[str, SwitchPort]] = {}
    for link in scenario.links:
        (a_name, a_port), (b_name, b_port) = (split_end(e) for e in link.ends)
        if a_port is None and b_port is None:
            raise ValueError(f"link {link.name}: a fabric link needs a switch port at one end")
        if a_port is None or b_port is None:
            node, (sw_name, index) = ((a_name, (b_name, b_port)) if a_port is None
                                      else (b_name, (a_name, a_port)))
            _attach_node(sim, net, node, port_configs[node], net.switches[sw_name], index, link,
                         recovering)
        else:
            a, b = net.switches[a_name], net.switches[b_name]
            pa = make_port(sim, f"{a_name}:{a_port}", link.bb_credit or a.model.bb_credit,
                           E_D_TOV, recovering)
            pb = make_port(sim, f"{b_name}:{b_port}", link.bb_credit or b.model.bb_credit,
                           E_D_TOV, recovering)
            net.links[link.name] = Link(link.name, pa, pb, link.speed, link.cable,
                                        link.bit_error_rate, link.error_rates)
            pa.login(pb.rx_buffers)
            pb.login(pa.rx_buffers)
            ends_of[link.name] = {a_name: a.add_port(a_port, pa), b_name: b.add_port(b_port, pb)}
            cost = link.cost if link.cost is not None else fspf_cost(link.speed.baud)
            isls.append((a_name, b_name, link.name, cost))
    unattached = set(port_configs) - set(net.nodes)
    if unattached:
        raise ValueError(f"nodes not linked to a switch: {', '.join(sorted(unattached))}")
    net.isls, net.isl_ends = isls, ends_of
    route(net, isls)
    directory: set[int] = set()
    zoning = Zoning({name: frozenset(net.nodes[member].port_id for member in members)
                     for name, members in scenario.zones}) if scenario.zones else None
    for switch in net.switches.values():
        switch.services = FabricServices(switch, directory)
        switch.services.zoning = zoning
    net.zones = scenario.zones
    # N_Ports log in with the peers they exchange with (both ways): the work of
    # a fabric of thousands of N_Ports grows with its traffic, not its size squared;
    # an alias group is logged in with implicitly (fcsim.fc3.fabric)
    pairs = {(s, d) for w in scenario.workloads for s, d in exchanging_pairs(w)
             if d in net.nodes} | stripe_pairs(scenario.workloads)
    pairs |= set(scenario.peers)
    for a, b in pairs | {(b, a) for a, b in pairs}:
        net.nodes[a].login(net.nodes[b])
    net.addresses = {name: node.port_id for name, node in net.nodes.items()}
    if scenario.run.login:
        for name, node in net.nodes.items():
            targets = sorted({net.addresses[d] for s, d in pairs if s == name})
            net.logins[name] = FabricLogin(node, targets)
            net.logins[name].start()
    if scenario.alias_groups:
        net.aliases = install_aliases(sim, scenario, net)
    return net


def _attach_node(sim: Simulation, net: FabricNetwork, name: str, config: Any, switch: Switch,
                 index: int, link: LinkConfig, recovering: bool) -> None:
    """N_Port *name* of the node *config*, cabled by *link* to port *index* of
    *switch*; with *recovering*, both ports recover from link faults."""
    if name in net.nodes:
        raise ValueError(f"N_Port {name} has more than one link; one link per N_Port")
    params = config.params
    node = NPort(sim, name, port_id(switch.domain, index), params,
                 port=make_port(sim, name, params.bb_credit, params.e_d_tov, recovering))
    net.nodes[name] = node
    f_port = make_port(sim, f"{switch.name}:{index}", link.bb_credit or switch.model.bb_credit,
                       E_D_TOV, recovering)
    net.links[link.name] = Link(link.name, node.port, f_port, link.speed, link.cable,
                                link.bit_error_rate, link.error_rates)
    node.port.login(f_port.rx_buffers)
    f_port.login(config.params.bb_credit)
    switch.local[index] = switch.add_port(index, f_port)


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
