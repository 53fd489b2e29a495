"""A whole scenario file: the top-level keys, one model per topology, chosen by
the ``topology`` key."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, TypeAdapter

from fcsim.ethernet.config import (
    EthernetLinkSection,
    EthernetNodeSection,
    EthernetSwitchSection,
)
from fcsim.fabric.config import (
    CongestionSection,
    FpinSection,
    FspfSection,
    ZoneSection,
    ZoningSection,
)
from fcsim.faults.config import ScheduledFaultSection
from fcsim.fc3.config import AliasGroup
from fcsim.loop.config import LoopSection
from fcsim.myrinet.config import MyrinetLinkSection, MyrinetSwitchSection
from fcsim.scenario.sections.apps import IperfSection, NetperfSection
from fcsim.scenario.sections.fabric import FabricSection
from fcsim.scenario.sections.internetwork import InternetworkNodeSection, Network
from fcsim.scenario.sections.links import FabricLinkSection, LinkSection, SwitchSection
from fcsim.scenario.sections.myrinet_nodes import MyrinetNodeSection
from fcsim.scenario.sections.nodes import FabricNodeSection, LoopNodeSection, NodeSection
from fcsim.scenario.sections.run import RunSection
from fcsim.scenario.sections.transfer import TransferSection
from fcsim.scenario.sections.workloads import Workload
from fcsim.schema.fields import Expects, Name, Text, table, tables
from fcsim.schema.section import Section, key
from fcsim.trapeze.config import FaultSection, SliceDdSection

TOPOLOGY_NAMES = ("point-to-point", "fabric", "loop", "ethernet", "myrinet", "internetwork")
"""The values of ``topology``."""
Run = table(RunSection, "a table, written [run]")
Workloads = tables(Workload, "an array of tables, written [[workloads]]")
Links = tables(LinkSection, "an array of tables, written [[links]]")
FabricLinks = tables(FabricLinkSection, "an array of tables, written [[links]]")
Switches = tables(SwitchSection, "an array of tables, written [[switches]]")
Loop = table(LoopSection, "a table, written [loop]")
_NODES = "an array of tables, written [[nodes]]"
Nodes = tables(NodeSection, _NODES)
FabricNodes = tables(FabricNodeSection, _NODES)
LoopNodes = tables(LoopNodeSection, _NODES)
EthernetNodes = tables(EthernetNodeSection, _NODES)
HostWorkloads = tables(Annotated[NetperfSection | IperfSection | TransferSection,
                                 Field(discriminator="type")],
                       "an array of tables, written [[workloads]]")
EthernetLinks = tables(EthernetLinkSection, "an array of tables, written [[links]]")
EthernetSwitches = tables(EthernetSwitchSection, "an array of tables, written [[switches]]")
MyrinetNodes = tables(MyrinetNodeSection, _NODES)
MyrinetWorkloads = tables(Annotated[NetperfSection | IperfSection | TransferSection
                                    | SliceDdSection | FaultSection,
                                    Field(discriminator="type")],
                          "an array of tables, written [[workloads]]")
MyrinetLinks = tables(MyrinetLinkSection, "an array of tables, written [[links]]")
MyrinetSwitches = tables(MyrinetSwitchSection, "an array of tables, written [[switches]]")
InternetworkNodes = tables(InternetworkNodeSection, _NODES)
Networks = tables(Network, "at least one [[networks]] table", 1)
_NO_SWITCHES = "no [[switches]] outside topology = 'fabric', 'ethernet' or 'myrinet'"
_NO_LOOP = "no [loop] outside topology = 'loop'"
_NO_ALIASES = ("no [[alias_groups]] outside topology = 'fabric': hunt groups and multicast "
               "are routed by a fabric's switches")
_NO_FABRIC = "no [fabric] outside topology = 'fabric': it generates switches of a fabric"
Generated = table(FabricSection, "a table, written [fabric]")
AliasGroups = tables(AliasGroup, "an array of tables, written [[alias_groups]]")
Faults = tables(ScheduledFaultSection, "an array of tables, written [[faults]]")
Zones = tables(ZoneSection, "an array of tables, written [[zones]]")
_NO_ZONES = "no [[zones]] outside topology = 'fabric': the name server zones N_Ports"
Fspf = table(FspfSection, "a table, written [fspf]")
_NO_FSPF = "no [fspf] outside topology = 'fabric': FSPF routes between a fabric's switches"
ZoningTable = table(ZoningSection, "a table, written [zoning]")
_NO_ZONING = "no [zoning] outside topology = 'fabric': a fabric's switches enforce zones"
CongestionTable = table(CongestionSection, "a table, written [congestion]")
_NO_CONGESTION = ("no [congestion] outside topology = 'fabric': a fabric's switches apply "
                  "the cures")
FpinTable = table(FpinSection, "a table, written [fpin]")
_NO_FPIN = "no [fpin] outside topology = 'fabric': a fabric's switches send FPINs"
_FAULTS_HELP = "The fault schedule (default: none; docs/faults.md)."
_FAULTS_EXAMPLE = {"at": "5 ms", "kind": "link-down", "link": "fibre"}
_NO_FAULTS = ("no [[faults]] outside topology = 'point-to-point', 'fabric', 'loop', "
              "'ethernet' or 'myrinet': faults are modelled within one network")


class _Scenario(Section):
    """Keys of every scenario file."""

    where = "at the top level"

    name: Name = key(None, "The scenario's name (default: the file name without .toml).",
                     "1GFC class 3")
    description: Text = key("", "What the scenario shows.", "host writes to disk over 1 km")
    topology: Annotated[str, Expects("one of " + ", ".join(map(repr, TOPOLOGY_NAMES)))] = key(
        help="How the nodes and links are built.")
    run: Run = key(help="How long to simulate and how often.")
    workloads: Workloads = key([], "The traffic (default: none, idle links).")


class PointToPointScenario(_Scenario):
    """Two nodes joined by one link."""

    elsewhere = {"switches": _NO_SWITCHES, "loop": _NO_LOOP, "alias_groups": _NO_ALIASES,
                 "fabric": _NO_FABRIC, "zones": _NO_ZONES, "fspf": _NO_FSPF,
                 "zoning": _NO_ZONING, "congestion": _NO_CONGESTION, "fpin": _NO_FPIN}

    topology: Literal["point-to-point"] = key(help="Exactly 2 nodes and 1 link joining them.")
    nodes: Nodes = key(
        help="The two nodes.")
    links: Links = key(help="The one link.")
    faults: Faults = key([], _FAULTS_HELP, [_FAULTS_EXAMPLE])


class FabricScenario(_Scenario):
    """Nodes on switch ports, switches joined by inter-switch links (any graph).
    Every node has exactly one link, to a switch port; a link between two switch
    ports is an inter-switch link (ISL)."""

    elsewhere = {"loop": _NO_LOOP}

    topology: Literal["fabric"] = key(help="A switched fabric of one or more switches.")
    switches: Switches = key([], "The switches, at least one unless [fabric] generates "
                             "them.")
    nodes: FabricNodes = key([], "The nodes, each on a switch port (default: none; [fabric] "
                             "appends its own).")
    links: FabricLinks = key([], "Node-to-switch links and inter-switch links (default: none; "
                       "[fabric] appends its own).")
    alias_groups: AliasGroups = key(
        [], "FC-3 hunt groups and multicast groups (default: none).")
    fabric: Generated = key(None, "A fabric generated from a few counts (core-edge, full "
                            "mesh, fat tree), its switches, nodes and links appended to any "
                            "listed (then [[switches]], [[nodes]] and [[links]] may be left "
                            "out).", {"kind": "core-edge", "switches": 12, "cores": 2,
                                      "model": "generic-nonblocking",
                                      "nodes_per_switch": 8, "speed": "4GFC"})
    faults: Faults = key([], _FAULTS_HELP, [{"at": "5 ms", "kind": "switch-failure",
                                             "switch": "core", "duration": "20 ms"}])
    zones: Zones = key([], "Zones of N_Ports that see each other in the name server "
                       "(default: none, every N_Port sees every other).",
                       [{"name": "backup", "members": ["host", "tape"]}])
    fspf: Fspf = key(None, "FSPF's timers (default: FC-SW's; docs/faults.md).",
                     {"min_ls_interval": "5 s", "spf_hold_time": "0 s"})
    zoning: ZoningTable = key(None, "How the switches enforce the zones (default: soft, "
                              "name-server filtering only; docs/fabric-services.md).",
                              {"enforcement": "hard"})
    congestion: CongestionTable = key(None, "The cures the switches apply to congestion: "
                                      "credit loss recovery, port fencing, dynamic ingress "
                                      "rate limiting, congestion isolation (default: none; "
                                      "docs/congestion.md).",
                                      {"fencing": {"window": "1 ms", "txwait": 0.3}})
    fpin: FpinTable = key(None, "Fabric performance impact notifications and congestion "
                          "signals (default: none; docs/fpin.md).",
                          {"congestion": True, "congestion_window": "1 ms"})


class LoopScenario(_Scenario):
    """An arbitrated loop (FC-AL): the `[loop]` table describes the ring and there
    are no `[[links]]`."""

    elsewhere = {"links": "no [[links]] on a loop: the [loop] table describes the ring",
                 "switches": _NO_SWITCHES, "alias_groups": _NO_ALIASES,
                 "fabric": _NO_FABRIC, "zones": _NO_ZONES, "fspf": _NO_FSPF,
                 "zoning": _NO_ZONING, "congestion": _NO_CONGESTION, "fpin": _NO_FPIN}

    topology: Literal["loop"] = key(help="An arbitrated loop of 2 to 126 NL_Ports.")
    loop: Loop = key(help="The ring.")
    nodes: LoopNodes = key(
        help="The NL_Ports, 2 to 126.")
    faults: Faults = key([], "The fault schedule: LIPs (default: none; docs/faults.md).",
                         [{"at": "5 ms", "kind": "lip", "port": "d1"}])


class EthernetScenario(_Scenario):
    """Hosts on Gigabit (or Fast, or 10 Gigabit) Ethernet: cables between hosts,
    or through Ethernet switches with VLANs. Workloads are netperf and iperf
    (FC-2 and SCSI workloads need Fibre Channel)."""

    elsewhere = {"loop": _NO_LOOP, "alias_groups": _NO_ALIASES,
                 "fabric": _NO_FABRIC, "zones": _NO_ZONES, "fspf": _NO_FSPF,
                 "zoning": _NO_ZONING, "congestion": _NO_CONGESTION, "fpin": _NO_FPIN}

    topology: Literal["ethernet"] = key(help="An Ethernet network.")
    switches: EthernetSwitches = key([], "The Ethernet switches (default: none, hosts "
                                     "cabled to each other).")
    nodes: EthernetNodes = key(help="The hosts, each with one NIC.")
    links: EthernetLinks = key(help="The cables.")
    workloads: HostWorkloads = key([], "The traffic: netperf, iperf and transfers "
                                   "(default: none).")
    faults: Faults = key([], "The fault schedule: cables pulled out and put back, switches "
                         "failed (default: none; docs/faults.md).",
                         [{"at": "5 ms", "kind": "link-down", "link": "cable",
                           "duration": "10 ms"}])


class MyrinetScenario(_Scenario):
    """Hosts on Myrinet (LANai cards, 1.28 or 2 Gbit/s links): cables between two
    hosts, or through source-routed cut-through Myrinet switches with stop/go
    flow control. Workloads are netperf, iperf and transfers, and dd and page
    faults on a file striped over Slice block servers (Trapeze); FC-2 and SCSI
    workloads need Fibre Channel."""

    elsewhere = {"loop": _NO_LOOP, "alias_groups": _NO_ALIASES,
                 "fabric": _NO_FABRIC, "zones": _NO_ZONES, "fspf": _NO_FSPF,
                 "zoning": _NO_ZONING, "congestion": _NO_CONGESTION, "fpin": _NO_FPIN}

    topology: Literal["myrinet"] = key(help="A Myrinet network.")
    switches: MyrinetSwitches = key([], "The Myrinet switches (default: none, two hosts "
                                    "cabled to each other).")
    nodes: MyrinetNodes = key(help="The hosts, each with one Myrinet NIC.")
    links: MyrinetLinks = key(help="The cables.")
    workloads: MyrinetWorkloads = key([], "The traffic: netperf, iperf, transfers, and dd "
                                      "and page faults on Slice block servers (default: "
                                      "none).")
    faults: Faults = key([], "The fault schedule: cables pulled out and put back, switches "
                         "failed (default: none; docs/faults.md).",
                         [{"at": "5 ms", "kind": "switch-failure", "switch": "sw",
                           "duration": "10 ms"}])


class InternetworkScenario(_Scenario):
    """Several networks, each of its own topology and technology: the nodes are
    listed once in `[[nodes]]`, each `[[networks]]` table builds one network
    from its own links and switches (or loop). A node is on every network
    whose links or loop name it; a host gets an interface on each (IP over FC
    on an N_Port, IP over Ethernet on a NIC), as a data mover has an Ethernet
    NIC towards its clients and an FC adapter towards its storage."""

    elsewhere = {"links": "no [[links]] in an internetwork: each [[networks]] table has its "
                 "own", "switches": "no [[switches]] in an internetwork: each [[networks]] "
                 "table has its own", "loop": "no [loop] in an internetwork: a [[networks]] "
                 "table with topology = 'loop' has it", "alias_groups": _NO_ALIASES,
                 "fabric": _NO_FABRIC, "faults": _NO_FAULTS, "zones": _NO_ZONES, "fspf": _NO_FSPF,
                 "zoning": _NO_ZONING, "congestion": _NO_CONGESTION, "fpin": _NO_FPIN}

    topology: Literal["internetwork"] = key(help="Several networks joined by the hosts on "
                                            "more than one.")
    nodes: InternetworkNodes = key(help="Every node, once.")
    networks: Networks = key(help="The networks, at least one; the order decides which one "
                             "a host uses to reach a peer that is on several.")


TOPOLOGIES: dict[str, type[_Scenario]] = dict(zip(
    TOPOLOGY_NAMES, (PointToPointScenario, FabricScenario, LoopScenario, EthernetScenario,
                     MyrinetScenario, InternetworkScenario), strict=True))
"""Each ``topology`` value and the model of its files."""
Document = Annotated[PointToPointScenario | FabricScenario | LoopScenario | EthernetScenario
                     | MyrinetScenario | InternetworkScenario, Field(discriminator="topology")]
"""A scenario file, of the model its ``topology`` names."""
DOCUMENT = TypeAdapter(Document)
"""Validates a TOML document as a scenario file; its JSON Schema is the files' schema."""
