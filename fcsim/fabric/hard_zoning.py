"""Hard zoning: an F_Port that checks each frame's S_ID and D_ID against the
zones as it enters the switch and drops the frames between N_Ports that share
no zone.

Soft zoning (:mod:`fcsim.fabric.zoning`) only filters what the name server
shows an N_Port; an N_Port that knows another's address reaches it anyway.
With hard zoning the switch hardware checks every frame: Cisco MDS compares
each frame's source and destination IDs with the permitted pairs as it enters
the switch, at wire speed, and drops the others (MDS 9000 Fabric Manager,
"About Zone Enforcement"); Brocade's ASICs check each frame against the
effective zone configuration and discard the mismatches (Fabric OS
Administrator's Guide v7.0.0, 53-1002148-02, "Zoning enforcement":
frame-based hardware enforcement when a zone's members are all WWNs or all
domain,index; Brocade blocks at the destination's port, where the frame
crossed the fabric first). fcsim checks at the ingress F_Port, as MDS does.
Frames for the well-known addresses (login, name server, fabric controller)
always pass. A dropped frame is discarded whatever its class (no F_RJT) and
counted at its port; its receive buffer is freed once it is whole, as for
any frame the switch discards on arrival.

The fabric's builder makes a node's switch port a :class:`ZonedFPort` when
the scenario asks for hard zoning; every other port (and every port of a
fabric without it) is a plain :class:`~fcsim.fabric.switch_port.SwitchPort`,
which hands frames to the switch without a check.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from fcsim.fabric.addressing import WELL_KNOWN_LOW
from fcsim.fabric.switch_port import Crossbar, SwitchPort
from fcsim.fc2.frame import Frame
from fcsim.fc2.port import Port

NOBODY: frozenset[int] = frozenset()


class Gate(Crossbar, Protocol):
    """What a zoned F_Port needs of its switch beyond the :class:`Crossbar`."""

    def discard_on_arrival(self, inp: SwitchPort, frame: Frame) -> None:
        """Discard *frame*, just arrived at *inp*, freeing its buffer once whole."""


class ZonedFPort(SwitchPort):
    """Port *index* of *switch* facing N_Ports, dropping the frames whose
    D_ID is not in *permitted* of their S_ID (the N_Port IDs that share a
    zone with it, itself included; an N_Port ID absent from *permitted* is in
    no zone and reaches only the fabric's services). *zone_dropped* counts the
    frames dropped since the last reset."""

    def __init__(self, switch: Gate, index: int, port: Port,
                 permitted: Mapping[int, frozenset[int]]) -> None:
        super().__init__(switch, index, port)
        self.gate = switch
        self.permitted = permitted
        self.zone_dropped = 0
        self.frame_received = self.admit
        self.frame_dropped = self.admit_damaged

    def zoned(self, frame: Frame) -> bool:
        """True if *frame* may enter: for a service, or between zoned N_Ports."""
        d_id = frame.d_id
        return d_id >= WELL_KNOWN_LOW or d_id in self.permitted.get(frame.s_id, NOBODY)

    def admit(self, frame: Frame) -> None:
        """A frame (or, cut-through, its header) arrived: to the switch, or dropped."""
        if self.zoned(frame):
            self.gate.arrive(self, frame)
        else:
            self.zone_dropped += 1
            self.gate.discard_on_arrival(self, frame)

    def admit_damaged(self, frame: Frame) -> None:
        """A frame with a transmission error arrived: to the switch, or dropped."""
        if self.zoned(frame):
            self.gate.arrive_damaged(self, frame)
        else:
            self.zone_dropped += 1
            self.gate.discard_on_arrival(self, frame)

    def reset_stats(self, now: float) -> None:
        """Start a new measurement interval at *now* (s)."""
        super().reset_stats(now)
        self.zone_dropped = 0
