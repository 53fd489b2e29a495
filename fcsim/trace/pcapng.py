"""pcapng captures: one interface per link direction, as analyzer probes on cables.

A pcapng file (IETF draft-ietf-opsawg-pcapng) is a Section Header Block, an
Interface Description Block per capture point, then an Enhanced Packet Block
per frame naming its interface. :class:`PcapngWriter` describes an interface
(link type 225, Fibre Channel with SOF, CRC and EOF; 1 for Ethernet; 101,
raw IP, for the IP packets of Myrinet; nanosecond timestamps,
``if_tsresol`` = 9; ``if_name`` the direction, such as ``host->sw:0``) the
first time a frame leaves through it, so Wireshark tells the capture points
apart (``frame.interface_name``). Frame bytes are those of
:class:`~fcsim.trace.pcap.PcapWriter`, upper layers included.
"""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING, BinaryIO

from fcsim.ethernet.frame import EthernetFrame
from fcsim.myrinet.packet import MyrinetPacket
from fcsim.trace.pcap import (
    LINKTYPE_ETHERNET,
    LINKTYPE_FC_2_WITH_FRAME_DELIMS,
    LINKTYPE_RAW,
    SNAPLEN,
    captured,
    frame_bytes,
)
from fcsim.trace.upper_layers import UpperLayerBytes

if TYPE_CHECKING:
    from fcsim.fc2.frame import Frame

_SHB, _IDB, _EPB = 0x0A0D0D0A, 0x00000001, 0x00000006
_BYTE_ORDER_MAGIC = 0x1A2B3C4D
_OPT_END, _IF_NAME, _IF_TSRESOL = 0, 2, 9


def _option(code: int, value: bytes) -> bytes:
    return struct.pack("<HH", code, len(value)) + value + bytes(-len(value) % 4)


def _block(kind: int, body: bytes) -> bytes:
    length = 12 + len(body)
    return struct.pack("<II", kind, length) + body + struct.pack("<I", length)


def _section_header() -> bytes:
    return _block(_SHB, struct.pack("<IHHq", _BYTE_ORDER_MAGIC, 1, 0, -1)
                  + _option(_OPT_END, b""))


def _interface_block(name: str, linktype: int) -> bytes:
    return _block(_IDB, struct.pack("<HHI", linktype, 0, SNAPLEN)
                  + _option(_IF_NAME, name.encode()) + _option(_IF_TSRESOL, b"\x09")
                  + _option(_OPT_END, b""))


SECTION_HEADER_SIZE = len(_section_header())
"""Bytes of a pcapng file's Section Header Block (32): the least a file, of no
frame, holds."""


class PcapngWriter:
    """Writes frames to *out* (a binary file), one interface per direction name.

    *limit*: the most bytes the file may hold (None: no limit); frames past it
    are counted in *left_out*, as :class:`~fcsim.trace.pcap.PcapWriter` does.
    """

    def __init__(self, out: BinaryIO, limit: int | None = None) -> None:
        self._file = out
        self._interfaces: dict[str, int] = {}
        self._upper = UpperLayerBytes()
        self.frames = self.left_out = 0
        self.limit = limit
        header = _section_header()
        out.write(header)
        self.size = len(header)

    def write(self, time_s: float, frame: Frame, direction: str) -> None:
        """Append *frame*, sent on link direction *direction* at *time_s* s (not
        a Myrinet packet carrying a Trapeze message: :func:`captured`)."""
        if not captured(frame):
            return
        if self.left_out:
            self.left_out += 1
            return
        data = frame_bytes(frame, self._upper)
        interface = self._interfaces.get(direction)
        described = b""  # the interface's description, before its first frame
        if interface is None:
            described = _interface_block(direction, LINKTYPE_ETHERNET if isinstance(
                frame, EthernetFrame) else LINKTYPE_RAW if isinstance(frame, MyrinetPacket)
                else LINKTYPE_FC_2_WITH_FRAME_DELIMS)
        body_len = 20 + len(data) + (-len(data) % 4)
        if (self.limit is not None
                and self.size + len(described) + body_len + 12 > self.limit):
            self.left_out += 1
            return
        if interface is None:
            interface = self._interfaces[direction] = len(self._interfaces)
            self._file.write(described)
            self.size += len(described)
        stamp = round(time_s * 1e9)
        block = _block(_EPB, struct.pack("<IIIII", interface, stamp >> 32, stamp & 0xFFFFFFFF,
                                         len(data), len(data)) + data + bytes(-len(data) % 4))
        self._file.write(block)
        self.size += len(block)
        self.frames += 1

    def close(self) -> None:
        """Flush the file (it stays the caller's to close)."""
        self._file.flush()
