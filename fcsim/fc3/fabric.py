"""FC-3 in a fabric: a scenario's alias groups built and routed in its switches.

:func:`install_aliases` gives each group its Alias_ID, has its members join
through the alias server (or joins them at once, for static registration),
logs the senders of workloads addressed to a group in with it (implicitly, as
RFC 4338 has N_Ports do for the broadcast address: no PLOGI is sent to an
alias) and hands every switch the :class:`AliasRouter`. A switch asks the
router about a frame whose D_ID it cannot route, which is how an alias
address reaches its group.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fcsim.engine.simulation import Simulation
from fcsim.fabric.addressing import area_of, domain_of
from fcsim.fabric.services import E_D_TOV
from fcsim.fabric.switch import F_RJT_INVALID_D_ID, Switch
from fcsim.fabric.switch_port import SwitchPort
from fcsim.fc2 import header as h
from fcsim.fc2.frame import Frame
from fcsim.fc2.login import PeerLogin
from fcsim.fc3.alias import FIRST_ALIAS_ID, MAX_GROUPS, AliasGroup, AliasJoin, AliasServer
from fcsim.fc3.hunt import HuntGroup
from fcsim.fc3.multicast import MulticastGroup
from fcsim.scenario.model import Scenario

if TYPE_CHECKING:
    from fcsim.topology.fabric import FabricNetwork


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
        """A frame a switch sent itself crossed its crossbar (a multicast copy?)."""
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


def install_aliases(sim: Simulation, scenario: Scenario, net: FabricNetwork) -> AliasRouter:
    """Build the alias groups of *scenario* into the fabric *net* (whose N_Ports
    and addresses exist) and return the router now in each of its switches."""
    if len(scenario.alias_groups) > MAX_GROUPS:
        raise ValueError(f"at most {MAX_GROUPS} alias groups, got {len(scenario.alias_groups)}")
    by_domain = {sw.domain: sw for sw in net.switches.values()}
    groups: list[AliasGroup] = []
    for index, config in enumerate(scenario.alias_groups):
        members = [(name, net.nodes[name]) for name in config.members]
        ids = [net.addresses[name] for name in config.members]
        alias_id = FIRST_ALIAS_ID + index
        group: AliasGroup
        if config.kind == "hunt-group":
            f_ports = {m: by_domain[domain_of(m)].local[area_of(m)] for m in ids}
            group = HuntGroup(sim, config.name, alias_id, members, ids, f_ports,
                              config.exchanges_per_member, E_D_TOV)
        else:
            group = MulticastGroup(sim, config.name, alias_id, members, ids)
        groups.append(group)
        if config.registration == "static":
            group.join_all()
        else:
            for _, nport in members:
                AliasJoin(nport, group)
    server = AliasServer(groups)
    router = AliasRouter(groups, server)
    for switch in net.switches.values():
        switch.aliases = router
        if switch.services is not None:
            switch.services.aliases = server
    for w in scenario.workloads:
        group = router.by_name.get(getattr(w, "destination", ""))
        if group is not None:
            params = [nport.params for _, nport in group.members]
            classes = frozenset({3}) if isinstance(group, MulticastGroup) else frozenset(
                {2, 3}).intersection(*(p.classes for p in params))
            net.nodes[w.source].peers[group.alias_id] = PeerLogin(
                group.alias_id, min(p.rx_data_field for p in params),
                min(p.ee_credit for p in params), classes)
    net.addresses.update({g.name: g.alias_id for g in groups})
    return router
