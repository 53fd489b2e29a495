"""The fabric's performance impact notifications (FPIN) and congestion signals.

N_Ports register (EDC with their F_Port, RDF with the fabric controller,
:mod:`fcsim.fabric.login`; the bytes in :mod:`fcsim.fc2.fpin`); each rule
below, on when the scenario's ``[fpin]`` table turns it on, then watches the
switches' own counters over a window and sends FPINs from the fabric
controller (FFFFFD) to the registered N_Ports, out of the F_Port of the
switch each is on, after that switch's service time, like an RSCN:

* **Link Integrity**: a switch port (F_Port or E_Port) whose receiver counted
  at least ``link_integrity_threshold`` frames with a CRC error
  (:attr:`fcsim.fc2.port.PortStats.errors_rx`, the line's bit errors) in a
  window of ``link_integrity_window``. Cisco MDS's default port-monitor
  policy counts invalid CRCs over 60 s and rises at 5 (MDS 9000 NX-OS
  Interfaces Configuration Guide, "Port Monitor"; Brocade MAPS's
  Fabric Performance Impact rules take a count per window likewise): those
  are the defaults. It goes to the N_Ports whose traffic crosses the link
  (both ends of every flow on it), the link's attached N_Port too for an
  F_Port; its affected list names the N_Ports reached through the attached
  port (the attached N_Port of an F_Port).
* **Congestion** and **Peer Congestion**: an F_Port whose TxWait (time with a
  frame ready and no transmit credit, :mod:`fcsim.fabric.congestion`) is at
  least ``congestion_warning`` of a ``congestion_window`` (a credit stall:
  its device drains slowly); ``congestion_alarm`` and above is an alarm.
  Congestion goes to the slow N_Port itself, Peer Congestion (naming it) to
  each N_Port that exchanges with it (logged in with it: a target that sends
  it read data as well as a sender). Cisco MDS port-monitor's ``txwait`` counter
  is a percentage of its poll interval, with FPIN among its actions (NX-OS
  8.5(1) and later); its defaults are not stated for this use, so 1 s, 10 %
  and 30 % are assumptions.
* **Delivery**: each frame a switch removes after its hold time
  (:mod:`fcsim.fabric.congestion`, ``hold_time_removed``) is kept; at the
  end of each ``delivery_window`` every N_Port whose frames were removed is
  sent one Delivery descriptor (reason timeout) per output they were
  removed at, naming that output (detecting) and its link peer (attached).
  FC-LS-5 notifies the source of an undelivered frame; one notification per
  window and output rather than per frame is an assumption (a slow drain
  removes thousands), and the 1 s default is assumed too.
* **Congestion signals**: where EDC settled on them, the F_Port of a
  congested port sends its N_Port a warning or an alarm signal each signal
  period (FC-FS-6 primitive signals; the period: lpfc's
  ``lpfc_fabric_cgn_frequency``, 100 ms) while its TxWait over that period
  stays above the same fractions. A signal is an ordered set on the line: it
  reaches the N_Port after the cable's propagation and one transmission word
  and takes no frame's place (an assumption: it is not queued on the line).

A rule that is off costs nothing: no timer, no registration. Without timed
login (``run.login = false``) every N_Port counts as registered at time 0.
A rule counts over the whole run, warmup included; the measured interval's
reset of the ports' counters starts the window again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fcsim.engine.simulation import Simulation
from fcsim.fabric.addressing import FABRIC_CONTROLLER, area_of, domain_of
from fcsim.fabric.congestion import PortWindow, flow_paths, holds_back
from fcsim.fabric.login import FabricLogin
from fcsim.fabric.switch import Switch
from fcsim.fabric.switch_port import SwitchPort
from fcsim.fc2 import header as h
from fcsim.fc2.els_payload import port_name
from fcsim.fc2.fpin import (
    CONGESTION_CREDIT_STALL,
    DELIVERY_TIMEOUT,
    LI_INVALID_CRC,
    SEVERITY_ALARM,
    SEVERITY_WARNING,
    SIGNALS_NONE,
    SIGNALS_WARNING_ALARM,
    TAG_CONGESTION,
    TAG_DELIVERY,
    TAG_LINK_INTEGRITY,
    TAG_PEER_CONGESTION,
    Congestion,
    CongestionSignal,
    Delivery,
    Descriptor,
    LinkIntegrity,
    PeerCongestion,
    edc_accept,
    fpin,
    rdf_accept,
    registered_tags,
    signal_capability,
)
from fcsim.fc2.frame import Frame
from fcsim.fc2.nport import NPort
from fcsim.fc2.sequence import Exchange


@dataclass(frozen=True)
class FpinPolicy:
    """The fabric's notification rules (the scenario's ``[fpin]``; times in s,
    fractions of the window)."""

    link_integrity: bool = False
    link_integrity_window: float = 60.0
    link_integrity_threshold: int = 5
    congestion: bool = False
    congestion_window: float = 1.0
    congestion_warning: float = 0.10
    congestion_alarm: float = 0.30
    signals: bool = False
    signal_period: float = 0.1
    delivery: bool = False
    delivery_window: float = 1.0

    @property
    def tags(self) -> tuple[int, ...]:
        """The notifications the fabric sends under this policy (its RDF answer)."""
        return ((TAG_LINK_INTEGRITY,) * self.link_integrity + (TAG_DELIVERY,) * self.delivery
                + (TAG_PEER_CONGESTION, TAG_CONGESTION) * self.congestion)

    def severity(self, txwait: float, window: float) -> int | None:
        """The severity of *txwait* s of TxWait over a *window* of s (None: not
        congested), by the congestion view's rule
        (:func:`fcsim.fabric.congestion.holds_back`)."""
        if holds_back(txwait, window, self.congestion_alarm):
            return SEVERITY_ALARM
        return SEVERITY_WARNING if holds_back(txwait, window, self.congestion_warning) else None


_KINDS = {LinkIntegrity: "link-integrity", Delivery: "delivery",
          PeerCongestion: "peer-congestion", Congestion: "congestion"}
_SEVERITIES = {SEVERITY_WARNING: "warning", SEVERITY_ALARM: "alarm"}


def describe(descriptor: Descriptor | CongestionSignal) -> dict[str, Any]:
    """A descriptor or signal as the results give it."""
    if isinstance(descriptor, CongestionSignal):
        return {"kind": "signal", "severity": _SEVERITIES.get(descriptor.severity)}
    out: dict[str, Any] = {"kind": _KINDS[type(descriptor)]}
    if isinstance(descriptor, Congestion):
        out["severity"] = _SEVERITIES.get(descriptor.severity)
    if isinstance(descriptor, LinkIntegrity):
        out["count"] = descriptor.count
    return out


class FabricNotifications:
    """The notifications of the fabric of *switches* under *policy*: its
    N_Ports *nodes* by name, with N_Port IDs *addresses*, exchanging along
    *flows* (sender, receiver), logging in by *logins* (empty: logins take no
    time). It answers EDC and RDF (the services' ``diagnostics``) and runs the
    rules' timers."""

    port_id = FABRIC_CONTROLLER
    name = "fabric controller"

    def __init__(self, sim: Simulation, policy: FpinPolicy, switches: Mapping[str, Switch],
                 nodes: Mapping[str, NPort], addresses: Mapping[str, int],
                 flows: tuple[tuple[str, str], ...],
                 logins: Mapping[str, FabricLogin]) -> None:
        self.sim, self.policy = sim, policy
        self.switches, self.nodes, self.addresses, self.flows = switches, nodes, addresses, flows
        self._name_of = {address: name for name, address in addresses.items()}
        self._by_domain = {switch.domain: switch for switch in switches.values()}
        self._port_of = {id(sp.port): sp for switch in switches.values()
                         for sp in switch.ports.values()}
        self.registered: dict[int, tuple[int, ...]] = {}
        """Per N_Port ID, the notifications it registered for (RDF)."""
        self.signalled: dict[int, float] = {}
        """Per N_Port ID, the period of the congestion signals EDC settled on, s."""
        self.sent: list[dict[str, Any]] = []
        """Each FPIN sent: when, to whom, what."""
        self.signals_sent: list[tuple[float, str, int]] = []
        self.windows: dict[str, list[int]] = {}
        """Per switch port that saw a CRC error, its count in each Link Integrity
        window from the first."""
        self._errors: dict[int, int] = {}
        self._li_window = 0  # Link Integrity windows ended so far
        self._window_txwait = {id(sp): PortWindow(sp.port) for _, sp in self._f_ports()}
        """Each F_Port's TxWait read window by window (Congestion FPINs)."""
        self._signal_txwait = {id(sp): PortWindow(sp.port) for _, sp in self._f_ports()}
        """Each F_Port's TxWait read signal period by period (congestion signals)."""
        self._next_ox_id = 0
        self._discarded: dict[tuple[int, int], tuple[SwitchPort, int]] = {}
        """Per (output, source N_Port ID) with frames removed this window: the
        output and how many."""
        for switch in switches.values():
            switch.services.diagnostics = self  # type: ignore[union-attr]
            if policy.delivery:
                switch.discards = self
        for node in nodes.values():
            node.receive_fpins()
        offered = SIGNALS_WARNING_ALARM if policy.signals else SIGNALS_NONE
        for login in logins.values():
            login.register_notifications(offered, policy.signal_period)
        if not logins:  # logins take no time: registered from the start
            for address in addresses.values():
                self.registered[address] = policy.tags
                if policy.signals:
                    self.signalled[address] = policy.signal_period
        if policy.link_integrity:
            sim.call_later(policy.link_integrity_window, self._link_integrity)
        if policy.congestion:
            sim.call_later(policy.congestion_window, self._congestion)
        if policy.signals:
            sim.call_later(policy.signal_period, self._signal)
        if policy.delivery:
            sim.call_later(policy.delivery_window, self._delivery)

    # -- registration --------------------------------------------------------------

    def edc(self, frame: Frame) -> bytes:
        """An F_Port's LS_ACC of an EDC: the signals it sends (warning and
        alarm, every signal period, when the policy has signals; else none),
        and the signals settled on (the lesser, the longer period)."""
        policy = self.policy
        transmit = SIGNALS_WARNING_ALARM if policy.signals else SIGNALS_NONE
        _, _, receive, every = signal_capability(frame.sequence.ulp)  # type: ignore[union-attr,arg-type]
        if min(transmit, receive) != SIGNALS_NONE:
            self.signalled[frame.s_id] = max(policy.signal_period, every)
        return edc_accept(transmit, policy.signal_period)

    def rdf(self, frame: Frame) -> bytes:
        """The fabric controller's LS_ACC of an RDF: the notifications asked
        for that the policy sends."""
        asked = registered_tags(frame.sequence.ulp)  # type: ignore[union-attr,arg-type]
        tags = tuple(t for t in asked if t in self.policy.tags)
        self.registered[frame.s_id] = tags
        return rdf_accept(tags)

    # -- sending ----------------------------------------------------------------------

    def _send(self, name: str, descriptors: list[Descriptor], frames: int = 0) -> None:
        """An FPIN with *descriptors* to N_Port *name*, if it registered for them
        (*frames*: the frames a Delivery notification stands for)."""
        d_id = self.addresses[name]
        tags = self.registered.get(d_id, ())
        wanted = [d for d in descriptors if _TAG[type(d)] in tags]
        switch = self._by_domain.get(domain_of(d_id))
        out = None if switch is None else switch.local.get(area_of(d_id))
        if not wanted or out is None:
            return
        exchange = Exchange(self._next_ox_id, self, d_id)  # type: ignore[arg-type]
        self._next_ox_id = (self._next_ox_id + 1) % h.UNASSIGNED_ID
        switch.services.send(  # type: ignore[union-attr]
            out, exchange, 0, h.R_CTL_ELS_REQUEST, h.TYPE_ELS, fpin(wanted), d_id,
            FABRIC_CONTROLLER, h.F_CTL_FIRST_SEQUENCE | h.F_CTL_RELATIVE_OFFSET)
        self.sent.append({"time_s": self.sim.now, "to": name,
                          "descriptors": [describe(d) for d in wanted],
                          **({"frames": frames} if frames else {})})

    def _flows_over(self, sp: SwitchPort) -> tuple[set[str], set[str]]:
        """The N_Ports whose flows cross the link of switch port *sp*, and
        those of them reached through its attached port."""
        peer = self._port_of.get(id(sp.port.peer))
        crossing: set[str] = set()
        beyond: set[str] = set()
        for (src, dst), crossed in flow_paths(self.switches, self.addresses,
                                              self.flows).items():
            if sp in crossed:  # towards the attached port
                crossing |= {src, dst}
                beyond.add(dst)
            if peer is not None and peer in crossed:  # from it
                crossing |= {src, dst}
                beyond.add(src)
        return crossing, beyond

    # -- the rules ----------------------------------------------------------------------

    def _link_integrity(self, _event: object = None) -> None:
        """Each switch port's CRC errors in the window that ends now."""
        policy = self.policy
        for switch in self.switches.values():
            for index, sp in sorted(switch.ports.items()):
                errors = sp.port.stats.errors_rx
                last = self._errors.get(id(sp), 0)
                count = errors - last if errors >= last else errors  # the interval's reset
                self._errors[id(sp)] = errors
                name = f"{switch.name}:{index}"
                if count or name in self.windows:  # from the first window on
                    self.windows.setdefault(name, [0] * self._li_window).append(count)
                if count >= policy.link_integrity_threshold:
                    self._marginal(sp, name, count)
        self._li_window += 1
        self.sim.call_later(policy.link_integrity_window, self._link_integrity)

    def _marginal(self, sp: SwitchPort, name: str, count: int) -> None:
        """Switch port *sp* (named *name*) counted *count* errors: Link Integrity."""
        peer = sp.port.peer
        attached = peer.name if peer is not None else ""
        crossing, beyond = self._flows_over(sp)
        if attached in self.nodes:  # an F_Port: its N_Port, and those that talk to it
            crossing |= {n for flow in self.flows if attached in flow for n in flow}
            crossing.add(attached)
            beyond = {attached}
        descriptor = LinkIntegrity(LI_INVALID_CRC, port_name(name), port_name(attached),
                                   self.policy.link_integrity_threshold, count,
                                   tuple(port_name(n) for n in sorted(beyond)),
                                   self.policy.link_integrity_window)
        for recipient in sorted(crossing):
            self._send(recipient, [descriptor])

    def hold_time_discard(self, out: SwitchPort, frame: Frame) -> None:
        """A switch removed *frame* after its hold time at output *out*: kept
        for the window's Delivery notifications."""
        key = (id(out), frame.s_id)
        _, count = self._discarded.get(key, (out, 0))
        self._discarded[key] = (out, count + 1)

    def _delivery(self, _event: object = None) -> None:
        """A Delivery FPIN (reason timeout) to each N_Port whose frames a switch
        removed after the hold time in the window that ends now, one per output
        they were removed at."""
        discarded, self._discarded = self._discarded, {}
        for (_, s_id), (out, count) in sorted(discarded.items(),
                                              key=lambda kv: (kv[0][1], kv[1][0].switch.name,
                                                              kv[1][0].index)):
            name = self._name_of.get(s_id)
            if name is None:
                continue
            peer = out.port.peer
            self._send(name, [Delivery(DELIVERY_TIMEOUT,
                                       port_name(f"{out.switch.name}:{out.index}"),
                                       port_name(peer.name if peer is not None else ""))],
                       count)
        self.sim.call_later(self.policy.delivery_window, self._delivery)

    def _f_ports(self) -> list[tuple[str, SwitchPort]]:
        """Each N_Port attached to an F_Port, by name, with its F_Port."""
        return [(sp.port.peer.name, sp) for switch in self.switches.values()
                for _, sp in sorted(switch.local.items())
                if sp.port.peer is not None and sp.port.peer.name in self.nodes]

    def _congestion(self, _event: object = None) -> None:
        """Each F_Port's TxWait in the window that ends now."""
        policy = self.policy
        window = policy.congestion_window
        for device, sp in self._f_ports():
            severity = policy.severity(self._window_txwait[id(sp)].advance()[0], window)
            if severity is None:
                continue
            self._send(device, [Congestion(CONGESTION_CREDIT_STALL, severity, window)])
            peer = PeerCongestion(CONGESTION_CREDIT_STALL,
                                  port_name(f"{sp.switch.name}:{sp.index}"), port_name(device),
                                  window, (port_name(device),))
            for other in sorted({n for flow in self.flows if device in flow for n in flow}
                                - {device}):
                self._send(other, [peer])
        self.sim.call_later(window, self._congestion)

    def _signal(self, _event: object = None) -> None:
        """Each signalled N_Port's F_Port: a warning or alarm signal if its
        TxWait over the signal period that ends now says so."""
        period = self.policy.signal_period
        for device, sp in self._f_ports():
            d_id = self.addresses[device]
            waited, _ = self._signal_txwait[id(sp)].advance()
            if d_id not in self.signalled:
                continue
            severity = self.policy.severity(waited, period)
            if severity is None:
                continue
            receiver = self.nodes[device].fpin
            signal = CongestionSignal(severity, self.signalled[d_id])
            self.signals_sent.append((self.sim.now, device, severity))
            if receiver is not None:
                port = sp.port
                self.sim.call_later(port.delay + port.word_time, receiver.signal, signal)
        self.sim.call_later(period, self._signal)

    # -- results --------------------------------------------------------------------------

    def results(self) -> dict[str, Any]:
        """Registrations, notifications and signals sent and received, with times."""
        names = self._name_of
        received = {}
        signals = {}
        for name, node in sorted(self.nodes.items()):
            receiver = node.fpin
            if receiver is None:
                continue
            if receiver.log:
                received[name] = [{"time_s": t, **describe(d)} for t, d in receiver.log]
            if receiver.signals:
                counts = {"warning": 0, "alarm": 0}
                for _, s in receiver.signals:
                    counts[_SEVERITIES[s.severity]] += 1
                signals[name] = {**counts, "first_s": receiver.signals[0][0],
                                 "last_s": receiver.signals[-1][0]}
        counts: dict[str, int] = {}
        for event in self.sent:
            for d in event["descriptors"]:
                counts[d["kind"]] = counts.get(d["kind"], 0) + 1
        return {"registered": {names.get(a, hex(a)): [_TAG_NAMES[t] for t in tags]
                               for a, tags in sorted(self.registered.items())},
                "signalled": {names.get(a, hex(a)): period
                              for a, period in sorted(self.signalled.items())},
                "sent": counts, "notifications": self.sent,
                "signals_sent": len(self.signals_sent),
                "received": received, "signals_received": signals,
                "link_integrity_windows": self.windows}


_TAG = {LinkIntegrity: TAG_LINK_INTEGRITY, Delivery: TAG_DELIVERY,
        PeerCongestion: TAG_PEER_CONGESTION, Congestion: TAG_CONGESTION}
_TAG_NAMES = {TAG_LINK_INTEGRITY: "link-integrity", TAG_DELIVERY: "delivery",
              TAG_PEER_CONGESTION: "peer-congestion", TAG_CONGESTION: "congestion"}
