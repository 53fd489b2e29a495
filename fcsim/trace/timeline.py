"""A protocol-analyzer timeline: one text line per frame or R_RDY on a link.

Each line shows the time the transmitter began sending (µs), the link
direction, what was sent (the SOF and EOF delimiters of a frame, its kind,
S_ID -> D_ID, SEQ_ID / SEQ_CNT, OX_ID / RX_ID and payload bytes; or the
primitive signal), the BB credit the sender has left, and what the frame
carries for the upper layers (a TCP segment, an FCP information unit; see
:mod:`fcsim.trace.labels`). An Ethernet frame shows ETH, the last three bytes
of its MACs and its payload; a Myrinet packet shows MYRI, its source and
destination addresses and its payload, written once its GAP has gone (it
may stop and go on the way), and the STOP and GO symbols show as primitive
lines. With faults, the primitive sequences a port sends (NOS, OLS, LR, LRR,
IDLE) show as primitive lines from the word they begin, and each change of a
port's link state as a ``state`` line (``AC -> LF2: loss of signal``). Meant
for teaching and debugging short runs: a saturated 1GFC link makes ~50,000
lines per simulated second.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TextIO

from fcsim.ethernet.frame import EthernetFrame
from fcsim.myrinet.packet import MyrinetPacket
from fcsim.trace.labels import upper_layer

if TYPE_CHECKING:
    from fcsim.fc2.frame import Frame
    from fcsim.fc2.port import Port

HEADER = (f"{'time (us)':>14}  {'direction':<16} {'SOF':<6} {'kind':<6} {'S_ID->D_ID':<14} "
          f"{'SEQ_ID':>6} {'SEQ_CNT':>7} {'OX_ID':>5} {'RX_ID':>5} {'bytes':>5} {'EOF':<6} credit "
          "upper layer")


class Timeline:
    """Writes the timeline to *out*, a text stream."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        out.write(HEADER + "\n")

    def frame(self, time: float, port: Port, frame: Frame, start: float, end: float) -> None:
        """Write one frame line (called by the transmitting port)."""
        if isinstance(frame, EthernetFrame):  # MACs (their last 3 bytes) and payload
            self.out.write(
                f"{start * 1e6:14.3f}  {_direction(port):<16} {'ETH':<6} {'frame':<6} "
                f"{frame.src & 0xFFFFFF:06X}->{frame.dst & 0xFFFFFF:06X} {'':>6} {'':>7} "
                f"{'':>5}  {'':>5}  {frame.payload:5d} {'':<6} {'-':<6} "
                f"{upper_layer(frame)}".rstrip() + "\n")
            return
        if isinstance(frame, MyrinetPacket):  # addresses and payload; it ended at *end*
            self.out.write(
                f"{start * 1e6:14.3f}  {_direction(port):<16} {'MYRI':<6} {'packet':<6} "
                f"{frame.src:06X}->{frame.dst:06X} {'':>6} {'':>7} "
                f"{'':>5}  {'':>5}  {frame.payload:5d} {'':<6} {'-':<6} "
                f"{upper_layer(frame)}".rstrip() + "\n")
            return
        self.out.write(
            f"{start * 1e6:14.3f}  {_direction(port):<16} {frame.sof.name:<6} {frame.kind:<6} "
            f"{frame.s_id:06X}->{frame.d_id:06X} {frame.seq_id:6d} {frame.seq_cnt:7d} "
            f"{frame.ox_id:04X}  {frame.rx_id:04X}  {frame.payload_len:5d} {frame.eof.name:<6} "
            f"{port.credit:<6} {upper_layer(frame)}".rstrip() + "\n")

    def primitive(self, time: float, port: Port, name: str, start: float) -> None:
        """Write one primitive-signal line (R_RDY)."""
        self.out.write(f"{start * 1e6:14.3f}  {_direction(port):<16} {name:<6}"
                       f"{'':<73}{port.credit}\n")


    def state(self, time: float, port: Port, change: str) -> None:
        """Write one line for a change of *port*'s link state (fault recovery)."""
        self.out.write(f"{time * 1e6:14.3f}  {port.name:<16} state  {change}\n")


def _direction(port: Port) -> str:
    peer = port.peer
    return f"{port.name}->{peer.name if peer else '?'}"
