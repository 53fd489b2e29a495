"""Trapeze messages and the fragments Myrinet packets carry of them.

A Trapeze message is a control message of at most :data:`CONTROL` bytes with
an optional attached payload (a file block, a virtual-memory page, a TCP
segment), at most one page frame of :data:`PAYLOAD_MAX` bytes here (Chase et
al., "Network I/O with Trapeze", Hot Interconnects 1999, section 2.2; the
FREENIX 1999 Trapeze/IP paper, section 2.1). The host writes the control
message into the card's send ring; the card moves the payload by DMA.

On the link a message travels as one or more :class:`Fragment` packets: the
card's adaptive message pipelining (:mod:`fcsim.trapeze.card`) moves a lone
message's payload in small DMA transfers so that the link and the receiving
card start on its first bytes early, and a backed-up stream in whole
transfers. The first fragment carries the control message. (The Trapeze
firmware streamed a message's fragments as one Myrinet packet, pausing
between them; the link model here cannot pause inside a packet, so each
fragment is a packet of its own: 6 characters and a routing decision more per
fragment, about 0.2 us on the 1.28 Gbit/s generation.)
"""

from __future__ import annotations

from typing import Any

CONTROL = 128
"""A Trapeze control message, bytes: the control message buffers of the send
and receive rings are 128 bytes (Hot Interconnects 1999, section 2.2)."""
PAYLOAD_MAX = 8192
"""The largest payload one message carries here, bytes: one 8 KB page frame,
the block and page size of Trapeze's network storage traffic ("8KB
payloads, which are typical of block I/O traffic", Hot Interconnects 1999,
section 3; the Alpha's page)."""
MIN_FRAGMENT = 1408
"""The smallest DMA transfer of adaptive message pipelining, bytes: the
fixed-size transfers of Trapeze's fixed pipelining (Hot Interconnects 1999,
table 1); taken as the adaptive scheme's smallest (assumption)."""
CUT_THROUGH = True
"""Whether a receiving card moves a packet to host memory while it still
arrives: Trapeze's cut-through delivery (Yocum, Gallatin, Chase and Lebeck,
"Cut-through delivery in Trapeze: an exercise in low-latency messaging",
HPDC 1997, "overlapping host I/O DMA transfers with network traversal"),
which the adaptive message pipelining of the 1998-99 firmware kept on the
receiving side (Yocum et al., "Adaptive Message Pipelining for Network
Memory and Network Storage", Duke 1998: the sender's bus, the link and the
receiver's bus at work on one message at once)."""


class Message:
    """A message from node *src* to node *dst*: *control* bytes of control
    message and *payload* bytes attached; *body* is what it carries for the
    layer above (a NetRPC part). *dmaed*: payload bytes the sending card has
    moved from host memory so far."""

    __slots__ = ("src", "dst", "control", "payload", "body", "dmaed")

    def __init__(self, src: str, dst: str, payload: int, body: Any = None,
                 control: int = CONTROL) -> None:
        if not 0 < control <= CONTROL:
            raise ValueError(f"a Trapeze control message is 1..{CONTROL} bytes, got {control}")
        if not 0 <= payload <= PAYLOAD_MAX:
            raise ValueError(f"a Trapeze payload is 0..{PAYLOAD_MAX} bytes, got {payload}")
        self.src, self.dst, self.control, self.payload, self.body = src, dst, control, payload, body
        self.dmaed = 0

    def __repr__(self) -> str:
        return f"<Trapeze {self.src}->{self.dst} {self.payload} B {self.body!r}>"


class Fragment:
    """What one Myrinet packet carries of *message*: payload bytes *offset* ..
    *offset* + *length*, with the control message if *first*; *last* if it ends
    the message."""

    __slots__ = ("message", "offset", "length", "first", "last")

    def __init__(self, message: Message, offset: int, length: int) -> None:
        self.message, self.offset, self.length = message, offset, length
        self.first = offset == 0
        self.last = offset + length == message.payload

    @property
    def size(self) -> int:
        """Bytes of the packet's payload: the fragment, and the control message
        in the first."""
        return self.length + (self.message.control if self.first else 0)

    def label(self) -> str:
        """What trace output shows of the fragment."""
        m = self.message
        part = ("whole" if self.first and self.last else
                f"bytes {self.offset}-{self.offset + self.length}")
        return f"TRAPEZE {m.src}->{m.dst} {m.body!r} payload {m.payload} B ({part})"
