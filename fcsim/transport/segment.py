"""A TCP segment as the simulator carries it: header fields, no payload bytes.

Sequence and acknowledgement numbers are plain Python ints that start at 0 and
never wrap (RFC 793 arithmetic is modulo 2**32; a simulated run never sends
4 GB on one connection, so the modular comparisons of 4.4BSD ``tcp_seq.h``
reduce to ordinary ones). The SYN and the FIN each occupy one sequence number,
as in RFC 793 section 3.3.
"""

from __future__ import annotations

SYN = 0x02
"""Synchronise sequence numbers (RFC 793 section 3.1)."""
PSH = 0x08
"""Push: 4.4BSD sets it on a segment that empties the send buffer (tcp_output)."""
ACK = 0x10
"""The acknowledgement field is significant."""
FIN = 0x01
"""No more data from the sender."""

HEADER_BYTES = 40
"""IPv4 header (20 bytes) + TCP header (20 bytes) without options, bytes."""

MAX_WINDOW_FIELD = 65535
"""Largest value of the 16-bit window field (RFC 793; TCP_MAXWIN in 4.4BSD)."""

TIMESTAMP_OPTION_BYTES = 12
"""The RFC 1323 timestamps option as 4.4BSD sends it, bytes: two NOPs, kind 8,
length 10, TSval and TSecr of 4 bytes each (RFC 1323 appendix A;
TCPOLEN_TSTAMP_APPA in 4.4BSD-Lite2 tcp.h)."""

_FLAG_NAMES = ((SYN, "S"), (FIN, "F"), (PSH, "P"), (ACK, "."))


class Segment:
    """One TCP segment handed to or received from the layer below.

    *length* is the payload in bytes (the bytes themselves are not carried);
    *window* is the advertised receive window in bytes, already multiplied by
    the sender's window scale: it is a multiple of ``2**shift`` and at most
    ``65535 << shift`` (RFC 1323 section 2.3; never scaled on a SYN).
    *mss* and *wscale* are the SYN options (RFC 793 MSS option, RFC 1323
    window-scale shift), ``None`` when absent. *tsval* and *tsecr* are the
    RFC 1323 timestamps option: the sender's clock when it sent the segment
    and the timestamp it echoes, both in simulated seconds (``None``: no
    option).
    """

    __slots__ = ("src", "dst", "seq", "ack", "length", "flags", "window", "mss", "wscale",
                 "tsval", "tsecr")

    def __init__(
        self,
        src: str,
        dst: str,
        seq: int,
        ack: int,
        length: int,
        flags: int,
        window: int,
        mss: int | None = None,
        wscale: int | None = None,
        tsval: float | None = None,
        tsecr: float | None = None,
    ) -> None:
        self.src = src
        self.dst = dst
        self.seq = seq
        self.ack = ack
        self.length = length
        self.flags = flags
        self.window = window
        self.mss = mss
        self.wscale = wscale
        self.tsval = tsval
        self.tsecr = tsecr

    @property
    def option_bytes(self) -> int:
        """TCP options carried, bytes: MSS (4) and NOP + window scale (4) on a SYN,
        the timestamps option (12) on any segment."""
        return ((4 if self.mss is not None else 0) + (4 if self.wscale is not None else 0)
                + (TIMESTAMP_OPTION_BYTES if self.tsval is not None else 0))

    @property
    def wire_bytes(self) -> int:
        """IP datagram size: payload, the 40 header bytes and the options, bytes."""
        return self.length + HEADER_BYTES + self.option_bytes

    @property
    def flag_names(self) -> str:
        """The flags as tcpdump writes them: S, F, P and "." for ACK, in brackets."""
        return "[" + "".join(name for bit, name in _FLAG_NAMES if self.flags & bit) + "]"

    def __repr__(self) -> str:
        flags = self.flag_names[1:-1]
        opts = ""
        if self.mss is not None:
            opts += f" mss={self.mss}"
        if self.wscale is not None:
            opts += f" wscale={self.wscale}"
        if self.tsval is not None:
            opts += f" tsval={self.tsval:.9f} tsecr={self.tsecr:.9f}"
        return (f"Segment({self.src}>{self.dst} [{flags}] seq={self.seq} ack={self.ack} "
                f"len={self.length} win={self.window}{opts})")


__all__ = ["ACK", "FIN", "HEADER_BYTES", "MAX_WINDOW_FIELD", "PSH", "SYN",
           "TIMESTAMP_OPTION_BYTES", "Segment"]
