"""IEEE 802.3 frames as the line sees them.

On the line a frame is its preamble and start-of-frame delimiter (8 bytes),
the MAC header (14 bytes: destination, source, EtherType), an 802.1Q tag when
the frame carries a VLAN on a trunk (4 bytes), the payload padded to the
46-byte minimum (42 with a tag; 64 bytes from destination to FCS either way),
and the FCS (4 bytes); a 12-byte inter-frame gap follows (the port's gap).
1000BASE-X sends each byte as one 8b/10b transmission character, the same
code as Fibre Channel's FC-1, so a frame of *n* payload bytes costs
``n + 38`` characters of line time with its gap (``n + 42`` tagged).
"""

from __future__ import annotations

from typing import Any

PREAMBLE = 8
"""Preamble and start-of-frame delimiter, bytes."""
HEADER = 14
"""Destination and source MAC addresses and EtherType, bytes."""
VLAN_TAG = 4
"""IEEE 802.1Q tag, bytes."""
FCS = 4
"""Frame check sequence (CRC-32), bytes."""
MIN_FRAME = 64
"""Smallest frame from destination address to FCS, bytes."""
GAP = 12
"""Inter-frame gap, bytes (characters)."""
MTU = 1500
"""Standard payload limit, bytes."""
JUMBO_MTU = 9000
"""Jumbo-frame payload limit of the period's Gigabit Ethernet gear, bytes."""
ETHERTYPE_IPV4 = 0x0800
"""EtherType of IPv4."""
TPID_8021Q = 0x8100
"""Tag protocol identifier of an IEEE 802.1Q tag (in the EtherType's place)."""
PAUSE_QUANTUM_BITS = 512
"""A PAUSE quantum: 512 bit times (IEEE 802.3 Annex 31B)."""
MAX_QUANTA = 0xFFFF
"""The longest pause a PAUSE frame asks for, quanta."""


class EthernetFrame:
    """A frame from MAC *src* to MAC *dst* with *payload* bytes (an IP packet,
    *ulp*), on VLAN *vlan*; *tagged*: it carries the 802.1Q tag on the line it
    is on. *chars* is its line time in transmission characters (without the
    gap); *corrupt* marks a frame hit by a bit error (its FCS fails); *pause*:
    a MAC control PAUSE frame's quanta (None: a data frame)."""

    __slots__ = ("src", "dst", "payload", "ulp", "vlan", "tagged", "chars", "corrupt",
                 "sequence", "pause")

    def __init__(self, src: int, dst: int, payload: int, ulp: Any = None, vlan: int = 1,
                 tagged: bool = False) -> None:
        self.src, self.dst, self.payload, self.ulp = src, dst, payload, ulp
        self.vlan, self.tagged = vlan, tagged
        self.chars = frame_chars(payload, tagged)
        self.corrupt = False
        self.sequence = None  # no FC sequence (trace sinks ask)
        self.pause: int | None = None  # a MAC control PAUSE frame: its quanta

    @property
    def size(self) -> int:
        """Bytes from destination address to FCS."""
        return self.chars - PREAMBLE

    def __repr__(self) -> str:
        return f"<EthernetFrame {self.src:012x}->{self.dst:012x} {self.payload} B vlan {self.vlan}>"


def frame_chars(payload: int, tagged: bool = False) -> int:
    """Characters of a frame with *payload* bytes on the line, without the gap."""
    tag = VLAN_TAG if tagged else 0
    body = max(payload, MIN_FRAME - HEADER - tag - FCS)
    return PREAMBLE + HEADER + tag + body + FCS


def pause_frame(src: int, quanta: int) -> EthernetFrame:
    """An 802.3x PAUSE frame from MAC *src* asking for *quanta* (0: resume): a
    64-byte MAC control frame to 01-80-C2-00-00-01."""
    frame = EthernetFrame(src, 0x0180C2000001, 46)
    frame.pause = quanta
    return frame
