"""Congestion isolation: the flows to a device found slow move to the
low-priority virtual channel of every ISL.

Cisco MDS switches' Congestion Isolation "can detect a slow-drain device via
port monitor or manual configuration and isolate the slow-drain device from
other normally performing devices on an ISL": traffic "in the direction of
the slow device is routed to a low-priority VL" of the ISLs' ER_RDY virtual
links, VL2 (Cisco MDS 9000 Series Interfaces Configuration Guide, Release
8.x, "Congestion Isolation"); Brocade's slow drain device quarantine (SDDQ),
a MAPS action, moves "the slow-drain flows to a low priority virtual channel
(VC) from the existing VC (medium or high) thus freeing up the resources for
the regular flows in the existing VC" (Brocade Fabric OS Command Reference
53-1004112-02, ``sddQuarantine``).

Detection is Cisco's port monitor: it polls a port's counters every poll
interval and acts when a counter's change over the interval reaches the
rising threshold, given for TxWait as a percentage of the interval (Cisco
"Sample MDS port-monitor policy": "Port-monitor works on a rising-threshold
and falling-threshold basis"). Here every F_Port's TxWait is read every
*window* as the other cures read it
(:class:`fcsim.fabric.congestion.PortWindow`); a device whose F_Port held
back traffic over the window by the congestion view's own rule
(:func:`fcsim.fabric.congestion.holds_back`, with the *rising* fraction) is
isolated: its (domain, area) joins the fabric's isolated set, which every
channelled ISL's assignment reads (:mod:`fcsim.fabric.virtual_channels`),
and every switch moves the frames for it already queued to their new
channel (:meth:`~fcsim.fabric.virtual_channels.VirtualChannelSwitch.reassign`).

Recovery: Cisco NX-OS 8.x "does not automatically remove any devices from
congestion isolation"; Brocade clears a quarantined port by command
(``sddquarantine --clear``, refused while the condition persists); NX-OS
8.5(1)'s Fabric Performance Monitor added automatic recovery of isolated
flows (its rule was not retrieved). With *recover* a device is taken back
when its F_Port's TxWait over a window falls below the *falling* fraction,
the port monitor's falling threshold, which is the stated assumption.

The counters are read where they are kept (no work per frame); the polls
are events only in a fabric with isolation configured. It is one of the
fabric's cures (:mod:`fcsim.fabric.cures`, the scenario's
``[congestion.isolation]``), its results under ``cures.isolation``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fcsim.engine.simulation import Simulation
from fcsim.fabric.congestion import PortWindow, holds_back
from fcsim.fabric.cures import Isolation
from fcsim.fabric.switch import Switch
from fcsim.fabric.switch_port import SwitchPort
from fcsim.fabric.virtual_channels import VirtualChannelSwitch


class CongestionIsolation:
    """Congestion isolation on *switches* by *spec* (see the module
    docstring); *isolated*: the set of (domain, area) of isolated devices
    the channelled ISLs' assignments share, which it fills and empties."""

    name = "isolation"

    def __init__(self, sim: Simulation, switches: Mapping[str, Switch], isolated: set[int],
                 spec: Isolation) -> None:
        self.sim = sim
        self.spec = spec
        self.isolated = isolated
        self.events: list[dict[str, Any]] = []
        """Each isolation and recovery: time (s), device, its F_Port, TxWait fraction."""
        self._ports = [(f"{switch.name}:{area}", sp, switch.domain << 8 | area,
                        PortWindow(sp.port))
                       for switch in switches.values() for area, sp in sorted(switch.local.items())
                       if sp.port.peer is not None]
        self._switches = [switch for switch in switches.values()
                          if isinstance(switch, VirtualChannelSwitch)]
        sim.call_later(spec.window, self._poll)

    def _poll(self, _value: object = None) -> None:
        """Read every F_Port's TxWait over the last window; isolate or recover."""
        spec = self.spec
        window = spec.window
        now = self.sim.now
        changed = False
        for name, sp, dest, counters in self._ports:
            waited, _ = counters.advance()
            if dest not in self.isolated:
                if holds_back(waited, window, spec.rising):
                    self.isolated.add(dest)
                    changed = True
                    self._event(now, "isolated", name, sp, waited / window)
            elif spec.recover and not holds_back(waited, window, spec.falling):
                self.isolated.discard(dest)
                changed = True
                self._event(now, "recovered", name, sp, waited / window)
        if changed:
            for switch in self._switches:
                switch.reassign()
        self.sim.call_later(window, self._poll)

    def _event(self, now: float, action: str, port: str, sp: SwitchPort,
               fraction: float) -> None:
        peer = sp.port.peer
        self.events.append({"time_s": now, "action": action,
                            "device": peer.name if peer is not None else None,
                            "port": port, "txwait_fraction": fraction})

    def results(self, interval: float) -> dict[str, Any]:
        """The rule, every event of the run (from its start, not only the
        measured *interval*) and the devices isolated at its end."""
        spec = self.spec
        return {"rising_threshold": spec.rising, "falling_threshold": spec.falling,
                "window_s": spec.window, "recover": spec.recover,
                "events": list(self.events),
                "isolated": sorted(sp.port.peer.name for _, sp, dest, _ in self._ports
                                   if dest in self.isolated and sp.port.peer is not None)}
