"""The routing step FC-3 plugs into a fabric's switches: alias addresses.

A switch asks its :class:`AliasRouter` (:class:`fcsim.fabric.switch.AliasRouting`)
about a frame whose D_ID its own tables cannot route, which is how an alias
address reaches its group, and tells it of each frame that crossed its
crossbar (how a multicast frame's input buffer is freed after its last copy).
:func:`fcsim.fc3.build.install_aliases` builds the groups and plugs it in.
"""

from __future__ import annotations

from typing import Any

from fcsim.fabric.switch import F_RJT_INVALID_D_ID, Switch
from fcsim.fabric.switch_port import SwitchPort
from fcsim.fc2 import header as h
from fcsim.fc2.frame import Frame
from fcsim.fc3.alias import AliasGroup, AliasServer
from fcsim.fc3.hunt import HuntGroup
from fcsim.fc3.multicast import MulticastGroup


class AliasRouter:
    """The alias groups of one fabric, by Alias_ID and by name."""

    def __init__(self, groups: list[AliasGroup], server: AliasServer) -> None:
        self.groups = {g.alias_id: g for g in groups}
        self.by_name = {g.name: g for g in groups}
        self.server = server
        self._multicast = [g for g in groups if isinstance(g, MulticastGroup)]

    def route(self, switch: Switch, inp: SwitchPort, frame: Frame) -> SwitchPort | None:
        """The output for *frame* addressed to an alias, or None when its group
        replicated or refused it (F_RJT for an address that is no group's)."""
        group = self.groups.get(frame.d_id)
        if group is None:
            switch.refuse(inp, frame, h.R_CTL_F_RJT, F_RJT_INVALID_D_ID)
            return None
        return group.route(switch, inp, frame)

    def crossed(self, frame: Frame) -> None:
        """A data frame crossed a switch's crossbar (a multicast copy?)."""
        for group in self._multicast:
            if group.crossed(frame):
                return

    def not_up(self) -> str | None:
        """Why the groups are not usable yet (members still joining), or None."""
        waiting = [g for g in self.by_name.values() if g.ready_at is None]
        if not waiting:
            return None
        return "; ".join(f"alias group {g.name} had {len(g.ready)} of {len(g.ids)} members "
                         "joined" for g in waiting)

    def up_at(self) -> float:
        """When the last group became ready, s."""
        return max((g.ready_at or 0.0 for g in self.by_name.values()), default=0.0)

    def reset_stats(self) -> None:
        """Start a new measurement interval for every group."""
        for group in self.by_name.values():
            group.reset_stats()

    def results(self, interval: float) -> dict[str, Any]:
        """Each group's figures, hunt groups and multicast groups apart."""
        return {"alias_server_joins": self.server.joins,
                "hunt_groups": {g.name: g.results(interval) for g in self.by_name.values()
                                if isinstance(g, HuntGroup)},
                "multicast_groups": {g.name: g.results(interval)
                                     for g in self.by_name.values()
                                     if isinstance(g, MulticastGroup)}}
