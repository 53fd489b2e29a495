"""The header bytes of IP over Fibre Channel, for captures.

Simulated packets carry header fields and lengths, not bytes; these functions
write what the first frame of an IP sequence holds, so that a capture decodes
as the packets that were simulated (the payload bytes themselves are zeros).

- RFC 2625 section 8: the 16-byte Network_Header, destination then source
  Network_Address, each an 8-byte Name with NAA 1 (IEEE 48-bit address) in
  its top nibble; then the 8-byte LLC/SNAP header AA-AA-03, OUI 00-00-00,
  EtherType 0x0800 for IPv4.
- RFC 791: the 20-byte IPv4 header (no options; TTL 64; no DF, as 4.4BSD
  sends) with its header checksum.
- RFC 793 / RFC 1323: the TCP header, with the MSS and window-scale options
  on a SYN and the timestamps option where the segment carries it, the
  window field as sent (the advertised window shifted right by the sender's
  scale once both SYNs carried one), checksum over the pseudo-header;
  RFC 768: the UDP header and checksum.
- RFC 1071: the Internet checksum.

Addresses: simulated hosts have no IP addresses; a node's address is
``10.D.A.P`` from its N_Port ID D/A/P (RFC 1918 space), and its IEEE address
for the Network_Header ``02:00:00:D:A:P`` (locally administered).
"""

from __future__ import annotations

import struct

IPPROTO_TCP = 6
IPPROTO_UDP = 17
LLC_SNAP_IPV4 = bytes((0xAA, 0xAA, 0x03, 0, 0, 0, 0x08, 0x00))
"""LLC/SNAP header of an IPv4 packet (RFC 2625 section 8)."""
TTL = 64


def checksum(data: bytes) -> int:
    """The 16-bit one's complement of the one's complement sum of *data* (RFC 1071)."""
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack(f">{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def ip_address(port_id: int) -> bytes:
    """The IPv4 address of the node with N_Port ID *port_id*: 10.D.A.P."""
    return bytes((10, port_id >> 16 & 0xFF, port_id >> 8 & 0xFF, port_id & 0xFF))


def network_header(d_id: int, s_id: int) -> bytes:
    """RFC 2625 Network_Header: destination and source Network_Address (NAA 1)."""
    def name(port_id: int) -> bytes:
        return bytes((0x10, 0, 0x02, 0, 0)) + port_id.to_bytes(3, "big")
    return name(d_id) + name(s_id)


def ipv4_header(src: bytes, dst: bytes, protocol: int, total_length: int,
                ident: int) -> bytes:
    """A 20-byte IPv4 header of a *total_length*-byte packet, checksum filled in."""
    header = struct.pack(">BBHHHBBH4s4s", 0x45, 0, total_length, ident & 0xFFFF, 0, TTL,
                         protocol, 0, src, dst)
    return header[:10] + struct.pack(">H", checksum(header)) + header[12:]


TIMESTAMP_TICK = 1e-3
"""Period of the timestamp clock a capture writes, s. RFC 1323 section 4.2.2
asks for 1 ms to 1 s a tick; the simulation keeps the exact send time, so a
capture writes it in milliseconds (4.4BSD's own clock, tcp_now, ticks every
500 ms)."""


def tcp_options(mss: int | None, wscale: int | None, tsval: float | None = None,
                tsecr: float | None = None) -> bytes:
    """TCP options in 4.4BSD tcp_output's order: MSS (kind 2), then a NOP and
    window scale (kind 3), then two NOPs and timestamps (kind 8, length 10, RFC
    1323 appendix A) with *tsval* and *tsecr*, s, as counts of
    :data:`TIMESTAMP_TICK`."""
    out = b""
    if mss is not None:
        out += struct.pack(">BBH", 2, 4, mss)
    if wscale is not None:
        out += struct.pack(">BBBB", 1, 3, 3, wscale)
    if tsval is not None:
        ticks = (round(t / TIMESTAMP_TICK) & 0xFFFFFFFF for t in (tsval, tsecr or 0.0))
        out += struct.pack(">BBBBII", 1, 1, 8, 10, *ticks)
    return out


def tcp_header(src: bytes, dst: bytes, sport: int, dport: int, seq: int, ack: int,
               flags: int, window_field: int, options: bytes, payload_length: int) -> bytes:
    """A TCP header with *options* and its checksum over the pseudo-header, this
    header and *payload_length* zero bytes (which add nothing to the sum)."""
    offset = (20 + len(options)) // 4
    header = struct.pack(">HHIIBBHHH", sport, dport, seq & 0xFFFFFFFF, ack & 0xFFFFFFFF,
                         offset << 4, flags, window_field, 0, 0) + options
    length = len(header) + payload_length
    pseudo = src + dst + struct.pack(">BBH", 0, IPPROTO_TCP, length)
    return header[:16] + struct.pack(">H", checksum(pseudo + header)) + header[18:]


def udp_header(src: bytes, dst: bytes, sport: int, dport: int, payload_length: int) -> bytes:
    """A UDP header and its checksum (0 is sent as 0xFFFF, RFC 768)."""
    length = 8 + payload_length
    header = struct.pack(">HHHH", sport, dport, length, 0)
    pseudo = src + dst + struct.pack(">BBH", 0, IPPROTO_UDP, length)
    return header[:6] + struct.pack(">H", checksum(pseudo + header) or 0xFFFF)
