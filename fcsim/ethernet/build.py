"""Ethernet topology: hosts with NICs, Ethernet switches and the cables between
them (host to host, host to switch port, switch port to switch port, also
two ports of one switch: a loop-back that bridges two VLANs); a cable is
between access ports or an 802.1Q trunk."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from fcsim.engine.simulation import Simulation
from fcsim.ethernet.checks import loop_in_a_vlan
from fcsim.ethernet.nic import Nic
from fcsim.ethernet.port import EthernetPort
from fcsim.ethernet.switch import EthernetSwitch, Trunk
from fcsim.link.link import Link, LinkSpec
from fcsim.topology.network import LanNetwork, link_results

MAC_BASE = 0x020000000000
"""Locally administered MACs: node *i* (from 0) gets MAC_BASE + i + 1."""


class EthernetNodeConfig(Protocol):
    """What the builder reads of a node: its *name*, its NIC's IP *mtu* (bytes)
    and the *vlan* it tags its frames with (None: untagged)."""

    @property
    def name(self) -> str: ...
    @property
    def mtu(self) -> int: ...
    @property
    def vlan(self) -> int | None: ...


class EthernetLinkConfig(LinkSpec, Protocol):
    """What the builder reads of a cable: *name*, *ends* (node names or
    ``switch:port``), *speed*, *cable*, bit error rates (*bit_error_rate*, and
    *error_rates* per sending end), the access *vlans* of its switch-port ends,
    or the VLANs of a *trunk* and its *native_vlan*."""

    @property
    def vlans(self) -> tuple[int, ...]: ...
    @property
    def trunk(self) -> tuple[int, ...]: ...
    @property
    def native_vlan(self) -> int | None: ...


class EthernetSwitchConfig(Protocol):
    """What the builder reads of a switch: its *name*, *model* (an
    :class:`~fcsim.ethernet.switch.EthernetSwitchModel`) and whether it
    sends 802.3x *pause*."""

    @property
    def name(self) -> str: ...
    @property
    def model(self) -> object: ...
    @property
    def pause(self) -> bool: ...


class EthernetLayout(Protocol):
    """What the builder reads of an Ethernet network's description: its
    *nodes*, *links* and *switches* (:class:`fcsim.scenario.model.Scenario`
    is one)."""

    @property
    def nodes(self) -> Sequence[EthernetNodeConfig]: ...
    @property
    def links(self) -> Sequence[EthernetLinkConfig]: ...
    @property
    def switches(self) -> Sequence[EthernetSwitchConfig]: ...


@dataclass
class EthernetNetwork(LanNetwork):
    """NICs (by node name), Ethernet switches (by name) and links."""

    nodes: dict[str, Nic] = field(default_factory=dict)  # type: ignore[assignment]
    switches: dict[str, EthernetSwitch] = field(default_factory=dict)  # type: ignore[assignment]

    def results(self, interval: float) -> dict[str, Any]:
        """Links, NICs and switches over *interval* s."""
        nodes = {name: {"mac": f"{nic.mac:012x}", "mtu": nic.mtu, **nic.stats.as_dict(),
                        **({"link_down_drops": nic.link_down_drops} if nic.link_down_drops
                           else {})}
                 for name, nic in self.nodes.items()}
        return {"links": link_results(self.links, interval), "nodes": nodes,
                "switches": {name: sw.results() for name, sw in self.switches.items()}}


def build_ethernet(sim: Simulation, scenario: EthernetLayout) -> EthernetNetwork:
    """Build the NICs, switches and links of *scenario* (``topology = "ethernet"``)."""
    net = EthernetNetwork()
    for i, node in enumerate(scenario.nodes):
        net.nodes[node.name] = Nic(sim, node.name, MAC_BASE + i + 1, node.mtu, vlan=node.vlan)
    vlans: dict[str, dict[int, int]] = {s.name: {} for s in scenario.switches}
    trunks: dict[str, dict[int, Trunk]] = {s.name: {} for s in scenario.switches}
    for link in scenario.links:
        ports = [end for end in link.ends if ":" in end]
        for end, vlan in zip(ports, link.vlans or (1,) * len(ports), strict=True):
            switch, _, number = end.partition(":")
            if link.trunk:
                trunks[switch][int(number)] = (link.native_vlan, frozenset(link.trunk))
            else:
                vlans[switch][int(number)] = vlan
    for s in scenario.switches:
        net.switches[s.name] = EthernetSwitch(sim, s.name, s.model,  # type: ignore[arg-type]
                                              vlans[s.name], s.pause, trunks[s.name])
    for link in scenario.links:
        a, b = (_port(net, end) for end in link.ends)
        net.links[link.name] = Link(link.name, a, b, link.speed, link.cable,
                                    link.bit_error_rate, link.error_rates)
    _check_no_loop(scenario)
    return net


def _port(net: EthernetNetwork, end: str) -> EthernetPort:
    switch, sep, number = end.partition(":")
    return net.switches[switch].ports[int(number)] if sep else net.nodes[end].port


def _check_no_loop(scenario: EthernetLayout) -> None:
    """Refuse a loop within a VLAN: with no spanning tree, flooding would circle."""
    index = loop_in_a_vlan(((link.ends, link.vlans, link.trunk, link.native_vlan)
                            for link in scenario.links), {n.name: n.vlan for n in scenario.nodes})
    if index is not None:
        raise ValueError(f"link {scenario.links[index].name} closes a loop in a VLAN; without "
                         "a spanning tree frames would be flooded round it")
