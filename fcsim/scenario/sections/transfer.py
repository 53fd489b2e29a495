"""The ``[[workloads]]`` table of a file transfer relayed along a chain of nodes
(:mod:`fcsim.apps.transfer`)."""

from __future__ import annotations

from typing import Literal

from fcsim.schema.fields import Count, Flag, Name, Time, distinct_list, size
from fcsim.schema.section import Section, key

Chain = distinct_list(lambda e: isinstance(e, str) and bool(e.strip()),
                      "a list of at least two distinct node names such as "
                      "['client', 'mover', 'disk']",
                      item_schema={"type": "string", "minLength": 1})
Bytes = size(1, text="a size with a unit such as '1 GiB', >= 1 B")
Block = size(1, text="a size with a unit such as '1 MiB', >= 1 B")


class TransferSection(Section):
    """A file transfer relayed along `path`, as a data mover relays a client's
    file to its storage: every host on the path runs a process that reads
    blocks from its input and writes them to its output. The first node is a
    host (data made in memory, or read from its `read_disk`) or an FCP target
    (read by the next host); the last a host (data dropped, or written to its
    `write_disk`) or an FCP target (written by the host before);
    consecutive hosts are joined by a TCP connection over a network they are
    both on. Reports bytes, elapsed time and rate."""

    where = "with type = 'transfer'"

    name: Name = key(None, "The workload's name, unique among workloads (default: "
                     "workload<i>).", "put")
    type: Literal["transfer"] = key(help="A relayed file transfer.")
    path: Chain = key(help="The nodes the data crosses, in order: a host or an FCP target "
                      "first and last, hosts between.", example=["client", "mover", "disk"])
    size: Bytes = key(help="Bytes to move.", example="1 GiB")
    block: Block = key(help="Bytes each process reads and writes per call (its buffer).",
                       example="1 MiB")
    socket: Bytes = key("64 KiB", "Send and receive buffer of every TCP connection "
                        "(SO_SNDBUF and SO_RCVBUF), bytes.", "256 KiB")
    read_disk: Name = key(None, "A disk on the first host's own channels (such as 'ide0.0') "
                          "it reads the file from, sequentially from its start (default: the "
                          "data are made in memory).", "ide0.0")
    write_disk: Name = key(None, "A disk on the last host's own channels it writes the file "
                           "to, sequentially from its start (default: the data are dropped).",
                           "scsi0.1")
    buffers: Count = key(1, "Blocks a relay process holds: 1 reads a block, then writes it; "
                         "more let a reading and a writing thread overlap.", 4)
    mover: Name = key(None, "A host on the path that is an HPSS mover: it stages the data in "
                      "its own buffers of mover_buffer bytes and overlaps device and network "
                      "I/O only for a request (a block) larger than one buffer, in pieces of "
                      "one buffer, two at a time; a request that fits in one is read whole, "
                      "then written, before the next (HPSS 7.3 Management Guide, Mover "
                      "buffer size). Default: no mover, every relay holds `buffers` blocks.",
                      "mover")
    mover_buffer: Block = key(None, "The mover's buffer size, bytes; only with mover "
                              "(default: 1 MiB, HPSS 4.5's default Mover buffer, 1,048,576 "
                              "bytes, Installation Guide table 6-23).", "4 MiB")
    mover_request: Block = key(None, "The size of each request the client makes of the mover, "
                               "bytes; only with mover (default: block). A PFTP transfer "
                               "moves up to the smaller of 64 storage segments and 512 MB "
                               "between socket openings on disk (HPSS 4.5 Installation "
                               "Guide, PFTP Client Stanza).", "512 MB")
    nodelay: Flag = key(False, "TCP_NODELAY on every connection.", True)
    start: Time = key("0 s", "When the transfer starts (after the connections and logins), "
                      "s.", "10 ms")
