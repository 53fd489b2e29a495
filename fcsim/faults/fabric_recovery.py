"""A fabric's side of faults: what a switch does when one of its links fails,
resets or comes back, and FSPF's answer.

- A switch port that leaves Active (Link Reset, Link Failure, a failed port
  or switch) empties its receive buffers: the frames queued in the switch
  from that input are lost and counted.
- A switch port whose link failed loses the frames queued to leave through
  it (their input buffers are freed, with R_RDYs upstream) and its Class 1
  reservations (both the switch's own doing:
  :class:`fcsim.fabric.recovering_switch.RecoveringSwitch`, the kind of
  switch a fabric with faults is built of). If it is an F_Port, the switch no
  longer routes to its N_Port (frames for it are refused: F_RJT for Class 2,
  discarded for Class 3), the name server forgets it (an implicit logout)
  and the fabric controller sends an RSCN (:mod:`fcsim.fabric.rscn`); when
  the N_Port has logged in again, another. If it is an E_Port, FSPF
  (:mod:`fcsim.fabric.fspf`) tells the fabric: the switch routes around it
  at once, the others when its link state update reaches them, within
  FSPF's timers; the ISL is used again once both its ends are Active and the
  switches have heard of it. E_Port initialisation (ELP, ESC, EFP) is not
  modelled.

The fabric's routes have *converged* (:meth:`FabricRecovery.converged`) when
every switch that is up holds the current LSR of every switch it can reach
and last computed its routes over exactly the ISLs that are Active at both
ends among them: what it would route over had nothing failed, and no switch
pauses its forwarding after a route change (in-order delivery). Until then
traffic across an ISL that came back does not flow over it, and a fault of
an ISL is not over (see :mod:`fcsim.faults.incidents`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fcsim.engine.simulation import Simulation
from fcsim.fabric.addressing import port_id
from fcsim.fabric.build import route
from fcsim.fabric.fspf import DEFAULT_TIMERS, Fspf, FspfTimers, lsu_bytes
from fcsim.fabric.network import FabricNetwork
from fcsim.fabric.recovering_switch import RecoveringSwitch
from fcsim.fabric.routing import next_hops
from fcsim.fabric.rscn import FabricController
from fcsim.fabric.switch_port import SwitchPort
from fcsim.fc2.link_recovery import LinkControl
from fcsim.fc2.port_states import AC, DOWN


class FabricRecovery:
    """The recovery of the switches of *net*, FSPF timed by *timers*;
    *note(text)* is told of each change of routes and each RSCN, for the
    incident records."""

    def __init__(self, sim: Simulation, net: FabricNetwork, note: Callable[[str], None],
                 timers: FspfTimers = DEFAULT_TIMERS,
                 routed: Callable[[], None] | None = None) -> None:
        self.sim, self.net, self.note = sim, net, note
        self._routed = routed
        self.stats = net.losses  # the frames the switches lost
        switches: list[RecoveringSwitch] = []
        for switch in net.switches.values():
            if not isinstance(switch, RecoveringSwitch):
                raise TypeError(f"switch {switch.name} was not built to recover from faults")
            switches.append(switch)
        self._switches = {switch.name: switch for switch in switches}
        self.controller = FabricController(
            switches, switches[0].services.zoning if switches else None)  # type: ignore[arg-type, union-attr]
        self._isl_of = {sp: key for key, ends in net.isl_ends.items() for sp in ends.values()}
        self._isl_ports = set(self._isl_of)
        self._isl_controls = {sp.port.lcf for sp in self._isl_ports}  # type: ignore[attr-defined]
        self._tables: dict[frozenset[str], dict[Any, Any]] = {}
        everything = frozenset(net.isl_ends)
        self._views = dict.fromkeys(net.switches, everything)
        """The ISLs each switch last computed its routes over (the builder's: all)."""
        self.fspf = Fspf(sim, list(net.switches), net.isls, timers, self._active, self._hop,
                         self._install, self._computed)
        self._f_ports = {sp for switch in net.switches.values() for sp in switch.local.values()}
        for switch in switches:
            switch.services.controller = self.controller  # type: ignore[union-attr]
            for sp in switch.ports.values():
                lcf: LinkControl = sp.port.lcf  # type: ignore[attr-defined]
                lcf.listeners.append(self._listener(switch, sp))
                sp.port.flush_hooks.append(  # type: ignore[attr-defined]
                    lambda switch=switch, sp=sp: switch.lose_input(sp))

    def _listener(self, switch: RecoveringSwitch, sp: SwitchPort) -> Callable[..., None]:
        def changed(lcf: LinkControl, old: str, new: str, reason: str) -> None:
            if new in DOWN and sp not in switch.failed:
                self._failed(switch, sp, reason)
            elif new == AC and sp in switch.failed:
                switch.port_back(sp)
                self._back(switch, sp)
        return changed

    # -- a link fails or comes back -------------------------------------------------

    def _failed(self, switch: RecoveringSwitch, sp: SwitchPort, reason: str) -> None:
        switch.port_failed(sp)
        if sp in self._isl_ports:
            self.fspf.changed(switch.name, self._isl_of[sp], f"{switch.name}:{sp.index} {reason}")
        elif sp in self._f_ports:
            del switch.local[sp.index]
            address = port_id(switch.domain, sp.index)
            switch.services.directory.discard(address)  # type: ignore[union-attr]
            self._notify(address, f"{switch.name}:{sp.index} left the fabric")

    def _back(self, switch: RecoveringSwitch, sp: SwitchPort) -> None:
        if sp in self._isl_ports:
            self.fspf.changed(switch.name, self._isl_of[sp],
                              f"{switch.name}:{sp.index} Active again")
        elif sp in self._f_ports:
            switch.local[sp.index] = sp

    def logged_in(self, address: int, name: str) -> None:
        """N_Port *name* at *address* has logged in again: tell the others."""
        self._notify(address, f"{name} logged in again")

    def _notify(self, address: int, why: str) -> None:
        sent = self.controller.notify(address)
        if sent:
            self.note(f"RSCN for {address:06X} ({why}) to {sent} N_Port"
                      f"{'s' if sent > 1 else ''}")

    # -- FSPF's view of the switches ----------------------------------------------------

    def _active(self, switch: str) -> frozenset[str]:
        """The ISLs whose port at *switch* is up: Active since its link last
        failed (a Link Reset does not take an E_Port down)."""
        failed = self.net.switches[switch].failed  # type: ignore[attr-defined]
        return frozenset(key for key, ends in self.net.isl_ends.items()
                         if (sp := ends.get(switch)) is not None and sp not in failed)

    def _hop(self, key: str, switch: str, links: int) -> float:
        """An LSU's time from *switch* over ISL *key*: its frame at the line rate
        and the cable's delay, s."""
        port = self.net.isl_ends[key][switch].port
        return lsu_bytes(links) * port.char_time + port.delay

    def _install(self, name: str, isls: list[tuple[str, str, str, float]]) -> None:
        """Routes for switch *name* over *isls*: the switches that see the same
        ISLs share one computation of the paths."""
        view = frozenset(isl[2] for isl in isls)
        self._views[name] = view
        table = self._tables.get(view)
        if table is None:
            table = self._tables[view] = next_hops(self.net.switches, isls)
        switch = self._switches[name]
        pauses = len(switch.pauses)
        route(self.net, isls, [name], table)
        if switch.in_order is not None and len(switch.pauses) > pauses:
            self.sim.call_later(switch.in_order, self._resumed)
        for sp in switch.ports.values():
            sp.port.kick()

    def _resumed(self, _value: object) -> None:
        """A switch's in-order delivery pause after new routes is over (its
        held frames were queued just before): the routes may now carry traffic."""
        if self._routed is not None:
            self._routed()

    def _computed(self, text: str) -> None:
        """A switch computed its routes (*text* says which, over how many ISLs)."""
        self.note(text)
        if self._routed is not None:
            self._routed()

    def is_isl(self, lcf: LinkControl) -> bool:
        """Whether *lcf* is the link control of a switch's E_Port."""
        return lcf in self._isl_controls

    def converged(self) -> bool:
        """Whether FSPF has converged on the ISLs as they are now: each switch
        that is up holds, for every switch it can reach over ISLs Active at
        both ends, the LSR that switch would originate now (its Active
        E_Ports), and last computed its routes over exactly the ISLs Active at
        both ends among those switches; and no switch is pausing its
        forwarding towards a domain after a route change (in-order delivery).
        Until then a switch may route over a stale record, or not over an ISL
        that is back, or hold the frames that would cross it."""
        if any(switch.paused for switch in self._switches.values()):
            return False
        active = {name: self._active(name) for name in self.net.switches}
        up = [isl for isl in self.fspf.isls
              if isl.key in active[isl.a] and isl.key in active[isl.b]]
        part = {name: name for name in self.net.switches}

        def find(name: str) -> str:
            while part[name] != name:
                part[name] = part[part[name]]
                name = part[name]
            return name
        for isl in up:
            part[find(isl.a)] = find(isl.b)
        groups: dict[str, list[str]] = {}
        for name in self.net.switches:
            groups.setdefault(find(name), []).append(name)
        failed = self.fspf.failed_switches
        by_key = self.fspf.by_key
        for name, view in self._views.items():
            if name in failed:
                continue
            group = find(name)
            expected = {isl.key for isl in up if find(isl.a) == group}
            seen = {key for key in view if group in (find(by_key[key].a), find(by_key[key].b))}
            database = self.fspf.lsdb[name]
            if seen != expected or any(database[other].links != active[other]
                                       for other in groups[group]):
                return False
        return True

    @property
    def reroutes(self) -> list[dict[str, Any]]:
        """Each switch's route computations: when, why and over how many ISLs."""
        return self.fspf.computations

    def results(self) -> dict[str, Any]:
        """Routes recomputed, frames the switches lost, RSCNs and SW_RSCNs sent
        and the name-server queries and logins the RSCNs set off, as JSON."""
        return {"reroutes": self.reroutes, "lsus_sent": self.fspf.lsus_sent,
                "lsus_discarded": self.fspf.lsus_discarded, "frames_lost": self.stats.frames_lost,
                "payload_lost_bytes": self.stats.payload_lost,
                "rscn_sent": self.controller.sent, "sw_rscn_sent": self.controller.sw_rscn_sent,
                "rscn_queries": sum(login.rscn_queries for login in self.net.logins.values()),
                "rscn_logins": sum(login.rscn_logins for login in self.net.logins.values())}
