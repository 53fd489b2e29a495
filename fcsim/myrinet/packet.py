"""Myrinet packets as the line sees them.

A packet is its source route (one byte per switch still to cross: each
switch reads the first byte, sends the packet out of the port it names and
strips it), a 4-byte packet type, the payload (here an IP packet, carried
without an adaptation layer), and an 8-bit CRC trailer, which every switch
recomputes for the shorter packet it sends on; a GAP control symbol ends the
packet on every link. There is no link MTU: a packet may be of any length.
So a packet of *n* payload bytes with *k* route bytes left costs
``k + n + 6`` characters of line time with its GAP.

Sources: storage-and-lan fact sheet 1.2 (source route, MSB-set route bytes
consumed per switch, 4-byte type per ANSI/VITA 26-1998 section 3.4, packets
of any length); Myricom's GM source (``GM_CRC_TYPE`` is a ``char``: an 8-bit
CRC per packet); athlon-clusters.com/myri2.htm ("packets may be of any
length ... IP packets, without an adaptation layer").
"""

from __future__ import annotations

from typing import Any

TYPE = 4
"""Packet type, bytes."""
CRC = 1
"""CRC-8 trailer, bytes."""
GAP = 1
"""The GAP control symbol that ends a packet, characters."""


class MyrinetPacket:
    """A packet from node address *src* to *dst* along *route* (the output port
    at each switch in turn) with *payload* bytes (an IP packet, *ulp*).
    *number*: its place among the packets its sender has sent (for order
    checks); *corrupt* and *sequence* are what trace sinks ask of any frame."""

    __slots__ = ("src", "dst", "route", "payload", "ulp", "number", "corrupt", "sequence")

    def __init__(self, src: int, dst: int, route: tuple[int, ...], payload: int,
                 ulp: Any = None, number: int = 0) -> None:
        self.src, self.dst, self.route, self.payload = src, dst, route, payload
        self.ulp, self.number = ulp, number
        self.corrupt = False
        self.sequence = None  # no FC sequence

    def chars(self, route_left: int) -> int:
        """Characters of the packet on a link where *route_left* route bytes
        remain, with its GAP."""
        return packet_chars(self.payload, route_left)

    def __repr__(self) -> str:
        return (f"<MyrinetPacket {self.src}->{self.dst} route {list(self.route)} "
                f"{self.payload} B>")


def packet_chars(payload: int, route_left: int = 0) -> int:
    """Line characters of a packet of *payload* bytes with *route_left* route
    bytes still in front of it, with its CRC and GAP."""
    return route_left + TYPE + payload + CRC + GAP
