"""NPIV: several N_Ports, each with its own N_Port ID, behind one physical
link port (N_Port ID Virtualization, FC-LS-5 FDISC).

The first N_Port of a node's port logs in with FLOGI and gets domain / port /
00; each virtual one after it logs in with FDISC, once the one before it has
its answer (one fabric login outstanding on the port at a time), and gets
domain / port / k from the switch, up to the switch model's ``npiv_logins``
(:class:`~fcsim.fabric.services.FabricServices`). Each is a whole
:class:`~fcsim.fc2.nport.NPort` (exchanges, sequences, logins, workloads of
its own) sharing the link port: :class:`SharedPort` owns the port, takes the
N_Ports' frames in turn, frame by frame, and hands each received frame to the
N_Port its D_ID names (before an N_Port has its ID, the answer to its FLOGI
or FDISC comes to the one logging in).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from fcsim.fc2.frame import Frame
from fcsim.fc2.nport import NPort
from fcsim.fc2.port import Port


def virtual_names(node: str, count: int) -> list[str]:
    """The names of the *count* virtual N_Ports behind *node*'s first N_Port:
    NAME.v1 .. NAME.v<count>."""
    return [f"{node}.v{k}" for k in range(1, count + 1)]


def virtual_ports_of(nodes: Iterable[Any]) -> list[str]:
    """The names of every virtual N_Port of *nodes* (each with ``name`` and
    ``virtual_ports``, default 0), in node order."""
    return [port for node in nodes
            for port in virtual_names(node.name, getattr(node, "virtual_ports", 0))]


class SharedPort:
    """The owner of link port *port* for *nports* (the physical N_Port first,
    then its virtual ones, each with the N_Port ID it will be given)."""

    def __init__(self, port: Port, nports: list[NPort]) -> None:
        self.port = port
        self.nports = nports
        self.by_id = {nport.port_id: nport for nport in nports}
        self.logging_in = nports[0]
        """The N_Port whose FLOGI or FDISC is outstanding (answers to an N_Port
        ID not yet given go to it)."""
        self._next = 0
        self._starts: list[Callable[[], None]] = []
        port.owner = self

    def log_in(self, starts: list[Callable[[], None]]) -> None:
        """Start the first N_Port's login; *starts*: each N_Port's login start,
        in order, each begun by :meth:`answered` after the one before."""
        self._starts = starts
        starts[0]()

    def answered(self) -> None:
        """The fabric answered the outstanding FLOGI or FDISC (ACC or LS_RJT):
        the next N_Port's login starts."""
        i = self.nports.index(self.logging_in) + 1
        if i < len(self.nports):
            self.logging_in = self.nports[i]
            self._starts[i]()

    def next_frame(self, credit: bool) -> Frame | None:
        """The next frame of the N_Ports, taking them in turn."""
        nports = self.nports
        count = len(nports)
        for step in range(count):
            i = (self._next + step) % count
            frame = nports[i].next_frame(credit)
            if frame is not None:
                self._next = (i + 1) % count
                self.port.drained = False  # another N_Port may have frames: ask again
                return frame
        return None

    def waits_for_credit(self) -> bool:
        """True if one of the N_Ports has a frame ready that needs BB credit."""
        return any(nport.waits_for_credit() for nport in self.nports)

    def _owner(self, frame: Frame) -> NPort:
        return self.by_id.get(frame.d_id, self.logging_in)

    def frame_received(self, frame: Frame) -> None:
        """A good frame arrived: to the N_Port its D_ID names."""
        self._owner(frame).frame_received(frame)

    def frame_dropped(self, frame: Frame) -> None:
        """A frame with a transmission error arrived: to the N_Port its D_ID names."""
        self._owner(frame).frame_dropped(frame)
