"""Captures of a run: the trace sink that writes frames to a libpcap or pcapng
file, and the link types a scenario's frames need."""

from __future__ import annotations

from typing import Any

from fcsim.scenario.model import Scenario
from fcsim.trace.pcap import (
    LINKTYPE_ETHERNET,
    LINKTYPE_FC_2_WITH_FRAME_DELIMS,
    LINKTYPE_RAW,
    PcapWriter,
)
from fcsim.trace.pcapng import PcapngWriter

LINKTYPES = {"ethernet": LINKTYPE_ETHERNET, "myrinet": LINKTYPE_RAW}
"""The link type of each LAN topology's frames (Myrinet's: the IP packet of each
packet, raw, Myrinet having no link type of its own); Fibre Channel's is FC-2
with its frame delimiters."""


def linktypes(scenario: Scenario) -> set[int]:
    """The link types of the frames *scenario*'s networks carry (an internetwork
    may need several: a libpcap file holds one, a pcapng file one per
    interface)."""
    topologies = [net.topology for net in scenario.networks] or [scenario.topology]
    return {LINKTYPES.get(t, LINKTYPE_FC_2_WITH_FRAME_DELIMS) for t in topologies}


class PcapSink:
    """Trace sink that stamps each frame with the time its EOF left the sender.

    *ports*: capture only the cables of these ports (frames they send or
    receive), as an analyzer is put on a cable; empty: every frame on every
    link (a frame crossing a switch is then written once per link).
    """

    def __init__(self, writer: PcapWriter | PcapngWriter,
                 ports: frozenset[str] = frozenset()) -> None:
        self.writer = writer
        self.ports = ports

    def frame(self, time: float, port: Any, frame: Any, start: float, end: float) -> None:
        ports = self.ports
        peer = port.peer.name if port.peer is not None else "loop"
        if ports and port.name not in ports and peer not in ports:
            return
        if isinstance(self.writer, PcapngWriter):
            self.writer.write(end, frame, f"{port.name}->{peer}")
        else:
            self.writer.write(end, frame)

    def primitive(self, time: float, port: Any, name: str, start: float) -> None:
        """Primitive signals have no libpcap form; they are left out."""

    def state(self, time: float, port: Any, change: str) -> None:
        """Link state changes have no libpcap form; they are left out."""
