"""The tables of the Slice block I/O service over Trapeze on a Myrinet network:
``[nodes.block_server]`` (a node serving its disks), and the ``dd`` and
``fault`` workloads a client runs against the servers."""

from __future__ import annotations

from typing import Literal

from fcsim.scenario.sections.nodes import LocalNames
from fcsim.scenario.sections.storage import BlockSize, Direction, Grain, Region
from fcsim.schema.fields import Count, Name, OneOrMoreNames, Time, size
from fcsim.schema.section import Section, key

Bytes = size(0, text="a size with a unit such as '256 KiB', >= 0 B")
Cluster = size(512, text="a size with a unit such as '128 KiB', >= 512 B")


class BlockServerSection(Section):
    """The Slice block I/O service on the node: it serves these disks of its own
    channels over Trapeze (NetRPC), striped in `stripe` grains when several,
    through its block layer, keeping what it reads and writes in a memory cache
    (see docs/trapeze.md)."""

    where = "in [nodes.block_server]"

    disks: LocalNames = key(help="The disks served, of the node's channels, in stripe order.",
                            example=["ide0.0", "ide1.0"])
    stripe: Grain = key(None, "The stripe grain over the disks, bytes (required with more "
                        "than one disk).", "32 KiB")
    cache: Bytes = key("128 MiB", "The server's memory cache of blocks read and written, bytes "
                       "(default: half the 256 MB of the Slice storage nodes).", "64 MiB")


class _SliceJob(Section):
    """Keys of every job against Slice block servers."""

    name: Name = key(None, "The workload's name, unique among workloads (default: "
                     "workload<i>).", "dd-read")
    type: str = key(help="The kind of workload.")
    source: Name = key(alias="from", help="The client host running the job.", example="client")
    destination: OneOrMoreNames = key(
        alias="to", help="The block server (a node with [nodes.block_server]), or a list of "
        "them: the file is striped over them, round robin in stripe grains.",
        example=["s1", "s2"])
    stripe: Grain = key(None, "The stripe grain over several servers, bytes (the Slice client "
                        "stripes 32 KiB).", "32 KiB")
    start: Time = key("0 s", "When the job starts, s.", "1 ms")


class SliceDdSection(_SliceJob):
    """dd reading or writing a file striped over Slice block servers, through the
    client kernel's file cache (not touching the data): `read` is
    `dd if=FILE of=/dev/null bs=BS count=N`, `write` is
    `dd if=/dev/zero of=FILE bs=BS count=N`. Reads are read ahead and
    page-remapped, writes copied and written behind (docs/trapeze.md).
    Reports the bytes moved, dd's elapsed time and rate, and the rate over the
    measured interval."""

    where = "with type = 'dd' on Myrinet"

    type: Literal["dd"] = key(help="dd on a Slice file.")
    direction: Direction = key(help="Read the file or write it.", example="read")
    bs: BlockSize = key("512 B", "Bytes per read() or write(), dd bs= (dd's default 512).",
                        "64 KiB")
    count: Count = key(help="Calls, dd count=.", example=20480)
    readahead: Bytes = key("256 KiB", "The client's sequential read-ahead, bytes beyond each "
                           "read() (default: FreeBSD's MAXRA, 32 blocks of 8 KiB).", "512 KiB")
    cluster: Cluster = key("128 KiB", "The largest read-ahead or write-behind transfer, bytes "
                           "(default: FreeBSD's MAXPHYS).", "64 KiB")
    write_behind: Cluster = key("1 MiB", "Bytes written into the cache and not yet acknowledged "
                                "by the servers past which a write() waits (default: FreeBSD "
                                "4's hirunningspace); at least cluster.", "2 MiB")


class FaultSection(_SliceJob):
    """Page faults on a file striped over Slice block servers and mapped into a
    process: one touch at a time of a random page of the region, each an
    unpredicted fault served by one NetRPC getpage from the server's memory
    (the region is in the servers' caches when the job starts). Reports
    fio's figures: the latency of each fault, from the touch to the process
    going on."""

    where = "with type = 'fault'"

    type: Literal["fault"] = key(help="Page faults on a mapped Slice file.")
    page: BlockSize = key("8 KiB", "Bytes per fault: the client's page (8 KiB on the "
                          "Alpha).", "4 KiB")
    region: Region = key("1 MiB", "Bytes of the file touched, from its start; in the servers' "
                         "memory.", "16 MiB")
    count: Count = key(help="Faults in all.", example=100)
