"""The ``[[nodes]]`` table of a Myrinet network: a host with a LANai NIC, its
disks and the Slice block I/O service it may run over them. It joins the
host's keys (:mod:`fcsim.host.config`), the NIC's (:mod:`fcsim.myrinet.config`),
the disk channels' and the block server's (Trapeze), so it is assembled here
above all of them."""

from __future__ import annotations

from fcsim.host.config import TIMESTAMPS_HELP, HostName, Load
from fcsim.myrinet.config import Mtu
from fcsim.scenario.sections.nodes import Block, Channels
from fcsim.schema.fields import Flag, Name, table
from fcsim.schema.section import REQUIRED, Section, key
from fcsim.trapeze.config import BlockServerSection

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
