"""Several networks in one scenario (``topology = "internetwork"``): each built
by its own technology's builder, hosts with an interface on each network they
are on, as a data mover with a Gigabit Ethernet NIC towards its clients and an
FC adapter towards its storage.

A node on one network keeps its name as its port's name; a node on several has
a port per network named ``node@network``, so that every port of the
internetwork has its own name in results, traces and captures.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from fcsim.engine.simulation import Simulation
from fcsim.host.routes import network_between
from fcsim.topology.network import Network


class InternetworkNode(Protocol):
    """What the builder reads of a node: its *name* (on a network it is on
    with others, ``node@network``) and its static *routes*, (peer node,
    network name) pairs."""

    @property
    def name(self) -> str: ...
    @property
    def routes(self) -> tuple[tuple[str, str], ...]: ...


class MemberNetwork(Protocol):
    """What the builder reads of one network: its *name*, *topology* (the key
    of its builder) and its *nodes*, the ports of the hosts on it; the whole
    description is handed to that builder."""

    @property
    def name(self) -> str: ...
    @property
    def topology(self) -> str: ...
    @property
    def nodes(self) -> Sequence[InternetworkNode]: ...


class InternetworkLayout(Protocol):
    """What the builder reads of an internetwork's description: its *networks*
    and its *nodes* (:class:`fcsim.scenario.model.Scenario` is one)."""

    @property
    def networks(self) -> Sequence[MemberNetwork]: ...
    @property
    def nodes(self) -> Sequence[InternetworkNode]: ...


class Internetwork(Network):
    """The built *networks* by name, of the *topologies* named; *attached* lists
    each node's ports as (network name, port name), in the order the networks
    are given; *routes* gives each node's static routes, peer node -> network
    name."""

    def __init__(self, networks: dict[str, Network], topologies: dict[str, str],
                 attached: dict[str, list[tuple[str, str]]],
                 routes: dict[str, dict[str, str]]) -> None:
        super().__init__()
        self.networks, self.topologies = networks, topologies
        self.attached, self.routes = attached, routes
        for net in networks.values():
            self.links.update(net.links)
        self.switches: dict[str, Any] = {name: switch for net in networks.values()
                                         for name, switch in getattr(net, "switches", {}).items()}

    def attachments(self, node: str) -> list[tuple[Any, str]]:
        """*node*'s link-level ports with the name of the network of each."""
        return [(self.networks[network].nodes[port], network)
                for network, port in self.attached[node]]

    def route(self, source: str, destination: str,
              fibre_channel: bool = False) -> tuple[Any, int]:
        """*source*'s port towards *destination* and *destination*'s address on
        the network :func:`network_between` chooses."""
        mine, theirs = dict(self.attached[source]), dict(self.attached[destination])
        network = network_between(list(mine), list(theirs), self.topologies,
                                  self.routes.get(source, {}).get(destination), fibre_channel)
        if network is None:
            raise ValueError(f"no network joins {source} to {destination}")
        net = self.networks[network]
        return net.nodes[mine[network]], net.address_of(theirs[network])

    def ports(self) -> list[Any]:
        """Every link-level port of every network."""
        return [port for net in self.networks.values() for port in net.ports()]

    def not_up(self) -> str | None:
        """Why a network is not usable yet (the first that is not), or None."""
        for name, net in self.networks.items():
            why = net.not_up()
            if why is not None:
                return f"network {name}: {why}"
        return None

    def up_at(self) -> float:
        """When the last network became usable, s."""
        return max(net.up_at() for net in self.networks.values())

    def reset_stats(self) -> None:
        """Start a new measurement interval on every network."""
        for net in self.networks.values():
            net.reset_stats()

    def results(self, interval: float) -> dict[str, Any]:
        """Every link, and each network's own figures under ``networks`` (its
        links there by name only)."""
        links, networks = {}, {}
        for name, net in self.networks.items():
            figures = net.results(interval)
            links.update(figures["links"])
            networks[name] = {"topology": self.topologies[name], **figures,
                              "links": list(figures["links"])}
        return {"links": links, "nodes": {}, "networks": networks}


def build_internetwork(sim: Simulation, scenario: InternetworkLayout,
                       builders: dict[str, Callable[[Simulation, Any], Network]]
                       ) -> Internetwork:
    """Build each network of *scenario* with the builder of its topology (by
    topology name: (simulation, the network's description) -> network)."""
    networks = {sub.name: builders[sub.topology](sim, sub) for sub in scenario.networks}
    attached: dict[str, list[tuple[str, str]]] = {}
    for sub in scenario.networks:
        for node in sub.nodes:
            attached.setdefault(node.name.partition("@")[0], []).append((sub.name, node.name))
    routes = {node.name: dict(node.routes) for node in scenario.nodes if node.routes}
    return Internetwork(networks, {sub.name: sub.topology for sub in scenario.networks},
                        attached, routes)
