"""Hunt groups: one alias address answered by whichever member is free.

A hunt group is a set of N_Ports (typically of one node, under a common
controlling entity) that share an alias address, the Hunt Group ID. The
fabric routes a frame addressed to it to a member that is not busy: "the
fabric assigns the first available N_Port within this hunt group as the
destination" (Fibre Channel Association, *Fibre Channel Primer*, ch. 7, after
FC-PH-2/3). So the fabric decides, and the rule is the first free member in
group order. Here the choice is made per exchange, by the switch where the
exchange's first frame enters the fabric: every later frame of the exchange
goes to the same member (a sequence must reach one N_Port to be reassembled),
and the member is released when the last frame of the exchange's last
sequence (F_CTL Last_Sequence with End_Sequence) reaches the member's switch, or
when no frame of the exchange has passed for the fabric's E_D_TOV.

Busy: a member serving *exchanges_per_member* exchanges of the group (a
model value, 1 by default: as a line of a telephone hunt group takes one
call), or whose F_Port is held by a Class 1 connection of another pair. When
every joined member is busy, a Class 2 frame is answered F_BSY (its sender
sends the sequence again after its busy-retry delay) and a Class 3 frame is
discarded; both are counted. The fabric does not queue (FC-PH's camp-on is
for Class 1, which hunt groups here do not carry). Members answer with the
Hunt Group ID as S_ID, so the originator sees one peer, the group.
"""

from __future__ import annotations

from typing import Any

from fcsim.engine.simulation import Simulation
from fcsim.fabric.addressing import domain_of
from fcsim.fabric.switch import F_RJT_INVALID_D_ID, Switch
from fcsim.fabric.switch_port import SwitchPort
from fcsim.fc2 import header as h
from fcsim.fc2.frame import Frame
from fcsim.fc2.nport import NPort
from fcsim.fc3.alias import AliasGroup

_ENDS_EXCHANGE = h.F_CTL_LAST_SEQUENCE | h.F_CTL_END_SEQUENCE


class _Pin:
    """The member an exchange was given, and when a frame of it last passed (s)."""

    __slots__ = ("member", "last")

    def __init__(self, member: int, last: float) -> None:
        self.member = member
        self.last = last


class HuntGroup(AliasGroup):
    """A hunt group; *f_ports* are the members' F_Ports by N_Port ID, *e_d_tov*
    the fabric's error-detect timeout, s."""

    kind = "hunt-group"

    def __init__(self, sim: Simulation, name: str, alias_id: int,
                 members: list[tuple[str, NPort]], ids: list[int],
                 f_ports: dict[int, SwitchPort], exchanges_per_member: int,
                 e_d_tov: float) -> None:
        super().__init__(sim, name, alias_id, members, ids)
        self.f_ports = f_ports
        self.capacity = exchanges_per_member
        self.e_d_tov = e_d_tov
        self.open = dict.fromkeys(ids, 0)
        self._pins: dict[tuple[int, int], _Pin] = {}
        self._checking = False
        self.reset_stats()

    def reset_stats(self) -> None:
        """Zero the counters of the measured interval."""
        self.exchanges = dict.fromkeys(self.ids, 0)
        self.frames = dict.fromkeys(self.ids, 0)
        self.busy = self.discarded = self.refused = self.expired = 0

    def busy_member(self, member: int, frame: Frame) -> bool:
        """True if *member* may not take a new exchange of *frame*'s originator."""
        if self.open[member] >= self.capacity:
            return True
        reserved = self.f_ports[member].reserved
        return reserved is not None and reserved != frozenset((frame.s_id, self.alias_id))

    def choose(self, frame: Frame) -> int | None:
        """The member for the new exchange *frame* opens: the first joined member
        in group order that is not busy; None if all are, or if *frame* does not
        open a sequence (the rest of a sequence whose first frame was refused)."""
        if frame.seq_cnt != 0 or frame.is_link_control:
            return None
        return next((m for m in self.ids if m in self.joined
                     and not self.busy_member(m, frame)), None)

    def route(self, switch: Switch, inp: SwitchPort, frame: Frame) -> SwitchPort | None:
        """The output towards the member serving *frame*'s exchange, choosing one
        for a new exchange; None after refusing the frame."""
        if frame.cls == 1:
            switch.refuse(inp, frame, h.R_CTL_F_RJT, h.P_RJT_CLASS_NOT_SUPPORTED)
            return None
        key = (frame.s_id, frame.ox_id)
        pin = self._pins.get(key)
        now = self.sim.now
        if pin is None:
            member = self.choose(frame)
            if member is None:
                if not self.joined or frame.is_link_control:  # discarded (no answer)
                    switch.refuse(inp, frame, h.R_CTL_F_RJT, F_RJT_INVALID_D_ID)
                    return None
                if frame.cls == 3:
                    self.discarded += 1
                else:
                    self.busy += 1
                self.refused += frame.seq_cnt == 0
                switch.refuse(inp, frame, h.R_CTL_F_BSY, h.P_BSY_PORT_BUSY)
                return None
            pin = self._pins[key] = _Pin(member, now)
            self.open[member] += 1
            self.exchanges[member] += 1
            self._watch()
        pin.last = now
        out = switch.output_for(frame, pin.member, inp)
        if out is None:  # the member cannot be reached from here
            switch.refuse(inp, frame, h.R_CTL_F_RJT, F_RJT_INVALID_D_ID)
            return None
        if domain_of(pin.member) == switch.domain:
            self.frames[pin.member] += 1
            if frame.f_ctl & _ENDS_EXCHANGE == _ENDS_EXCHANGE and not frame.is_link_control:
                self._unpin(key, pin)
        return out

    def _unpin(self, key: tuple[int, int], pin: _Pin) -> None:
        del self._pins[key]
        self.open[pin.member] -= 1

    def _watch(self) -> None:
        """Keep one expiry check pending while any exchange holds a member."""
        if not self._checking:
            self._checking = True
            self.sim.call_later(self.e_d_tov, self._expire)

    def _expire(self, _event: object) -> None:
        """Release members whose exchange has had no frame for E_D_TOV."""
        now = self.sim.now
        earliest = None
        for key, pin in list(self._pins.items()):
            if now - pin.last >= self.e_d_tov * (1 - 1e-9):
                self._unpin(key, pin)
                self.expired += 1
            elif earliest is None or pin.last < earliest:
                earliest = pin.last
        self._checking = earliest is not None
        if earliest is not None:
            self.sim.call_later(earliest + self.e_d_tov - now, self._expire)

    def results(self, interval: float) -> dict[str, Any]:
        """Per member the exchanges it was given and the frames routed to it; for
        the group the new exchanges refused (their first frame answered F_BSY
        or discarded), the F_BSY answers and Class 3 frames discarded with
        every member busy, and the exchanges released by E_D_TOV."""
        out = super().results(interval)
        out["per_member"] = {self.names[m]: {"exchanges": self.exchanges[m],
                                             "frames": self.frames[m]} for m in self.ids}
        out.update(exchanges=sum(self.exchanges.values()), refused=self.refused,
                   busy=self.busy, discarded=self.discarded, expired=self.expired,
                   exchanges_per_member=self.capacity)
        return out
