"""A built switched fabric: its N_Ports, links and switches, and its results.

:mod:`fcsim.fabric.build` builds it; FC-3's builder (:mod:`fcsim.fc3.build`)
plugs in the fabric's alias groups (:class:`AliasGroups`), which the network
asks when it is up and for their figures.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from fcsim.fabric.congestion import culprits_and_victims, port_counters
from fcsim.fabric.cures import CureRun
from fcsim.fabric.hard_zoning import ZonedFPort
from fcsim.fabric.login import FabricLogin
from fcsim.fabric.npiv import SharedPort
from fcsim.fabric.routing import balance
from fcsim.fabric.switch import Switch
from fcsim.fabric.switch_port import SwitchPort
from fcsim.fabric.trunk import Trunk
from fcsim.fc2.link_recovery import FrameLosses
from fcsim.topology.network import Network


class AliasGroups(Protocol):
    """The alias groups of a fabric (:class:`fcsim.fc3.alias_router.AliasRouter`)."""

    @property
    def by_name(self) -> Mapping[str, Any]:
        """Each group by name."""

    def not_up(self) -> str | None:
        """Why the groups are not usable yet, or None."""

    def up_at(self) -> float:
        """When the last group became ready, s."""

    def reset_stats(self) -> None:
        """Start a new measurement interval."""

    def results(self, interval: float) -> dict[str, Any]:
        """The groups' figures over *interval* s."""


class Notifications(Protocol):
    """The fabric's FPINs (:class:`fcsim.fabric.notifications.FabricNotifications`)."""

    def results(self) -> dict[str, Any]:
        """What was registered, sent and received, with times."""


class FabricNetwork(Network):
    """A built fabric: N_Ports, links and switches by name, the timed fabric
    login of each N_Port (with ``run.login``), and the ISLs, each as (switch,
    switch, link name, FSPF cost) with its switch port at each end by switch
    name (:attr:`isl_ends`); its *zones*, each (name, N_Port names), and
    whether its F_Ports enforce them frame by frame (*hard_zoning*)."""

    def __init__(self) -> None:
        super().__init__()
        self.switches: dict[str, Switch] = {}
        self.addresses: dict[str, int] = {}
        self.aliases: AliasGroups | None = None
        """FC-3's alias groups, plugged in by their builder (None: none)."""
        self.losses = FrameLosses()
        """The frames its switches lost in faults (a run with faults)."""
        self.logins: dict[str, FabricLogin] = {}
        self.isls: list[tuple[str, str, str, float]] = []
        self.isl_ends: dict[str, dict[str, SwitchPort]] = {}
        self.zones: tuple[tuple[str, tuple[str, ...]], ...] = ()
        self.flows: tuple[tuple[str, str], ...] = ()
        """The (sender, receiver) pairs data goes between: those that log in
        with each other, and the way back for a block job's (a read's data)."""
        self.hard_zoning = False
        self.shared: dict[str, SharedPort] = {}
        """Per N_Port with virtual N_Ports behind it (NPIV), their shared link port."""
        self.trunks: dict[str, Trunk] = {}
        """The ISL trunks by name (each also in :attr:`isls` as one adjacency)."""
        self.virtual_of: dict[str, str] = {}
        """Per virtual N_Port, the N_Port whose link port it shares."""
        self.fabric_of: dict[str, int] = {}
        """The fabric of each switch and N_Port (:func:`fcsim.fabric.build.fabrics`)."""
        self.cures: list[CureRun] = []
        """The congestion cures at work in it (:mod:`fcsim.fabric.cures`)."""
        self.fpin: Notifications | None = None
        """Its notifications, plugged in with ``[fpin]`` (None: none)."""

    def address_of(self, node: str) -> int:
        """The N_Port ID the fabric gives *node* (domain / port / 00), or the
        Alias_ID of an alias group."""
        return self.addresses[node]

    def same_fabric(self, a: str, b: str) -> bool:
        """True if N_Ports *a* and *b* are on one fabric (switches joined by
        inter-switch links), so that frames between them are routed; a
        virtual N_Port is on its physical port's."""
        fabric = self.fabric_of
        a, b = self.virtual_of.get(a, a), self.virtual_of.get(b, b)
        return a in fabric and fabric[a] == fabric.get(b)

    def not_up(self) -> str | None:
        """Why the fabric is not usable yet: logins (but those the fabric
        refused, NPIV past a port's limit), then alias groups joining."""
        why = super().not_up()
        return why if why is not None or self.aliases is None else self.aliases.not_up()

    def refused(self, name: str) -> bool:
        """True if the fabric refused N_Port *name*'s login (an FDISC past its
        port's NPIV limit): it is not waited for."""
        login = self.logins.get(name)
        return login is not None and login.refused

    def up_at(self) -> float:
        """When every N_Port had logged in and every alias group was joined, s."""
        up = super().up_at()
        return up if self.aliases is None else max(up, self.aliases.up_at())

    def reset_stats(self) -> None:
        """Start a new measurement interval for ports, N_Ports, switches and groups."""
        super().reset_stats()
        for switch in self.switches.values():
            switch.reset_stats()
        for trunk in self.trunks.values():
            trunk.reset_stats()
        if self.aliases is not None:
            self.aliases.reset_stats()

    def results(self, interval: float) -> dict[str, Any]:
        """Per link direction, N_Port and switch figures over *interval* s."""
        out = super().results(interval)
        out["login_s"] = {name: node.ready_at for name, node in self.nodes.items()}
        out["switches"] = {
            name: {"domain": sw.domain, "model": sw.model.name,
                   "frames_forwarded": sw.stats.forwarded, "f_bsy": sw.stats.f_bsy,
                   "f_rjt": sw.stats.f_rjt, "discarded": sw.stats.discarded,
                   "discarded_payload": sw.stats.discarded_payload,
                   "refused_payload": sw.stats.refused_payload, "errors": sw.stats.errors,
                   "output_queues": {str(index): sp.queue.results(sw.sim.now)
                                     for index, sp in sorted(sw.ports.items())},
                   "ports": {str(index): port_counters(sp, interval)
                             for index, sp in sorted(sw.ports.items())}}
            for name, sw in self.switches.items()}
        out["congestion"] = culprits_and_victims(self.switches, self.addresses, self.flows,
                                                 interval)
        if self.cures:
            out["cures"] = {cure.name: cure.results(interval) for cure in self.cures}
        if self.aliases is not None:
            out["fc3"] = self.aliases.results(interval)
        if self.zones:
            out["zoning"] = self._zoning()
        if self.shared:
            out["npiv"] = self._npiv()
        if self.fpin is not None:
            out["fpin"] = self.fpin.results()
        if self.trunks:
            out["trunks"] = {name: trunk.results(interval) for name, trunk in self.trunks.items()}
        out["routing"] = self._routing(out["links"], out.get("trunks", {}))
        return out

    def _routing(self, links: dict[str, Any], trunks: dict[str, Any]) -> dict[str, Any]:
        """Each switch's routing policy and its equal-cost groups: per switch,
        each set of two or more next hops some destination domains share, with
        the load of each ISL (or trunk) direction leaving by it (utilisation,
        frames, share of the group's mean) and how evenly it falls
        (:func:`balance`)."""
        isl_of = {(switch, sp.index): name for name, ends in self.isl_ends.items()
                  for switch, sp in ends.items()}
        groups = []
        for name, switch in self.switches.items():
            domains_of: dict[tuple[int, ...], list[int]] = {}
            for domain, hops in sorted(switch.routes.items()):
                if len(hops) > 1:
                    domains_of.setdefault(tuple(sp.index for sp in hops), []).append(domain)
            for indices, domains in domains_of.items():
                members = []
                for index in indices:
                    link = isl_of[(name, index)]
                    if link in trunks:
                        direction = next(d for key, d in trunks[link]["directions"].items()
                                         if key.startswith(f"{name}->"))
                    else:
                        direction = next(d for key, d in links[link]["directions"].items()
                                         if key.startswith(f"{switch.ports[index].port.name}->"))
                    members.append({"isl": link, "port": index,
                                    "utilisation": direction["utilisation"],
                                    "frames": direction["frames"]})
                even = balance([m["utilisation"] for m in members])
                for m in members:
                    m["share"] = m["utilisation"] / even["mean"] if even["mean"] > 0 else 0.0
                groups.append({"switch": name, "policy": switch.routing, "domains": domains,
                               "isls": members, "balance": even})
        return {"policies": {name: sw.routing for name, sw in self.switches.items()},
                "groups": groups}

    def _npiv(self) -> dict[str, Any]:
        """Per physical N_Port with virtual ones: its N_Ports, those logged in
        and those refused; per switch port, the FDISCs it accepted and refused."""
        ports = {}
        for name, shared in self.shared.items():
            names = [nport.name for nport in shared.nports]
            ports[name] = {
                "n_ports": len(names),
                "logged_in": sum(self.nodes[n].ready_at is not None for n in names),
                "refused": sorted(n for n in names if n in self.logins
                                  and self.logins[n].refused)}
        fdisc = {}
        for switch in self.switches.values():
            services = switch.services
            if services is None:
                continue
            for index in sorted(set(services.fdisc_accepted) | set(services.fdisc_refused)):
                fdisc[switch.ports[index].port.name] = {
                    "accepted": services.fdisc_accepted.get(index, 0),
                    "refused": services.fdisc_refused.get(index, 0)}
        return {"ports": ports, "fdisc": fdisc}

    def _zoning(self) -> dict[str, Any]:
        """The zones and, per N_Port, the others its name server shows it."""
        sharing = {name: {m for _, members in self.zones if name in members for m in members}
                   for name in self.nodes}
        out: dict[str, Any] = {
            "zones": {name: list(members) for name, members in self.zones},
            "visible": {name: sorted(others - {name}) for name, others in sharing.items()}}
        if self.hard_zoning:
            out["enforcement"] = "hard"
            out["dropped"] = {sp.port.name: sp.zone_dropped
                              for switch in self.switches.values()
                              for sp in switch.ports.values() if isinstance(sp, ZonedFPort)}
        return out
