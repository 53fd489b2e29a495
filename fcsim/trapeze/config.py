"""The Slice block I/O service of a scenario, as typed values in SI units: a
node's block server and the jobs run against the servers (dd through the
client's file cache, page faults on a mapped file)."""

from __future__ import annotations

from dataclasses import dataclass

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
