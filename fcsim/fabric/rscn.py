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
are back: :mod:`fcsim.fabric.login`).

The switch that detected the change tells its own N_Ports at once and every
other switch by an SW_RSCN (FC-SW-7 inter-switch RSCN), a frame from its
domain controller (FFFC00 + its domain) to theirs, routed over the ISLs
like any frame and answered by that switch's services after their service
time: each switch then sends the RSCNs to its own registered N_Ports. The
SW_RSCN's payload is its first three words (command, affected N_Port ID,
detection function; 12 bytes); the SW_ACC it is answered with, and Class F
(SW_ILS go in Class F: here Class 3, queued with the data), are not
modelled. A storm is what follows one change in a large fabric: N - 1
SW_RSCNs in an N-domain fabric, an RSCN to every other registered N_Port
zoned with it, and from those that send to it a name-server query (GID_FT)
each and, once it is back, a PLOGI each.
"""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING

from fcsim.fabric.addressing import FABRIC_CONTROLLER, domain_controller, domain_of, port_id
from fcsim.fc2 import header as h
from fcsim.fc2.els_payload import ls_acc, rscn
from fcsim.fc2.frame import Frame
from fcsim.fc2.sequence import Exchange

SW_RSCN = 0x1B
"""The SW_ILS command code of an inter-switch RSCN (FC-SW-7: 1B000000h)."""
DETECTED_BY_FABRIC = 1
"""SW_RSCN detection function: the change was detected by the fabric (FC-SW-7)."""

if TYPE_CHECKING:
    from fcsim.fabric.switch import Switch
    from fcsim.fabric.switch_port import SwitchPort
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
        self.sw_rscn_sent = 0
        self._next_ox_id = 0
        self._by_domain = {switch.domain: switch for switch in switches}

    def register(self, frame: Frame) -> bytes:
        """An SCR from *frame*'s S_ID: register it; the LS_ACC's payload."""
        self.registered.add(frame.s_id)
        return ls_acc()

    def notify(self, changed: int) -> int:
        """N_Port *changed* left or joined: the switch it is on sends an RSCN
        naming it to each other registered N_Port zoned with it on that
        switch whose link is up, and an SW_RSCN to every other switch it can
        reach, which sends the RSCNs to its own (:meth:`switch_changed`); how
        many RSCNs that makes (those of the other switches once their SW_RSCN
        is in)."""
        origin = self._by_domain.get(domain_of(changed))
        count = 0
        for switch in self.switches:
            recipients = self._recipients(switch, changed)
            count += len(recipients)
            if switch is origin or origin is None:
                self._send_rscns(switch, changed, recipients)
            else:  # every switch hears of it (its name server forgets or learns the port)
                self._send_sw_rscn(origin, switch, changed)
        return count

    def switch_changed(self, switch_name: str, payload: bytes) -> None:
        """An SW_RSCN (*payload*) reached the domain controller of switch
        *switch_name*: it sends the RSCNs to its own registered N_Ports."""
        changed = struct.unpack_from(">I", payload, 4)[0] & 0xFFFFFF
        switch = next(s for s in self.switches if s.name == switch_name)
        self._send_rscns(switch, changed, self._recipients(switch, changed))

    def _recipients(self, switch: Switch, changed: int) -> list[tuple[int, SwitchPort]]:
        """The registered N_Ports on *switch* told of a change of *changed*."""
        out = []
        for index, sp in sorted(switch.local.items()):
            d_id = port_id(switch.domain, index)
            if d_id == changed or d_id not in self.registered:
                continue
            if self.zoning is not None and not self.zoning.visible(d_id, (changed,)):
                continue
            out.append((d_id, sp))
        return out

    def _exchange(self, d_id: int) -> Exchange:
        exchange = Exchange(self._next_ox_id, self, d_id)  # type: ignore[arg-type]
        self._next_ox_id = (self._next_ox_id + 1) % h.UNASSIGNED_ID
        return exchange

    def _send_rscns(self, switch: Switch, changed: int,
                    recipients: list[tuple[int, SwitchPort]]) -> None:
        for d_id, sp in recipients:
            switch.services.send(  # type: ignore[union-attr]
                sp, self._exchange(d_id), 0, h.R_CTL_ELS_REQUEST, h.TYPE_ELS, rscn([changed]),
                d_id, FABRIC_CONTROLLER, h.F_CTL_FIRST_SEQUENCE | h.F_CTL_RELATIVE_OFFSET)
        self.sent += len(recipients)

    def _send_sw_rscn(self, origin: Switch, switch: Switch, changed: int) -> None:
        """An SW_RSCN naming *changed* from *origin* to *switch*, over the first
        of origin's next hops towards it (none if the fabric is partitioned)."""
        hops = origin.routes.get(switch.domain)
        if not hops:
            return
        d_id = domain_controller(switch.domain)
        payload = struct.pack(">B3xII", SW_RSCN, changed, DETECTED_BY_FABRIC)
        origin.services.send(  # type: ignore[union-attr]
            hops[0], self._exchange(d_id), 0, h.R_CTL_ELS_REQUEST, h.TYPE_ELS, payload, d_id,
            domain_controller(origin.domain), h.F_CTL_FIRST_SEQUENCE | h.F_CTL_RELATIVE_OFFSET)
        self.sw_rscn_sent += 1
