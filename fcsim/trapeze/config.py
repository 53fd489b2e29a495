"""The Slice block I/O service over Trapeze in a scenario: the
``[nodes.block_server]`` table (a node serving its disks) and the ``dd`` and
``fault`` workloads a client runs against the servers, and the same as typed
values in SI units (:class:`BlockServerConfig`, :class:`SliceJobConfig`:
dd through the client's file cache, page faults on a mapped file) that
:class:`fcsim.trapeze.build.SliceStorage` builds."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from fcsim.schema.fields import Count, Name, OneOrMoreNames, Time, size
from fcsim.schema.section import Section, key
from fcsim.storage.config import BlockSize, Direction, Grain, LocalNames, Region
from fcsim.workload.fio import FioOptions

READAHEAD = 32 * 8192
"""Default read-ahead of the client's file cache, bytes: FreeBSD's clustered
read asks for at most ``MAXRA`` = 32 blocks ahead (``sys/kern/vfs_cluster.c``
of FreeBSD 3 and 4: ``maxra = 2 * racluster + totread / size``, capped at
``MAXRA``; 2 x 16 + 8 = 40 for 8 KB blocks and 64 KB reads), taken with the
8 KB block of the Alpha's page (assumption: the Slice client's block size is
not stated)."""
CLUSTER = 128 * 1024
"""Default cluster, bytes: FreeBSD's ``MAXPHYS``, the largest transfer a
clustered read or write builds (``cluster_rbuild``, ``cluster_wbuild``)."""
WRITE_BEHIND = 1024 * 1024
"""Default limit of data written into the cache and not yet on the servers,
bytes: FreeBSD 4's ``hirunningspace`` (1 MB, ``bufinit`` in
``sys/kern/vfs_bio.c``), the bytes of writes in progress past which a writer
waits; whether the 1999 kernel of the report had this limit is not known
(assumption)."""
SERVER_CACHE = 128 * 1024 * 1024
"""Default memory cache of a block I/O server, bytes: half the 256 MB of the
Slice storage nodes (Hot Interconnects 1999, section 2.1: "256MB of DRAM";
the share the cache had is an assumption)."""


@dataclass(frozen=True)
class BlockServerConfig:
    """A node's Slice block I/O service: its *disks* (names on its channels),
    striped in grains of *stripe* bytes when several, *capacity* bytes in all,
    and a memory cache of *cache* bytes."""

    disks: tuple[str, ...]
    stripe: int | None
    capacity: int
    cache: int = SERVER_CACHE


@dataclass(frozen=True)
class SliceJobConfig:
    """A job of *kind* ``"dd"`` (a process reading or writing the file with
    *options*' direction, block size and count, through the client's file
    cache: *readahead*, *cluster* and *write_behind* bytes) or ``"fault"``
    (page faults on the file mapped, one at a time, *options* a random read
    of pages in its region), from host *source* against the file striped
    over *servers* in grains of *stripe* bytes; it starts at *start* s. A
    fault job's region is in the servers' memory when it starts (it was read
    before: the faults are served from server memory)."""

    name: str
    source: str
    servers: tuple[str, ...]
    stripe: int | None
    options: FioOptions
    kind: str = "dd"
    start: float = 0.0
    readahead: int = READAHEAD
    cluster: int = CLUSTER
    write_behind: int = WRITE_BEHIND

    @property
    def destination(self) -> str:
        """The first server."""
        return self.servers[0]

    @property
    def targets(self) -> tuple[str, ...]:
        """Every server, in stripe order."""
        return self.servers


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
