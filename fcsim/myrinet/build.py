"""Myrinet topology: hosts with LANai NICs, Myrinet switches and the cables
between them, and the source routes the NICs put in front of each packet.

Routes are shortest paths (fewest switches) between every pair of hosts,
computed here as Myrinet's host interfaces computed them from the map they
made of the network; each route is the output port at each switch on the
way. Links between switches may not close a loop: shortest paths on a loop
can deadlock wormhole packets, and the up*/down* routes Myrinet's mapper
chose to avoid that are not modelled.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import networkx as nx

from fcsim.engine.simulation import Simulation
from fcsim.link.link import CableSpec, Link
from fcsim.myrinet.nic import MyrinetNic
from fcsim.myrinet.port import MyrinetPort
from fcsim.myrinet.slack import reach
from fcsim.myrinet.switch import MyrinetSwitch
from fcsim.topology.network import LanNetwork, link_results


class MyrinetNodeConfig(Protocol):
    """What the builder reads of a node: its *name* and its NIC's IP *mtu*, bytes."""

    @property
    def name(self) -> str: ...
    @property
    def mtu(self) -> int: ...


class MyrinetSwitchConfig(Protocol):
    """What the builder reads of a switch: its *name* and *model* (a
    :class:`~fcsim.myrinet.switch.MyrinetSwitchModel`)."""

    @property
    def name(self) -> str: ...
    @property
    def model(self) -> object: ...


class MyrinetLayout(Protocol):
    """What the builder reads of a Myrinet network's description: its *nodes*,
    *links* and *switches* (:class:`fcsim.scenario.model.Scenario` is one)."""

    @property
    def nodes(self) -> Sequence[MyrinetNodeConfig]: ...
    @property
    def links(self) -> Sequence[CableSpec]: ...
    @property
    def switches(self) -> Sequence[MyrinetSwitchConfig]: ...


@dataclass
class MyrinetNetwork(LanNetwork):
    """NICs (by node name), Myrinet switches (by name) and links."""

    nodes: dict[str, MyrinetNic] = field(default_factory=dict)  # type: ignore[assignment]
    switches: dict[str, MyrinetSwitch] = field(default_factory=dict)  # type: ignore[assignment]

    def results(self, interval: float) -> dict[str, Any]:
        """Links (with the STOPs each transmitter received and the time they held
        it), NICs and switches over *interval* s."""
        links = link_results(self.links, interval)
        for name, link in self.links.items():
            for port in link.ports:
                direction = links[name]["directions"][link.direction_name(port)]
                direction["stops"] = port.stats.stops_rx
                direction["stopped_s"] = port.stats.stopped_time
        nodes = {name: {"address": nic.address, "mtu": nic.mtu, **nic.stats.as_dict(),
                        **({"link_down_drops": nic.link_down_drops} if nic.link_down_drops
                           else {})}
                 for name, nic in self.nodes.items()}
        return {"links": links, "nodes": nodes,
                "switches": {name: sw.results() for name, sw in self.switches.items()}}


def build_myrinet(sim: Simulation, scenario: MyrinetLayout) -> MyrinetNetwork:
    """Build the NICs, switches, links and routes of *scenario* (``topology =
    "myrinet"``); node *i* (from 0) gets Myrinet address *i* + 1."""
    net = MyrinetNetwork()
    for i, node in enumerate(scenario.nodes):
        net.nodes[node.name] = MyrinetNic(sim, node.name, i + 1, node.mtu)
    for s in scenario.switches:
        net.switches[s.name] = MyrinetSwitch(sim, s.name, s.model)  # type: ignore[arg-type]
    for link in scenario.links:
        a, b = (_port(net, end) for end in link.ends)
        for receiver in (a, b):
            if receiver.buffer.stop is not None and link.cable.delay > reach(
                    receiver.buffer.size, receiver.buffer.stop, link.speed.char_time):
                raise ValueError(f"link {link.name}: the slack buffer of {receiver.name} "
                                 "cannot hold what a STOP leaves on a cable this long")
        net.links[link.name] = Link(link.name, a, b, link.speed, link.cable)
    _route(net)
    return net


def _port(net: MyrinetNetwork, end: str) -> MyrinetPort:
    switch, sep, number = end.partition(":")
    return net.switches[switch].ports[int(number)] if sep else net.nodes[end].port


def _route(net: MyrinetNetwork) -> None:
    """Give every NIC the shortest route to every other host it can reach."""
    graph = nx.MultiGraph()
    owner = {}
    for name, nic in net.nodes.items():
        owner[nic.port] = (name, None)
    for name, switch in net.switches.items():
        for i, port in enumerate(switch.ports):
            owner[port] = (name, i)
    for link in net.links.values():
        (a, out_a), (b, out_b) = owner[link.a], owner[link.b]
        if graph.has_node(a) and graph.has_node(b) and nx.has_path(graph, a, b):
            raise ValueError(f"link {link.name} closes a loop; routes would be shortest "
                             "paths, which can deadlock wormhole packets on a loop")
        graph.add_edge(a, b, ports={a: out_a, b: out_b})
    for name, nic in net.nodes.items():
        paths = nx.single_source_shortest_path(graph, name)
        for other, path in paths.items():
            if other == name or other not in net.nodes:
                continue
            hops = zip(path[1:-1], path[2:], strict=False)
            nic.routes[net.nodes[other].address] = tuple(
                next(iter(graph.get_edge_data(here, there).values()))["ports"][here]
                for here, there in hops)
