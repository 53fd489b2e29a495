"""libpcap trace files of simulated Fibre Channel (and Ethernet, and the IP
packets of Myrinet) frames, readable by Wireshark.

The file is a classic libpcap savefile: a 24-byte file header (magic
0xA1B23C4D for nanosecond timestamps, version 2.4, snaplen, link-layer type)
followed by one record per frame (ts_sec, ts_nsec, incl_len, orig_len, then the
frame bytes). Fields are written little-endian; readers detect the byte order
from the magic number.

Two link-layer types are supported:

* ``LINKTYPE_FC_2_WITH_FRAME_DELIMS`` (225, default): SOF + frame header + data
  field + CRC + EOF, i.e. :meth:`Frame.to_bytes() <fcsim.fc2.frame.Frame.to_bytes>`.
  Wireshark's ``fcsof`` dissector reads the SOF from the first 4 bytes, the EOF
  from the last 4, checks the CRC at bytes [len-8, len-4) and hands the rest to
  the ``fc`` dissector.
* ``LINKTYPE_FC_2`` (224): frame header + data field only, no delimiters and
  no CRC (``Frame.to_bytes(delimiters=False)``), dissected by ``fc``.

A file of an Ethernet scenario is written as ``LINKTYPE_ETHERNET`` (1): from
the destination MAC to the last data byte, without the FCS. Myrinet has no
link-layer type of its own, so a file of a Myrinet scenario holds the IP
packet each Myrinet packet carries, as ``LINKTYPE_RAW`` (101: the record
begins with the IPv4 header); the route bytes, packet type and CRC are left
out, and each record is stamped with the time the packet's GAP left. Myrinet
packets carrying Trapeze messages (no IP) are not written.

Sources: tcpdump.org "Link-layer header types" (LINKTYPE_FC_2 = 224,
LINKTYPE_FC_2_WITH_FRAME_DELIMS = 225); pcap-savefile(5) (file and record
headers, nanosecond magic); Wireshark ``epan/dissectors/packet-fc.c``
(``dissect_fcsof``) and ``wiretap/pcap-common.c``; fact sheet section 9.
"""

from __future__ import annotations

import os
import struct
from types import TracebackType
from typing import TYPE_CHECKING, Any, BinaryIO

from fcsim.ethernet.frame import EthernetFrame
from fcsim.myrinet.packet import MyrinetPacket
from fcsim.trace.upper_layers import UpperLayerBytes
from fcsim.transport.segment import Segment
from fcsim.transport.udp import Datagram

if TYPE_CHECKING:
    from fcsim.fc2.frame import Frame

LINKTYPE_FC_2 = 224
"""Frame header + data field, no SOF/CRC/EOF."""

LINKTYPE_FC_2_WITH_FRAME_DELIMS = 225
"""SOF + frame header + data field + CRC + EOF."""

LINKTYPE_ETHERNET = 1
"""IEEE 802.3 Ethernet: from the destination MAC, no FCS (Ethernet scenarios)."""

LINKTYPE_RAW = 101
"""Raw IP: the record begins with the IP header (the IP packets of Myrinet scenarios)."""

PCAP_MAGIC_NS = 0xA1B23C4D
"""libpcap magic number for nanosecond-resolution timestamps."""

PCAP_VERSION = (2, 4)
SNAPLEN = 65535

_FILE_HEADER = struct.Struct("<IHHiIII")
FILE_HEADER_SIZE = _FILE_HEADER.size
"""Bytes of a libpcap file's header (24): the least a file, of no frame, holds."""
_RECORD_HEADER = struct.Struct("<IIII")
_NS = 1_000_000_000


def split_time(time_s: float) -> tuple[int, int]:
    """Simulated seconds as (whole seconds, nanoseconds), rounded to the nearest ns.

    The integer part is split off first (exact in binary floating point), so
    the nanosecond rounding does not lose precision as the run gets longer.
    """
    sec = int(time_s)
    nsec = round((time_s - sec) * _NS)
    if nsec >= _NS:
        sec += 1
        nsec -= _NS
    return sec, nsec


class PcapWriter:
    """Writes FC frames to a libpcap file, one record per frame.

    *out* is a path or a binary file object opened for writing. A path is
    opened (and closed by :meth:`close`) by the writer; a file object is only
    flushed on close and remains the caller's to close. *linktype* is
    :data:`LINKTYPE_FC_2_WITH_FRAME_DELIMS` (225, default) or
    :data:`LINKTYPE_FC_2` (224).

    *limit*: the most bytes the file may hold (None: no limit), as
    ``tcpdump -C`` caps a file; frames past it are counted, not written.

    Timestamps: the writer stamps each record with the time passed to
    :meth:`write`, nothing else. By convention of its caller (the transmitting
    port) that is the simulated time at which the frame's EOF left the
    transmitter, i.e. the end of the frame on the wire at the sender.
    """

    __slots__ = ("_file", "_owned", "_delims", "_upper", "linktype", "frames", "size", "limit",
                 "left_out")

    def __init__(self, out: str | os.PathLike[str] | BinaryIO,
                 linktype: int = LINKTYPE_FC_2_WITH_FRAME_DELIMS,
                 limit: int | None = None) -> None:
        if linktype not in (LINKTYPE_FC_2, LINKTYPE_FC_2_WITH_FRAME_DELIMS, LINKTYPE_ETHERNET,
                            LINKTYPE_RAW):
            raise ValueError(f"linktype must be 1, 101, 224 or 225, got {linktype}")
        if isinstance(out, (str, os.PathLike)):
            self._file: BinaryIO = open(out, "wb")  # closed in close()
            self._owned = True
        else:
            self._file = out
            self._owned = False
        self._delims = linktype == LINKTYPE_FC_2_WITH_FRAME_DELIMS
        self.linktype = linktype
        self.frames = self.left_out = 0
        self._upper = UpperLayerBytes()
        self.limit = limit
        self._file.write(_FILE_HEADER.pack(
            PCAP_MAGIC_NS, PCAP_VERSION[0], PCAP_VERSION[1], 0, 0, SNAPLEN, linktype))
        self.size = _FILE_HEADER.size

    def write(self, time_s: float, frame: Frame) -> None:
        """Append *frame* as a record stamped *time_s* simulated seconds; once a
        record would take the file past *limit* bytes, count it in *left_out*
        instead (the file stays a valid capture of the frames before). A
        Myrinet packet that carries no IP packet (a Trapeze message) is not
        written: the raw-IP link type holds IP only."""
        if not captured(frame):
            return
        if self.left_out:
            self.left_out += 1
            return
        data = frame_bytes(frame, self._upper, self._delims)
        n = len(data)
        record = _RECORD_HEADER.size + n
        if self.limit is not None and self.size + record > self.limit:
            self.left_out += 1
            return
        sec, nsec = split_time(time_s)
        self._file.write(_RECORD_HEADER.pack(sec, nsec, n, n) + data)
        self.frames += 1
        self.size += record

    def close(self) -> None:
        """Flush; close the file if the writer opened it (the header says the link
        type; a file of Ethernet frames is written with :data:`LINKTYPE_ETHERNET`,
        one of Myrinet packets' IP packets with :data:`LINKTYPE_RAW`)."""
        if self._owned:
            self._file.close()
        else:
            self._file.flush()

    def __enter__(self) -> PcapWriter:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        """Close; after a failure, a file object of the caller's is not flushed
        (the caller discards it) and a file of the writer's is closed as it is."""
        if exc_type is None or self._owned:
            self.close()


def captured(frame: Any) -> bool:
    """Whether a capture holds *frame*: every FC and Ethernet frame, and the
    Myrinet packets that carry IP (not those carrying Trapeze messages)."""
    return not isinstance(frame, MyrinetPacket) or isinstance(frame.ulp, Segment | Datagram)


def frame_bytes(frame: Any, upper: UpperLayerBytes, delimiters: bool = True) -> bytes:
    """The bytes of *frame* as a capture holds them: an FC frame (with its SOF and
    EOF if *delimiters*), an Ethernet frame, or a Myrinet packet's IP packet."""
    if isinstance(frame, EthernetFrame):
        return upper.ethernet(frame)
    if isinstance(frame, MyrinetPacket):
        return upper.raw_ip(frame)
    return frame.to_bytes(delimiters, upper.content(frame))
