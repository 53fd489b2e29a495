"""The fabric controller's state change notification (FC-LS SCR and RSCN).

In a run with faults each N_Port registers with the fabric controller
(FFFFFD) during its fabric login: a State Change Registration (SCR) for
every kind of change, answered LS_ACC. When an N_Port leaves the fabric (its
link failed) or joins it again (logged in once more), the controller sends
every other registered N_Port that may see it (with zones, those sharing a
zone with it: notifications do not cross zone boundaries) a Registered
State Change Notification (RSCN) naming its N_Port ID, from the switch
that N_Port is on, after that switch's service time; the N_Port answers
LS_ACC and looks again (GID_FT, then PLOGI to the peers it sends to that
are back: :mod:`fcsim.fabric.login`). The switches' exchange of SW_RSCN
between them is not modelled: every switch learns of the change at once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fcsim.fabric.addressing import FABRIC_CONTROLLER, port_id
from fcsim.fc2 import header as h
from fcsim.fc2.els_payload import ls_acc, rscn
from fcsim.fc2.frame import Frame
from fcsim.fc2.sequence import Exchange

if TYPE_CHECKING:
    from fcsim.fabric.switch import Switch
    from fcsim.fabric.zoning import Zoning


class FabricController:
    """The fabric controller of the fabric of *switches*, zoned by *zoning*
    (None: no zones): who registered for state changes (:attr:`registered`,
    N_Port IDs) and how many RSCNs it sent."""

    port_id = FABRIC_CONTROLLER
    name = "fabric controller"

    def __init__(self, switches: list[Switch], zoning: Zoning | None = None) -> None:
        self.switches = switches
        self.zoning = zoning
        self.registered: set[int] = set()
        self.sent = 0
        self._next_ox_id = 0

    def register(self, frame: Frame) -> bytes:
        """An SCR from *frame*'s S_ID: register it; the LS_ACC's payload."""
        self.registered.add(frame.s_id)
        return ls_acc()

    def notify(self, changed: int) -> int:
        """Send an RSCN naming N_Port *changed* to every other registered N_Port
        zoned with it whose link is up; how many were sent."""
        sent = 0
        for switch in self.switches:
            for index, sp in sorted(switch.local.items()):
                d_id = port_id(switch.domain, index)
                if d_id == changed or d_id not in self.registered:
                    continue
                if self.zoning is not None and not self.zoning.visible(d_id, (changed,)):
                    continue
                exchange = Exchange(self._next_ox_id, self, d_id)  # type: ignore[arg-type]
                self._next_ox_id = (self._next_ox_id + 1) % h.UNASSIGNED_ID
                switch.services.send(  # type: ignore[union-attr]
                    sp, exchange, 0, h.R_CTL_ELS_REQUEST, h.TYPE_ELS, rscn([changed]), d_id,
                    FABRIC_CONTROLLER, h.F_CTL_FIRST_SEQUENCE | h.F_CTL_RELATIVE_OFFSET)
                sent += 1
        self.sent += sent
        return sent
