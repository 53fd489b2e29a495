"""Socket buffers with 4.4BSD mbuf accounting (``struct sockbuf``).

A 4.4BSD socket buffer limits two things: the data bytes it holds (``sb_cc``
against ``sb_hiwat``) and the memory holding them (``sb_mbcnt`` against
``sb_mbmax``). Each mbuf is charged MSIZE, and an mbuf with a cluster also
MCLBYTES (``sballoc``/``sbfree`` in sys/socketvar.h); ``sbreserve()``
(kern/uipc_socket2.c) sets ``sb_mbmax = min(2 * sb_hiwat, sb_max)``, and
``sbspace() = min(sb_hiwat - sb_cc, sb_mbmax - sb_mbcnt)`` is the free space
that sosend() fills and that tcp_input/tcp_output offer as the receive window.
So small segments and writes, which fill mbufs badly (a write of 208 bytes
takes a whole cluster), use up the buffer long before its byte count is reached.

How the data sits in mbufs follows the 4.4BSD-Lite2 code:

- received segments: the driver copies each IP datagram into an mbuf chain as
  ``m_devget()`` (kern/uipc_mbuf.c) does: a cluster while at least MINCLSIZE
  bytes remain, otherwise a small mbuf (the first one a packet-header mbuf of
  MHLEN bytes, with a small datagram placed *max_linkhdr* bytes in); tcp_input
  strips the 40 header bytes from the first mbuf and ``sbappend()`` adds the
  chain;
- written data: ``sosend()`` (kern/uipc_socket.c) puts a stream socket's data
  in a cluster of up to MCLBYTES bytes while at least MINCLSIZE bytes remain
  and at least MCLBYTES are free, otherwise in a packet-header mbuf of up to
  MHLEN bytes, counting MCLBYTES of the free space per cluster;
- ``sbcompress()`` copies a new mbuf's data into the last mbuf of the buffer
  when that one has no cluster and the data fit strictly before its end, and
  frees the new mbuf; ``sbdrop()`` (acknowledged data) and ``soreceive()``
  (data read) free each mbuf whose data are all consumed.

Constants for a 32-bit machine with 128-byte mbufs and 2048-byte clusters
(4.4BSD i386 and hp300 ``machine/param.h``; ``sys/mbuf.h`` 8.5).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from functools import lru_cache

from fcsim.transport.segment import HEADER_BYTES

MSIZE = 128
"""Size of an mbuf, bytes (machine/param.h MSIZE)."""
MCLBYTES = 2048
"""Size of an mbuf cluster, bytes (machine/param.h MCLBYTES, 1 << MCLSHIFT 11)."""
MLEN = MSIZE - 20
"""Data bytes of a plain mbuf (sys/mbuf.h MLEN = MSIZE - sizeof(struct m_hdr)): 108."""
MHLEN = MLEN - 8
"""Data bytes of a packet-header mbuf (MLEN - sizeof(struct pkthdr)): 100."""
MINCLSIZE = MHLEN + MLEN
"""Smallest amount of data put in a cluster (sys/mbuf.h MINCLSIZE), bytes: 208."""
MAX_LINKHDR = 16
"""Space m_devget() leaves before a small datagram (uipc_domain.c max_linkhdr), bytes."""

_CLUSTER = -1
"""Tail room recorded for an mbuf with a cluster: sbcompress never copies into it."""

Mbuf = tuple[int, int, int]
"""One mbuf of a chain: (data bytes, tail room in bytes or _CLUSTER, bytes charged)."""


@lru_cache(maxsize=4096)
def received_chain(length: int, cluster: int = MCLBYTES,
                   headers: int = HEADER_BYTES) -> tuple[Mbuf, ...]:
    """The mbufs holding a received segment's *length* data bytes (m_devget, headers stripped).

    The IP datagram (*headers* bytes of IP and TCP headers with their options,
    40 without options, then the data) is copied as 4.4BSD ``m_devget()``
    does; the header bytes then leave the first mbuf. Tail room is counted to
    the end of the mbuf's data area (``&m_dat[MLEN]``), as sbcompress tests it.
    """
    chain: list[Mbuf] = []
    left = headers + length
    first = True
    while left > 0:
        if left >= MINCLSIZE:
            take = min(left, cluster)
            chain.append((take, _CLUSTER, MSIZE + cluster))
        else:
            capacity = MHLEN if first else MLEN
            offset = MLEN - capacity
            if left < capacity:
                if first and left + MAX_LINKHDR <= capacity:
                    offset += MAX_LINKHDR
                take = left
            else:
                take = capacity
            chain.append((take, MLEN - offset - take, MSIZE))
        left -= take
        first = False
    data, room, charge = chain[0]
    chain[0] = (data - headers, room, charge)
    return tuple(mbuf for mbuf in chain if mbuf[0])


def _trimmed(chain: tuple[Mbuf, ...], skip: int, count: int) -> Iterable[Mbuf]:
    """*chain* with *skip* bytes cut from its front and cut after *count* bytes (m_adj).

    Cutting the front moves the data pointer and keeps the tail room; cutting
    the tail adds the bytes cut to it. Mbufs left empty are omitted, as
    sbcompress frees them.
    """
    for data, room, charge in chain:
        if skip >= data:
            skip -= data
            continue
        if count <= 0:
            return
        take = min(data - skip, count)
        yield take, room if room == _CLUSTER else room + data - skip - take, charge
        count -= take
        skip = 0


def sosend_mbuf(resid: int, space: int, cluster: int = MCLBYTES) -> int:
    """Bytes 4.4BSD ``sosend()`` copies into its next mbuf of a stream socket, bytes.

    *resid*: bytes of the write still to copy; *space*: sosend's count of the
    free space. A cluster of *cluster* bytes while at least MINCLSIZE bytes
    remain and a cluster's worth is free, otherwise a packet-header mbuf of
    MHLEN bytes (each PRU_SEND starts a new chain with MGETHDR). A stream
    socket hands each such mbuf to the protocol on its own (the inner loop
    ``while (space > 0 && atomic)`` ends after one mbuf: uipc_socket.c 8.6).
    """
    if resid >= MINCLSIZE and space >= cluster:
        return min(resid, cluster)
    return min(resid, MHLEN, space)


def sosend_pass(resid: int, space: int, cluster: int = MCLBYTES) -> int:
    """Bytes a sosend() that copies the whole write before one PRU_SEND takes in one
    pass, bytes: mbufs as :func:`sosend_mbuf` chooses them, each counted against
    *space* as :meth:`SocketBuffer.append_written` counts it (a cluster's
    *cluster* bytes, a small mbuf's data), until the write or the space is used
    up. 4.3BSD-Tahoe's sosend() copies so (``uipc_socket.c`` 7.10: ``while
    (space > 0)`` builds one chain, then one PRU_SEND), as 4.4BSD's does for an
    atomic socket."""
    taken = 0
    while resid > taken and space > 0:
        n = sosend_mbuf(resid - taken, space, cluster)
        space -= cluster if resid - taken >= MINCLSIZE and space >= cluster else n
        taken += n
    return taken


class SocketBuffer:
    """One socket buffer: data bytes (*cc*), mbuf bytes (*mbcnt*) and their limits.

    *hiwat* is the buffer size (``sb_hiwat``), bytes; *sb_max* the system limit
    that caps ``sb_mbmax``, bytes; *cluster* the cluster size, bytes. Without
    *accounting* only the data bytes count (``mbcnt`` stays 0 and the space is
    ``hiwat - cc``).
    """

    __slots__ = ("accounting", "cluster", "sb_max", "hiwat", "mbmax", "cc", "mbcnt", "_chain")

    def __init__(self, hiwat: int, sb_max: int, cluster: int = MCLBYTES,
                 accounting: bool = True) -> None:
        self.accounting = accounting
        self.cluster = cluster
        self.sb_max = sb_max
        self.hiwat = 0
        """Most data bytes the buffer holds (sb_hiwat), bytes."""
        self.mbmax = 0
        """Most mbuf bytes the buffer may use (sb_mbmax), bytes."""
        self.cc = 0
        """Data bytes in the buffer (sb_cc), bytes."""
        self.mbcnt = 0
        """Bytes of mbufs and clusters holding them (sb_mbcnt), bytes."""
        self._chain: deque[list[int]] = deque()
        self.reserve(hiwat)

    def reserve(self, hiwat: int) -> None:
        """sbreserve(): a buffer of *hiwat* bytes, ``sb_mbmax = min(2 * hiwat, sb_max)``.

        4.4BSD also refuses sizes above ``sb_max * MCLBYTES / (MSIZE + MCLBYTES)``
        (ENOBUFS); the socket options are taken as given here.
        """
        self.hiwat = hiwat
        self.mbmax = min(2 * hiwat, self.sb_max)

    @property
    def space(self) -> int:
        """sbspace(): ``min(hiwat - cc, mbmax - mbcnt)``, bytes; may be negative."""
        if self.accounting:
            return min(self.hiwat - self.cc, self.mbmax - self.mbcnt)
        return self.hiwat - self.cc

    @property
    def mbufs(self) -> int:
        """Mbufs in the buffer (those with a cluster counted once)."""
        return len(self._chain)

    def append_received(self, length: int, skip: int = 0, count: int | None = None,
                        headers: int = HEADER_BYTES) -> None:
        """sbappend() the data of a received segment of *length* bytes.

        *skip* leading bytes and all after *count* bytes were trimmed from it
        (duplicates, the window's right edge); default: the whole segment.
        *headers*: its IP and TCP header bytes with options (m_devget copied them
        into the first mbuf).
        """
        if count is None:
            count = length - skip
        if not self.accounting:
            self.cc += count
            return
        chain = received_chain(length, self.cluster, headers)
        self._compress(chain if not skip and count == length else _trimmed(chain, skip, count))

    def append_written(self, nbytes: int, space: int) -> int:
        """Copy *nbytes* written bytes into mbufs as sosend() does, then sbappend() them.

        *space* is sosend's count of free space; returns how much of it the
        copy uses by that count (MCLBYTES per cluster, the bytes of a small
        mbuf), bytes.
        """
        if not self.accounting:
            self.cc += nbytes
            return nbytes
        cluster = self.cluster
        mbufs: list[Mbuf] = []
        used = 0
        while nbytes > 0:
            if nbytes >= MINCLSIZE and space - used >= cluster:
                take = min(nbytes, cluster)
                mbufs.append((take, _CLUSTER, MSIZE + cluster))
                used += cluster
            else:
                take = min(nbytes, MHLEN)
                mbufs.append((take, MHLEN - take, MSIZE))
                used += take
            nbytes -= take
        self._compress(mbufs)
        return used

    def _compress(self, mbufs: Iterable[Mbuf]) -> None:
        """sbcompress(): append *mbufs*, copying each into the last mbuf when it fits."""
        chain = self._chain
        last = chain[-1] if chain else None
        for data, room, charge in mbufs:
            self.cc += data
            if last is not None and data < last[1]:
                last[0] += data
                last[1] -= data
                continue
            last = [data, room, charge]
            chain.append(last)
            self.mbcnt += charge

    def drop(self, nbytes: int) -> None:
        """Remove *nbytes* from the front (sbdrop, soreceive), freeing emptied mbufs."""
        self.cc -= nbytes
        if not self.accounting:
            return
        chain = self._chain
        while nbytes > 0:
            head = chain[0]
            if head[0] > nbytes:
                head[0] -= nbytes
                return
            nbytes -= head[0]
            self.mbcnt -= head[2]
            chain.popleft()


__all__ = ["MAX_LINKHDR", "MCLBYTES", "MHLEN", "MINCLSIZE", "MLEN", "MSIZE", "SocketBuffer",
           "received_chain", "sosend_mbuf", "sosend_pass"]
