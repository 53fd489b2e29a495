"""The tables of a Myrinet network (``topology = "myrinet"``): hosts with
LANai NICs (and their disks, and the Slice block I/O service they may run
over Trapeze), Myrinet switches, and the cables between them."""

from __future__ import annotations

from fcsim.fc0.speed import CATALOG
from fcsim.myrinet.switch import load_myrinet_switch_model
from fcsim.scenario.sections.links import DEFAULT_PROPAGATION, PROPAGATION_HELP, CableLength
from fcsim.scenario.sections.nodes import (
    TIMESTAMPS_HELP,
    Block,
    Channels,
    HostName,
    Load,
    model_name,
)
from fcsim.schema.fields import Ends, Flag, Name, Propagation, choice, integer, table
from fcsim.schema.section import REQUIRED, Section, key
from fcsim.trapeze.config import BlockServerSection

MAX_MTU = 65535
"""The largest IP MTU a Myrinet node may have, bytes: IPv4's own limit (the
total length field, RFC 791). Myrinet packets may be of any length."""
MYRINET_SPEEDS = ("Myrinet-1280", "Myrinet-2000")
"""The catalog speeds of Myrinet links."""

Mtu = integer(68, MAX_MTU, f"an integer 68..{MAX_MTU} (bytes; 9000 is Myricom's GM "
                           f"driver's, {MAX_MTU} IPv4's limit)")
MyrinetSpeed = choice({name: CATALOG[name] for name in MYRINET_SPEEDS},
                      "'Myrinet-1280' (1.28 Gbit/s: LANai 4 to 7) or 'Myrinet-2000' "
                      "(2 Gbit/s: LANai 9)")
MyrinetSwitchName = model_name(load_myrinet_switch_model, "Myrinet switch",
                               "models/myrinet-switches/")
BlockServer = table(BlockServerSection, "a table, written [nodes.block_server]")


class MyrinetNodeSection(Section):
    """A host with one Myrinet NIC (a LANai card: its bus, DMA and per-packet
    time come from the host model and the adapter it names); IP and TCP/UDP
    run over it, one IP packet per Myrinet packet, and Trapeze messages for
    the Slice block I/O service. A host may have disk channels and serve
    their disks as a Slice block server (`[nodes.block_server]`)."""

    where = "in [[nodes]] of a Myrinet network"

    name: Name = key(help="The node's name, unique among nodes.", example="h1")
    host: HostName = key(REQUIRED, "The host model (processor, bus and card costs): a model "
                         "in models/hosts/ or a model file path ending in .toml.", "ideal")
    mtu: Mtu = key(9000, "The IP MTU of the NIC, bytes (TCP's MSS is 40 bytes less). "
                   "Myrinet has no link MTU; Myricom's GM driver gives IP 9000.", 8192)
    background_load: Load = key(None, "Share of the host's processor other processes keep "
                                "busy (default: the host model's own value).", 0.15)
    tcp_timestamps: Flag = key(None, TIMESTAMPS_HELP, True)
    channels: Channels = key([], "Disk channels on this host (SCSI buses, ATA channels) and "
                             "their disks (default: none).",
                             [{"name": "ide0", "model": "ultra-ata-33",
                               "disks": ["ibm-deskstar-22gxp"]}])
    block: Block = key(None, "The host's block layer: queue depth per device, largest "
                       "request, merging and order (default: see the table's keys).",
                       {"queue_depth": 1})
    block_server: BlockServer = key(None, "Makes the host a Slice block I/O server of some of "
                                    "its disks over Trapeze (default: none).",
                                    {"disks": ["ide0.0"], "stripe": "32 KiB"})


class MyrinetLinkSection(Section):
    """A Myrinet cable: host to switch port, switch port to switch port, or host
    to host. Every link of a network runs at one speed. Cables between
    switches may not close a loop (routes are shortest paths), and a cable
    into a switch port may be no longer than that port's slack buffer covers
    (a STOP must take effect before the buffer overflows)."""

    where = "in [[links]] of a Myrinet network"
    elsewhere = {"vlan": "no vlan on Myrinet: switches route by the packets' source routes",
                 "bit_error_rate": "no bit_error_rate on Myrinet links: transmission "
                                   "errors are not modelled there",
                 "bit_error_rates": "no bit_error_rates on Myrinet links: transmission "
                                    "errors are not modelled there",
                 "coding": "no coding on Myrinet links: the speed fixes it"}

    name: Name = key(None, "The link's name, unique among links (default: link<i>).", "l1")
    ends: Ends = key(help="Two ends: node names or switch ports 'switch:port'.",
                     example=["h1", "sw:0"])
    speed: MyrinetSpeed = key(help="Line speed: Myrinet-1280 (160 million characters a "
                              "second each way) or Myrinet-2000 (8b/10b at 2.5 Gbaud).",
                              example="Myrinet-1280")
    length: CableLength = key("0 m", "Cable length, m.", "3 m")
    propagation: Propagation = key(DEFAULT_PROPAGATION, PROPAGATION_HELP, "6.5 ns/m")


class MyrinetSwitchSection(Section):
    """A Myrinet switch: a source-routed cut-through crossbar with a slack buffer
    and stop/go on every input; its model in `models/myrinet-switches/` gives
    ports, routing latency and slack buffer marks."""

    where = "in [[switches]] of a Myrinet network"
    elsewhere = {"pause": "no pause on Myrinet: every link has stop/go flow control, "
                          "always on (STOP and GO marks in the switch model)",
                 "domain": "no domain on Myrinet: it has no fabric addresses"}

    name: Name = key(help="The switch's name, unique among switches.", example="sw")
    model: MyrinetSwitchName = key(help="The switch model: a name in "
                                   "models/myrinet-switches/ or a model file ending in .toml.",
                                   example="m2f-sw8")
