"""The tables of an internetwork (``topology = "internetwork"``): the nodes once,
then each network with its own topology, links and switches. A node is on
the networks whose links (or loop) name it; a host gets an interface on each."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from fcsim.ethernet.config import (
    EthernetLinkSection,
    EthernetNodeSection,
    EthernetSwitchSection,
    Mtu,
    VlanId,
)
from fcsim.loop.config import LoopSection
from fcsim.myrinet.config import MyrinetLinkSection, MyrinetSwitchSection
from fcsim.scenario.sections.links import FabricLinkSection, LinkSection, SwitchSection
from fcsim.scenario.sections.nodes import LoopNodeSection, PortId
from fcsim.schema.fields import Name, table, tables, value_type
from fcsim.schema.section import Section, key


def _routes(value: Any) -> tuple[tuple[str, str], ...]:
    if not (isinstance(value, dict) and all(isinstance(v, str) and v.strip()
                                            for v in value.values())):
        raise ValueError()
    return tuple(value.items())


def _buses(value: Any) -> tuple[tuple[str, int], ...]:
    if not (isinstance(value, dict) and all(
            isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value.values())):
        raise ValueError()
    return tuple(value.items())


Buses = value_type(tuple, _buses, "a table of network name = bus index (0, 1, ...) such as "
                   "{ lan = 0, san = 1 }", {"type": "object",
                                            "additionalProperties": {"type": "integer",
                                                                     "minimum": 0}})
Routes = value_type(tuple, _routes, "a table of peer node = network name such as "
                    "{ disk = 'san' }", {"type": "object",
                                         "additionalProperties": {"type": "string",
                                                                  "minLength": 1}})


class InternetworkNodeSection(LoopNodeSection):
    """A node of an internetwork: a host, an FCP target or a bare N_Port, on
    every network whose links (or loop order) name it. Its keys are those of
    a node of each kind of network; a key applies to the node's port on a
    network of the kind that has it (the FC login keys to its N_Ports, `mtu`
    to its NICs, the loop keys to its NL_Port, `port_id` on a point-to-point
    link) and must fit at least one network the node is on."""

    where = "in [[nodes]] of an internetwork"

    port_id: PortId = key(None, "Its N_Port ID on a point-to-point network (default: "
                          "0x000001 for the first node of the link, 0x000002 for the "
                          "second).", "0x010200")
    mtu: Mtu = key(1500, "The IP MTU of its Ethernet or Myrinet NIC, bytes (Ethernet: 1500 "
                   "standard, up to 9000 with jumbo frames; Myrinet's GM driver gives IP "
                   "9000).", 9000)
    vlan: VlanId = key(None, EthernetNodeSection.model_fields["vlan"].description or "", 10)
    routes: Routes = key(None, "Static host routes: for a peer node, the network to reach it "
                         "through (default: the first network, in [[networks]] order, that "
                         "both are on).", {"disk": "san"})
    buses: Buses = key(None, "Which of its host's I/O buses (the host model's buses, "
                       "numbered from 0) the card on each network sits on: its NIC on an "
                       "Ethernet network, its FC adapter on a Fibre Channel one (default: "
                       "bus 0 for every card, and always for disk channels).",
                       {"lan": 0, "san": 1})


_LINKS = "an array of tables, written [[networks.links]]"
Links = tables(LinkSection, _LINKS)
FabricLinks = tables(FabricLinkSection, _LINKS)
Switches = tables(SwitchSection, "at least one [[networks.switches]] table", 1)
Loop = table(LoopSection, "a table, written [networks.loop]")
EthernetLinks = tables(EthernetLinkSection, _LINKS)
EthernetSwitches = tables(EthernetSwitchSection,
                          "an array of tables, written [[networks.switches]]")
MyrinetLinks = tables(MyrinetLinkSection, _LINKS)
MyrinetSwitches = tables(MyrinetSwitchSection,
                         "an array of tables, written [[networks.switches]]")


class _Network(Section):
    """Keys of every network of an internetwork."""

    name: Name = key(help="The network's name, unique among networks.", example="san")
    topology: str = key(help="How its nodes and links are built.")


class PointToPointNetwork(_Network):
    """Two nodes joined by one Fibre Channel link."""

    where = "in [[networks]] with topology = 'point-to-point'"

    topology: Literal["point-to-point"] = key(help="Exactly 2 nodes and 1 link.")
    links: Links = key(help="The one link.")


class FabricNetwork(_Network):
    """A Fibre Channel fabric: nodes on switch ports, switches joined by ISLs."""

    where = "in [[networks]] with topology = 'fabric'"

    topology: Literal["fabric"] = key(help="A switched fabric.")
    switches: Switches = key(help="The FC switches.")
    links: FabricLinks = key(help="Node-to-switch links and inter-switch links.")


class LoopNetwork(_Network):
    """An arbitrated loop; its `order` names the nodes on it."""

    where = "in [[networks]] with topology = 'loop'"

    topology: Literal["loop"] = key(help="An arbitrated loop.")
    loop: Loop = key(help="The ring; its order names the nodes on the loop.")


class EthernetNetwork(_Network):
    """An Ethernet network: NICs, Ethernet switches and cables."""

    where = "in [[networks]] with topology = 'ethernet'"

    topology: Literal["ethernet"] = key(help="An Ethernet network.")
    switches: EthernetSwitches = key([], "The Ethernet switches (default: none).")
    links: EthernetLinks = key(help="The cables.")


class MyrinetNetwork(_Network):
    """A Myrinet network: LANai NICs, Myrinet switches and cables."""

    where = "in [[networks]] with topology = 'myrinet'"

    topology: Literal["myrinet"] = key(help="A Myrinet network.")
    switches: MyrinetSwitches = key([], "The Myrinet switches (default: none).")
    links: MyrinetLinks = key(help="The cables.")


NETWORKS: dict[str, type[_Network]] = {"point-to-point": PointToPointNetwork,
                                       "fabric": FabricNetwork, "loop": LoopNetwork,
                                       "ethernet": EthernetNetwork, "myrinet": MyrinetNetwork}
"""Each network ``topology`` of an internetwork and its table."""
Network = Annotated[PointToPointNetwork | FabricNetwork | LoopNetwork | EthernetNetwork
                    | MyrinetNetwork, Field(discriminator="topology")]
"""One ``[[networks]]`` table, of the kind its ``topology`` names."""
