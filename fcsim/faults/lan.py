"""Faults on an Ethernet or Myrinet network: a cable pulled out and put
back, a switch that fails and powers on again.

Each port gets a :class:`LanLink`, its physical link as the PHY sees it:

- light stops reaching a receiver when its cable is pulled out or the port
  at the other end powers off: frames arriving then are lost; the PHY
  reports the link down once its transceiver asserts Loss of Signal
  (``LOS_ASSERT``, 100 us, the SFP MSA maximum, as for Fibre Channel), and
  the port stops sending (a NIC drops what it holds and what it is given, a
  switch what it queued for the port, and forgets the addresses learnt on
  it);
- light returns a cable delay after the cable is put back or the other end
  powers on; the link is up again after Loss of Signal deasserts
  (``LOS_DEASSERT``, 100 us) and, on Ethernet, auto-negotiation completes
  (:data:`fcsim.ethernet.port.AUTONEGOTIATION`, two 10 ms link_timers of
  IEEE 802.3 clause 37; Myrinet has none: an assumption that its link is
  usable as soon as the signal is back);
- a failed switch's ports send and hear nothing; the frames it holds are
  lost; powered on, an Ethernet switch has forgotten every address it had
  learnt, and floods until it learns them again.

On Myrinet a cut cable also cuts the packet crossing it: what had arrived
ends there, fails its CRC at the NIC and is dropped, and the transmitter,
no longer held by STOP, sends the rest into the void (:mod:`fcsim.myrinet`).

There is no spanning tree: traffic has no other path. The records are those
of Fibre Channel faults (:mod:`fcsim.faults.incidents`): a fault is detected
when a port's link goes down and recovered when every port it struck is up
again; the throughput counted is the data TCP had acknowledged and UDP
received.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fcsim.engine.simulation import Simulation
from fcsim.ethernet.port import AUTONEGOTIATION
from fcsim.faults import config as k
from fcsim.faults.config import FaultConfig, FaultPlan
from fcsim.faults.holds import Holds
from fcsim.faults.incidents import COUNTERS, Incidents, Record
from fcsim.faults.repeats import Repeats
from fcsim.fc2.port_states import AC, LOS_ASSERT, LOS_DEASSERT
from fcsim.link.link import PhyEnd

DOWN = "down"
"""The state of a LAN port whose link is down (:data:`AC`: up)."""


class LanLink:
    """The physical link of *port* (Ethernet or Myrinet) as its PHY sees it,
    up again *relink* s after light returns (*relinked* says how): *listeners*
    ``(link, old, new, reason)`` are told of each change of :attr:`state`."""

    def __init__(self, sim: Simulation, port: PhyEnd, relink: float, relinked: str) -> None:
        self.sim, self.port, self.relink, self.relinked = sim, port, relink, relinked
        self.peer: LanLink | None = None
        self.state = AC
        self.cable = self.powered = True
        self.listeners: list[Callable[..., None]] = []
        self.failures = 0
        self._since = 0.0
        self.down_time = 0.0
        self._epoch = 0

    def _set(self, new: str, reason: str) -> None:
        old, self.state = self.state, new
        now = self.sim.now
        if new == DOWN:
            self.failures += 1
            self._since = now
        else:
            self.down_time += now - self._since
        self.port.carrier(new == AC)
        for listener in list(self.listeners):
            listener(self, old, new, reason)

    def dark(self) -> None:
        """No light reaches this receiver any more: the link goes down once
        Loss of Signal asserts."""
        self.port.set_light(False)
        self._epoch += 1
        self.sim.call_later(LOS_ASSERT, self._loss_of_signal, self._epoch)

    def _loss_of_signal(self, epoch: int) -> None:
        if epoch == self._epoch and self.state == AC and self.powered:
            self._set(DOWN, "loss of signal")

    def light_returns(self, _value: object = None) -> None:
        """Light reaches this receiver again: the link is up after the signal
        and auto-negotiation."""
        if not self.powered:
            return
        self.port.set_light(True)
        self._epoch += 1
        self.sim.call_later(self.relink, self._link_up, self._epoch)

    def _link_up(self, epoch: int) -> None:
        if epoch == self._epoch and self.state == DOWN and self.port.light:
            self._set(AC, self.relinked)

    def power_off(self) -> None:
        """The port fails: it sends and hears nothing; the other end goes dark."""
        self.powered = False
        self.port.set_light(False)
        self._epoch += 1
        if self.state == AC:
            self._set(DOWN, "powered off")
        if self.peer is not None and self.cable:
            self.peer.dark()

    def power_on(self) -> None:
        """The port powers on: light both ways again, if the cable is in."""
        self.powered = True
        if self.peer is not None and self.cable and self.peer.powered:
            self.sim.call_later(self.port.delay, self.light_returns, None)
            self.sim.call_later(self.port.delay, self.peer.light_returns, None)

    def results(self) -> dict[str, Any]:
        """Its link failures, time down and frames lost arriving in the dark."""
        down = self.down_time + (self.sim.now - self._since if self.state == DOWN else 0)
        return {"state": self.state, "failures": self.failures, "resets": 0, "timeouts": 0,
                "down_time": down, "frames_lost": self.port.frames_lost, "r_rdy_lost": 0}


class LanFaultRun:
    """The faults of one run on the Ethernet or Myrinet network *net* and its
    *hosts*."""

    def __init__(self, sim: Simulation, scenario: FaultPlan, net: Any,
                 hosts: dict[str, Any]) -> None:
        self.sim, self.net, self.hosts = sim, net, hosts
        self.links: dict[str, LanLink] = {}
        self._cables, self._power = Holds(), Holds()  # overlapping faults (fcsim.faults.holds)
        ethernet = scenario.topology == "ethernet"
        relink = LOS_DEASSERT + (AUTONEGOTIATION if ethernet else 0.0)
        how = "auto-negotiation complete" if ethernet else "signal back"
        for link in net.links.values():
            a, b = LanLink(sim, link.a, relink, how), LanLink(sim, link.b, relink, how)
            a.peer, b.peer = b, a
            self.links[link.a.name], self.links[link.b.name] = a, b
        self._offsets = [0.0] * len(COUNTERS)
        self.incidents = Incidents(sim, self._read)
        self.repeats = Repeats(sim, scenario.run.duration, self._occurrence)
        for index, fault in enumerate(scenario.faults):
            if fault.repeats:
                self.repeats.schedule(index, fault)
            else:
                record = Record(fault, self._watched(fault), [])
                self.incidents.watch(record)
                sim.call_later(fault.at, self._apply, record)

    def _occurrence(self, fault: FaultConfig) -> None:
        """One occurrence of a repeating fault, now: a record of its own."""
        record = Record(fault, self._watched(fault), [])
        self.incidents.watch(record)
        self._apply(record)

    def _struck(self, fault: FaultConfig) -> list[LanLink]:
        if fault.link is not None:
            link = self.net.links[fault.link]
            return [self.links[link.a.name], self.links[link.b.name]]
        switch = self.net.switches[fault.switch]
        return [self.links[p.name] for p in switch.ports if p.name in self.links]

    def _watched(self, fault: FaultConfig) -> list[LanLink]:
        struck = self._struck(fault)
        return list(dict.fromkeys(p for link in struck for p in (link, link.peer)
                                  if p is not None))

    def _apply(self, record: Record) -> None:
        fault = record.fault
        struck = self._struck(fault)
        self.incidents.begin(record, {k.LINK_UP: "cable put back",
                                      k.SWITCH_FAILURE: f"switch {fault.switch} failed"}
                             .get(fault.kind))
        if fault.kind == k.LINK_DOWN:
            for link in self._cables.take(struck):
                link.cable = False
                link.dark()
            if fault.duration is not None:
                self.sim.call_later(fault.duration, self._put_back, struck)
        elif fault.kind == k.LINK_UP:
            self._put_back(struck)
        else:
            for link in self._power.take(struck):
                link.power_off()
            self.net.switches[fault.switch].power_off()
            if fault.duration is not None:
                self.sim.call_later(fault.duration, self._power_on, struck)
        self.incidents.applied(record)

    def _put_back(self, struck: list[LanLink]) -> None:
        """A fault holding the cable of *struck* out ends: put back if no other
        holds it."""
        back = self._cables.release(struck)
        for link in back:
            link.cable = True
        for link in back:
            if link.powered and link.peer is not None and link.peer.powered:
                self.sim.call_later(link.port.delay, link.light_returns, None)

    def _power_on(self, struck: list[LanLink]) -> None:
        """A failure of *struck* ends: those no other fault holds power on."""
        for link in self._power.release(struck):
            link.power_on()

    # -- results -------------------------------------------------------------------

    def _raw(self) -> list[float]:
        endpoints = [e for host in self.hosts.values() for e in host.tcp_endpoints]
        delivered = sum(e.counters.bytes_acked for e in endpoints) + sum(
            s.endpoint.bytes_received for host in self.hosts.values() for s in host.udp_sockets)
        lost = sum(link.port.frames_lost for link in self.links.values())
        lost += sum(nic.link_down_drops for nic in self.net.nodes.values())
        lost += sum(s.link_down_drops for s in self.net.switches.values())
        resent = sum(e.counters.retransmitted_bytes for e in endpoints)
        errored = sum(link.port.stats.errors_rx for link in self.links.values())
        return [delivered, lost, 0, resent, errored]

    def _read(self) -> tuple[float, ...]:
        return tuple(o + v for o, v in zip(self._offsets, self._raw(), strict=True))

    def reset_stats(self) -> None:
        """Start the measurement interval: the records keep counting from the start."""
        errored = COUNTERS.index("errored")  # the ports' error counts restart: carry them
        self._offsets[errored] += self._raw()[errored]

    def results(self) -> dict[str, Any]:
        """The fault records and each port's link figures, as JSON."""
        out: dict[str, Any] = {
            "schedule": self.incidents.results(),
            "ports": {name: link.results() for name, link in self.links.items()}}
        if self.repeats.processes:
            out["processes"] = self.repeats.processes
        return out
