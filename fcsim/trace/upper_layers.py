"""What the upper layers put in a frame's data field, rebuilt for a capture.

Frames of the simulation carry lengths and header fields, not bytes, so that
a run without a capture spends nothing on bytes. When a capture is written,
:class:`UpperLayerBytes` rebuilds a data field from what the frame's sequence
carries:

- link-service and name-server sequences carry their payload bytes
  (:mod:`fcsim.fc2.els_payload`; few and short, built when sent): each frame
  gets its slice, at its relative offset;
- an IP sequence's first frame gets the RFC 2625 headers and the IP and TCP
  or UDP headers of the packet it carries (:mod:`fcsim.fc4.ip_header`); the
  payload bytes of every frame are zeros;
- an FCP sequence gets its information unit (FCP_CMND with its READ(10) or
  WRITE(10) CDB, FCP_XFER_RDY, FCP_RSP) and a PRLI its service parameter page
  (:mod:`fcsim.fc4.fcp_bytes`); data is zeros;
- an NVMe PRLI gets its service parameter page of TYPE 0x28 and an NVMe_SR
  or NVMe_SR_RSP its IU (:mod:`fcsim.fc4.nvme_bytes`); the other FC-NVMe IUs
  and link services are zeros;
- a REC and its LS_ACC or LS_RJT get their payload (:mod:`fcsim.fc2.rec`).

It keeps the little state a capture needs across frames: the IP
identification counter of each source, and the window scale each TCP
endpoint announced, since the window field is sent scaled only once both
SYNs carried the option (RFC 1323 section 2).
"""

from __future__ import annotations

import struct

from fcsim.ethernet.frame import ETHERTYPE_IPV4, TPID_8021Q, EthernetFrame
from fcsim.fc2 import header as h
from fcsim.fc2.frame import Frame
from fcsim.fc2.rec import Rec, RecAnswer, answer_bytes, rec_bytes
from fcsim.fc4.fcp import Command, Response, TransferReady
from fcsim.fc4.fcp_bytes import fcp_cmnd, fcp_rsp, fcp_xfer_rdy, prli
from fcsim.fc4.fcp_initiator import PRLI
from fcsim.fc4.ip import LLC_SNAP, NETWORK_HEADER
from fcsim.fc4.ip_header import (
    IPPROTO_TCP,
    IPPROTO_UDP,
    LLC_SNAP_IPV4,
    ip_address,
    ipv4_header,
    network_header,
    tcp_header,
    tcp_options,
    udp_header,
)
from fcsim.fc4.nvme import NvmeSr, NvmeSrResponse, PrliNvme
from fcsim.fc4.nvme_bytes import nvme_sr, nvme_sr_rsp, prli_nvme
from fcsim.myrinet.packet import MyrinetPacket
from fcsim.transport.segment import MAX_WINDOW_FIELD, SYN, Segment
from fcsim.transport.udp import Datagram


def _port(address: str) -> int:
    """The port number of a ``host:port`` endpoint address."""
    _host, _sep, port = address.rpartition(":")
    return int(port) if port.isdigit() else 0


def _fcp(r_ctl: int, ulp: object) -> bytes | None:
    """The bytes of an FCP information unit or a PRLI, from what its sequence carries."""
    if isinstance(ulp, Command):
        return fcp_cmnd(ulp)
    if isinstance(ulp, TransferReady) and r_ctl == h.R_CTL_DATA_DESCRIPTOR:
        return fcp_xfer_rdy(ulp)
    if isinstance(ulp, Response):
        return fcp_rsp(ulp)
    if ulp == PRLI:
        return prli(r_ctl == h.R_CTL_ELS_REPLY, r_ctl == h.R_CTL_ELS_REQUEST)
    if isinstance(ulp, PrliNvme):
        return prli_nvme(r_ctl == h.R_CTL_ELS_REPLY, r_ctl == h.R_CTL_ELS_REQUEST, ulp)
    if isinstance(ulp, NvmeSr):
        return nvme_sr(ulp)
    if isinstance(ulp, NvmeSrResponse):
        return nvme_sr_rsp(ulp)
    return None


class UpperLayerBytes:
    """Rebuilds data fields for one capture (frames in the order they were sent)."""

    def __init__(self) -> None:
        self._ident: dict[int, int] = {}
        self._wscale: dict[str, int | None] = {}

    def content(self, frame: Frame) -> bytes | None:
        """The data field of *frame* (None: zeros, or the frame's own bytes)."""
        seq = frame.sequence
        if seq is None or frame.payload is not None:
            return None
        ulp = seq.ulp
        if isinstance(ulp, bytes):
            return ulp[frame.parameter:frame.parameter + frame.data_len]
        if frame.parameter == 0 and not frame.is_link_control:
            if isinstance(ulp, Rec):
                return rec_bytes(ulp, frame.s_id)
            if isinstance(ulp, RecAnswer):
                return answer_bytes(ulp, frame.d_id, frame.s_id)
            fcp = _fcp(seq.r_ctl, ulp)
            if fcp is not None:
                return fcp
        if seq.type != h.TYPE_IP or frame.parameter != 0 or frame.is_link_control:
            return None
        headers = self._ip(ulp, frame.s_id, frame.d_id, seq.size - NETWORK_HEADER - LLC_SNAP)
        if headers is None:
            return None
        return network_header(frame.d_id, frame.s_id) + LLC_SNAP_IPV4 + headers

    def ethernet(self, frame: EthernetFrame) -> bytes:
        """An Ethernet frame from its destination MAC to its last data byte (no
        FCS): MAC header (with the IEEE 802.1Q tag, TPID 0x8100 and the VLAN ID
        with priority 0, if the frame is tagged on its line), the IP and TCP or
        UDP headers of its packet, zeros for the data, padding to the 60-byte
        minimum."""
        tag = struct.pack(">HH", TPID_8021Q, frame.vlan) if frame.tagged else b""
        head = frame.dst.to_bytes(6, "big") + frame.src.to_bytes(6, "big") + tag + struct.pack(
            ">H", ETHERTYPE_IPV4)
        ip = self._ip(frame.ulp, frame.src & 0xFFFFFF, frame.dst & 0xFFFFFF, frame.payload)
        body = (ip or b"").ljust(frame.payload, b"\0")
        return (head + body).ljust(60, b"\0")

    def raw_ip(self, packet: MyrinetPacket) -> bytes:
        """The IP packet a Myrinet packet carries, as LINKTYPE_RAW holds it: the IP
        and TCP or UDP headers, zeros for the data."""
        ip = self._ip(packet.ulp, packet.src, packet.dst, packet.payload)
        return (ip or b"").ljust(packet.payload, b"\0")

    def _ip(self, ulp: object, source: int, destination: int, total: int) -> bytes | None:
        """IPv4 and TCP or UDP headers of the packet *ulp* of *total* bytes from
        link address *source* to *destination* (None: not an IP packet)."""
        src, dst = ip_address(source), ip_address(destination)
        if isinstance(ulp, Segment):
            transport = self._tcp(ulp, src, dst)
            protocol = IPPROTO_TCP
        elif isinstance(ulp, Datagram):
            transport = udp_header(src, dst, _port(ulp.src), _port(ulp.dst), ulp.length)
            protocol = IPPROTO_UDP
        else:
            return None
        ident = self._ident[source] = self._ident.get(source, 0) + 1
        return ipv4_header(src, dst, protocol, total, ident) + transport

    def _tcp(self, segment: Segment, src: bytes, dst: bytes) -> bytes:
        window = segment.window
        if segment.flags & SYN:
            self._wscale[segment.src] = segment.wscale
            field = min(window, MAX_WINDOW_FIELD)
        else:
            mine, theirs = self._wscale.get(segment.src), self._wscale.get(segment.dst)
            field = window >> mine if mine is not None and theirs is not None else window
            field = min(field, MAX_WINDOW_FIELD)
        return tcp_header(src, dst, _port(segment.src), _port(segment.dst), segment.seq,
                          segment.ack, segment.flags, field,
                          tcp_options(segment.mss, segment.wscale, segment.tsval, segment.tsecr),
                          segment.length)
