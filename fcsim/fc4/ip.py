"""IP over Fibre Channel as RFC 2625 specifies it.

One IP packet travels as one FC-2 sequence (TYPE 0x05, R_CTL 0x04 device
data, unsolicited) whose first frame carries the 16-byte Network_Header
(flagged in DF_CTL) and the 8-byte LLC/SNAP header before the packet. The MTU
is 65,280 bytes (65,536 less 256 reserved for headers). Each packet is an
exchange of its own (its OX_ID free again once FC-2 is done with the packet):
one sequence that opens and ends it (F_CTL First_Sequence
and Last_Sequence), never transferring sequence initiative, as the Linux
driver of the Interphase 5526 sends IP (``iph5526.c``, ``tx_exchange``: a new
OX_ID for each packet from a counter, the SEQ_ID from the card's counter).
RFC 2625 allows this or a long-lived exchange; with a long-lived one the
8-bit SEQ_ID comes round again after 256 packets, which FC-FS allows once the
earlier sequence is complete but which a capture reader such as Wireshark,
reassembling by addresses, OX_ID and SEQ_ID (``packet-fc.c``), takes for
the same sequence again. The packets to one destination still leave one at
a time in the order IP gave them (one ordered stream, as the card's queue of
outbound sequences): the exchange per packet changes the headers, not the
timing. Class 3 by default, as RFC 4338 recommends; RFC 2625 lets the
administrator choose Class 1, 2 or 3. Address resolution is static: the host
layer names the destination N_Port directly.
"""

from __future__ import annotations

from collections.abc import Callable

from fcsim.fc2 import header as h
from fcsim.fc2.nport import NPort
from fcsim.fc2.sequence import Sequence

MTU = 65280
"""Largest IP packet, bytes (RFC 2625 section 5)."""
NETWORK_HEADER = 16
"""Network_Header: destination and source 8-byte names, bytes."""
LLC_SNAP = 8
"""LLC/SNAP header: AA AA 03 00 00 00 + EtherType, bytes."""


class IpOverFc:
    """The IP-over-FC interface of *nport*, sending in Class *cls*.

    *deliver(packet, length, time)* is called for each IP packet received
    whole (its handler of frame TYPE IP on *nport*).
    """

    def __init__(self, nport: NPort, cls: int = 3,
                 deliver: Callable[[object, int, float], None] | None = None) -> None:
        if cls not in (1, 2, 3):
            raise ValueError(f"{nport.name}: IP class must be 1, 2 or 3, got {cls}")
        self.nport = nport
        self.cls = cls
        self.deliver = deliver
        self.packets_tx = self.packets_rx = 0
        self._streams: dict[int, object] = {}  # per destination, the stream its packets join
        nport.register((h.TYPE_IP,), self._received)

    def send(self, d_id: int, length: int, packet: object,
             sent: Callable[[Sequence], None] | None = None) -> Sequence:
        """Send an IP packet of *length* bytes to N_Port *d_id*; *sent(seq)* when FC-2
        is done with it."""
        if not 0 < length <= MTU:
            raise ValueError(f"{self.nport.name}: IP packet of {length} bytes; MTU is {MTU}")
        stream = self._streams.get(d_id)
        if stream is None:
            stream = self._streams[d_id] = object()
        nport = self.nport
        exchange = nport.open_exchange(d_id, stream)
        self.packets_tx += 1

        def done(seq: Sequence) -> None:
            nport.end_exchange(seq)  # the packet's exchange ends with its one sequence
            if sent is not None:
                sent(seq)
        return nport.send(
            exchange, NETWORK_HEADER + LLC_SNAP + length, self.cls, last=True,
            r_ctl=h.R_CTL_UNSOLICITED_DATA, type_=h.TYPE_IP, df_ctl=h.DF_CTL_NETWORK,
            ulp=packet, on_complete=done)

    def _received(self, seq: Sequence, time: float) -> bool:
        """An IP packet arrived whole: it is IP's."""
        self.packets_rx += 1
        if self.deliver is not None:
            self.deliver(seq.ulp, seq.size - NETWORK_HEADER - LLC_SNAP, time)
        return True
