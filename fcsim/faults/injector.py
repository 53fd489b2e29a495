"""Applies a scenario's fault schedule to its built network.

:func:`install` does nothing for a scenario without faults, so such a run is
the run it always was. With faults, every Fibre Channel port of a
point-to-point link or fabric is a
:class:`~fcsim.fc2.recovering_port.RecoveringPort` (its builder made it one
for a scenario with faults), every N_Port gets its
recovery (:mod:`fcsim.faults.nport_recovery`) and its Class 1 and 2
sequence recovery (:mod:`fcsim.fc2.sequence_recovery`), a fabric its own
(:mod:`fcsim.faults.fabric_recovery`: FSPF, RSCN), and each fault acts at
its time:

- ``link-down``: the cable is pulled out: light stops at both receivers now
  (with a duration, it is put back after it); ``link-up``: it is put back:
  each receiver has light after the cable's delay.
- ``loss-of-sync``: the receivers (of the link, or of the port) lose word
  synchronisation for the fault's duration.
- ``bit-error-rate``: both directions of the link (or the one its ``from``
  end sends) draw errors at this rate from now on (with a duration, until
  then: the rate of the latest burst still lasting, or the link's own).
- ``corrupted-characters``: a burst of that many corrupted characters
  reaches the receivers now.
- ``port-failure``: the port sends and hears nothing, for the duration (then
  it powers on: Link Initialization) or to the end; ``switch-failure``:
  every port of the switch alike, and the frames it holds are lost.
- ``lip``: the loop port sends LIP; the loop initialises
  (:mod:`fcsim.loop.initialisation`).

A fault that repeats (``every``, ``mean_interval``) happens at each of its
times (:mod:`fcsim.faults.repeats`) as a fault of its own, with its own
record. Lasting faults that overlap on a port each hold it for their own
time (:mod:`fcsim.faults.holds`): a cable is put back, a port powers on,
when the last fault holding it ends, and a direction's bit error rate is
that of the latest one lasting.
"""

from __future__ import annotations

from typing import Any

from fcsim.engine.simulation import Simulation
from fcsim.faults import config as k
from fcsim.faults.config import FaultConfig, FaultPlan
from fcsim.faults.fabric_recovery import FabricRecovery
from fcsim.faults.holds import ErrorRates, Holds
from fcsim.faults.incidents import COUNTERS, Incidents, Record
from fcsim.faults.lan import LanFaultRun
from fcsim.faults.nport_recovery import NPortRecovery, Relogin
from fcsim.faults.repeats import Repeats
from fcsim.fc2.credit_recovery import CreditRecoveringPort
from fcsim.fc2.link_recovery import LinkControl
from fcsim.fc2.nport import NPort
from fcsim.fc2.p2p_login import PointToPointLogin
from fcsim.fc2.port_states import SYNC_WORDS
from fcsim.fc2.recovering_port import RecoveringPort
from fcsim.fc2.sequence_recovery import SequenceRecovery
from fcsim.loop.initialisation import InitTimeline
from fcsim.topology.network import Network


def install(sim: Simulation, scenario: FaultPlan, net: Network,
            hosts: dict[str, Any] | None = None) -> FaultRun | LanFaultRun | None:
    """Schedule *scenario*'s faults on *net* (built, with its *hosts* and
    workloads); None if its links do not recover (no faults, and no
    congestion cure that resets or disables links: a fabric with one has its
    recovery without a fault). An Ethernet or Myrinet network's are
    :class:`fcsim.faults.lan.LanFaultRun`'s."""
    if not scenario.recovering:
        return None
    if scenario.topology in ("ethernet", "myrinet"):
        return LanFaultRun(sim, scenario, net, hosts or {})
    return FaultRun(sim, scenario, net, hosts or {})


class FaultRun:
    """The faults of one run on *net* and its *hosts*: the recovering ports by
    name, the N_Port recoveries, a fabric's recovery and the incident records."""

    def __init__(self, sim: Simulation, scenario: FaultPlan, net: Network,
                 hosts: dict[str, Any]) -> None:
        self.sim, self.net, self.faults, self.hosts = sim, net, scenario.faults, hosts
        self.loop = getattr(net, "loop", None)
        self.ports: dict[str, RecoveringPort] = {}
        self.recoveries: dict[str, NPortRecovery] = {}
        self.fabric: FabricRecovery | None = None
        self._cables, self._power, self._switches = Holds(), Holds(), Holds()
        self._rates = ErrorRates()
        self._offsets = [0.0] * len(COUNTERS)
        self.incidents = Incidents(sim, self._read)
        if self.loop is None:
            self._recovering(scenario)
        self.sequences = {name: SequenceRecovery(node) for name, node in net.nodes.items()}
        for name, recovery in self.sequences.items():
            net.nodes[name].recover_sequences(recovery)
        self.repeats = Repeats(sim, scenario.run.duration, self._occurrence)
        for index, fault in enumerate(self.faults):
            if fault.repeats:
                self.repeats.schedule(index, fault)
            else:
                record = self._record(fault)
                self.incidents.watch(record)
                sim.call_later(fault.at, self._apply, record)

    def _occurrence(self, fault: FaultConfig) -> None:
        """One occurrence of a repeating fault, now: a record of its own."""
        record = self._record(fault)
        self.incidents.watch(record)
        self._apply(record)

    def _recovering(self, scenario: FaultPlan) -> None:
        """Every port recovers (as built); every N_Port, and a fabric, too."""
        for port in self.net.ports():
            if not isinstance(port, RecoveringPort):
                raise ValueError(f"port {port.name} was built without link recovery: build the "
                                 "network of a scenario with faults with recovering ports")
            self.ports[port.name] = port
        relogin: Relogin | None = None
        logins = getattr(self.net, "logins", {})
        if scenario.topology == "point-to-point":
            p2p = PointToPointLogin(*self.net.nodes.values())
            relogin = p2p.start
        elif logins:
            def relogin(nport: NPort, done: Any) -> None:
                logins[nport.name].restart(done)
        if scenario.topology == "fabric":
            self.fabric = FabricRecovery(
                self.sim, self.net, self.incidents.note, scenario.fspf,  # type: ignore[arg-type]
                self.incidents.routes_changed)
            self.incidents.converged = self.fabric.converged
            for login in logins.values():
                login.register_changes()
        configs = {node.name: node for node in scenario.nodes}
        self.recoveries = {}
        for name, node in self.net.nodes.items():
            config = configs.get(name) or configs[name.rpartition(".")[0]]  # NAME.i: NAME's
            self.recoveries[name] = NPortRecovery(node, relogin, self._logged_in,
                                                  config.link_down, config.dev_loss_tmo)

    def _logged_in(self, nport: NPort, time: float) -> None:
        """*nport* logged in again: the fabric's RSCN, and its records."""
        if self.fabric is not None:
            self.fabric.logged_in(nport.port_id, nport.name)
        self.incidents.logged_in(nport, time)

    def _record(self, fault: FaultConfig) -> Record:
        """The record of *fault*, watching the ports it strikes and their peers."""
        struck = self._struck(fault)
        ports = list(dict.fromkeys(p for port in struck for p in (port, port.peer)))
        logins = [self.recoveries[p.owner.name] for p in ports
                  if isinstance(p.owner, NPort) and p.owner.name in self.recoveries]
        routed = self.fabric is not None and any(self.fabric.is_isl(p.lcf) for p in ports)
        return Record(fault, [p.lcf for p in ports], logins, routed)

    def _struck(self, fault: FaultConfig) -> list[RecoveringPort]:
        """The ports *fault* strikes directly (none on a loop)."""
        if self.loop is not None:
            return []
        if fault.link is not None:
            return list(self.net.links[fault.link].ports)  # type: ignore[arg-type]
        if fault.port is not None:
            return [self.ports[fault.port]]
        switch = self.net.switches[fault.switch]  # type: ignore[attr-defined]
        return [sp.port for sp in switch.ports.values()]

    # -- the faults --------------------------------------------------------------

    def _apply(self, record: Record) -> None:
        fault = record.fault
        struck = [p.lcf for p in self._struck(fault)]
        kind = fault.kind
        self.incidents.begin(record, {k.LINK_UP: "cable put back", k.LIP: "LIP",
                                      k.SWITCH_FAILURE: f"switch {fault.switch} failed"}.get(kind))
        if kind == k.LINK_DOWN:
            pulled = self._cables.take(struck)
            for lcf in pulled:
                lcf.cable = False
            for lcf in pulled:
                lcf.lose_signal()
            if fault.duration is not None:
                self.sim.call_later(fault.duration, self._put_back, struck)
        elif kind == k.LINK_UP:
            self._put_back(struck)
        elif kind == k.LOSS_OF_SYNC:
            losses = self._credit_losses(struck)  # before: losing sync loses R_RDYs in flight
            for lcf in struck:
                lcf.lose_sync(fault.duration)  # type: ignore[arg-type]
            self.sim.call_later(fault.duration, self._impairment_over,  # type: ignore[arg-type]
                                (record, losses))
        elif kind == k.CORRUPTED_CHARACTERS:
            losses = self._credit_losses(struck)
            for lcf in struck:
                lcf.corrupt(fault.characters)  # type: ignore[arg-type]
            burst = max(fault.characters * lcf.port.char_time  # type: ignore[operator]
                        + SYNC_WORDS * lcf.port.word_time for lcf in struck)
            self.sim.call_later(burst, self._impairment_over, (record, losses))
        elif kind == k.BIT_ERROR_RATE:
            senders = [lcf.port for lcf in struck
                       if fault.sender is None or lcf.port.name == fault.sender]
            token = self._rates.begin(senders, fault.bit_error_rate)  # type: ignore[arg-type]
            if fault.duration is not None:
                self.sim.call_later(fault.duration, self._error_rates, (senders, token))
        elif kind in (k.PORT_FAILURE, k.SWITCH_FAILURE):
            self._fail(struck, fault)
        else:
            loop = self.loop
            port = next(p for p in loop.ports if p.name == fault.port)  # type: ignore[union-attr]
            plan = loop.lip(port)  # type: ignore[union-attr]
            self.incidents.note(f"{port.name} sends LIP: the open tenancy is aborted and the "
                                f"loop initialises (master "
                                f"{loop.ports[plan.master].name})")  # type: ignore[union-attr]
            self._initialised(plan)
        self.incidents.applied(record)

    def _put_back(self, struck: list[LinkControl]) -> None:
        """A fault holding the cable of the link of *struck* out ends: if no
        other holds it, it is put back and each receiver has light after the
        cable's delay."""
        back = self._cables.release(struck)
        for lcf in back:
            lcf.cable = True
        for lcf in back:
            if lcf.peer.powered:
                self.sim.call_later(lcf.port.delay, lcf.light_returns, None)

    def _error_rates(self, value: tuple[list[Any], int]) -> None:
        """A burst of bit errors is over: each port's rate is that of the
        latest burst still lasting on it, or its link's own."""
        self._rates.end(*value)

    def _fail(self, struck: list[LinkControl], fault: FaultConfig) -> None:
        if fault.switch is not None and self._switches.take([fault.switch]):
            self.fabric.fspf.failed(fault.switch)  # type: ignore[union-attr]
        for lcf in self._power.take(struck):
            lcf.power_off()
        if fault.duration is not None:
            self.sim.call_later(fault.duration, self._power_on, (struck, fault.switch))

    def _power_on(self, value: tuple[list[LinkControl], str | None]) -> None:
        """A failure of the ports *struck* ends: those no other fault holds
        power on; a failed switch that no other failure holds restarts its
        FSPF first."""
        struck, switch = value
        if switch is not None and self._switches.release([switch]):
            self.fabric.fspf.restarted(switch)  # type: ignore[union-attr]
        for lcf in self._power.release(struck):
            lcf.power_on()

    def _initialised(self, plan: InitTimeline) -> None:
        """Watch for the end of the loop initialisation *plan* (or of the one that
        cut it short): then every LIP fault under way is over."""
        self.sim.call_later(plan.end - self.sim.now, self._loop_up, plan)

    def _loop_up(self, plan: InitTimeline) -> None:
        latest = self.loop.initialisations[-1]  # type: ignore[union-attr]
        if latest is not plan and latest.end > plan.end:
            self._initialised(latest)  # a later LIP cut it short: wait for that one
            return
        self.incidents.note(f"loop initialised in {plan.duration * 1e6:.3f} us "
                            f"({' '.join(name for name, _ in plan.phases)})")
        for record in self.incidents.records:
            if record.fault.kind == k.LIP and record.started and record.recovered is None:
                self.incidents.end(record, "loop initialised")

    @staticmethod
    def _credit_losses(struck: list[LinkControl]) -> int:
        """Frames and R_RDYs lost so far at the receivers *struck*: each lost
        one is a BB credit its sender does not get back."""
        return sum(lcf.stats.frames_lost + lcf.stats.r_rdy_lost for lcf in struck)

    def _impairment_over(self, value: tuple[Record, int]) -> None:
        """A loss of synchronisation or a burst ended. If it cost no BB credit
        (nothing lost), and no port noticed it, it is over; so too if it did
        and the link recovers credit (BB_SC_N), which brings it back at the
        next checkpoint; otherwise the credit comes back only with a Link
        Reset, after the link timeout, and the record stays open until the
        link is Active again after it."""
        record, before = value
        struck = self._struck(record.fault)
        lost = self._credit_losses([p.lcf for p in struck]) - before
        if lost > 0 and record.detected is None and all(
                isinstance(p, CreditRecoveringPort) for p in struck):
            self.incidents.note(f"{lost} frames and R_RDYs lost with their BB credit: BB "
                                "credit recovery brings it back at the next checkpoint "
                                f"(BB_SC_N = {struck[0].bb_sc_n})")  # type: ignore[attr-defined]
            self.incidents.end(record, "receiver synchronised again")
        elif lost > 0 and record.detected is None:
            self.incidents.note(f"{lost} frames and R_RDYs lost with their BB credit: a Link "
                                "Reset after the link timeout (E_D_TOV) restores it")
        elif record.detected is None:
            self.incidents.end(record, "receiver synchronised again")

    # -- results -----------------------------------------------------------------

    def _raw(self) -> list[float]:
        """The network-wide counters (:data:`fcsim.faults.incidents.COUNTERS`)
        since the last reset (bytes sent again, by TCP and by FC-2's sequence
        recovery, since the start)."""
        delivered = sum(node.stats.payload_rx for node in self.net.nodes.values())
        frames = payload = 0
        for port in self.ports.values():
            frames += port.lcf.stats.frames_lost
            payload += port.lcf.stats.payload_lost
        if self.fabric is not None:
            frames += self.fabric.stats.frames_lost
            payload += self.fabric.stats.payload_lost
        if self.loop is not None:
            frames += sum(p.loop_stats.lost for p in self.loop.ports)
            payload += sum(p.loop_stats.payload_lost for p in self.loop.ports)
        resent = sum(endpoint.counters.retransmitted_bytes for host in self.hosts.values()
                     for endpoint in host.tcp_endpoints)
        resent += sum(recovery.retransmitted_bytes for recovery in self.sequences.values())
        errored = sum(port.stats.errors_rx for port in self.net.ports())
        return [delivered, frames, payload, resent, errored]

    def _read(self) -> tuple[float, ...]:
        return tuple(o + v for o, v in zip(self._offsets, self._raw(), strict=True))

    def reset_stats(self) -> None:
        """Start the measurement interval (call before the network's own reset):
        the incidents' counters keep counting from the start of the run."""
        read = self._read()
        kept = COUNTERS.index("retransmitted")  # counted since the start of the run
        self._offsets = [self._offsets[i] if i == kept else v for i, v in enumerate(read)]
        for port in self.ports.values():
            port.lcf.reset_stats()
        if self.fabric is not None:
            self.fabric.stats.reset()

    def results(self) -> dict[str, Any]:
        """The fault records and each recovering port's figures, as JSON."""
        ports = {}
        for name, port in self.ports.items():
            port.lcf.close_stats()
            ports[name] = {"state": port.lcf.state, **port.lcf.stats.as_dict()}
            if isinstance(port, CreditRecoveringPort):
                ports[name]["bb_credit_recovery"] = {"bb_sc_n": port.bb_sc_n,
                                                     **port.recovery.as_dict()}
        out: dict[str, Any] = {"schedule": self.incidents.results(), "ports": ports}
        if self.sequences:
            out["sequences"] = {name: r.results() for name, r in self.sequences.items()}
        if self.fabric is not None:
            out["fabric"] = self.fabric.results()
        dropped = {name: {"sequences": r.dropped, "bytes": r.dropped_bytes}
                   for name, r in self.recoveries.items() if r.dropped}
        if dropped:
            out["dropped_while_down"] = dropped
        if self.repeats.processes:
            out["processes"] = self.repeats.processes
        return out
