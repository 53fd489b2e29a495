"""What a fabric's switches report of congestion, per port and fabric-wide.

Per switch port and direction (:func:`port_counters`), the counters switch
vendors ship, from the link-level port's own counts (made where the credit
changes, not per frame):

* TxWait: time a frame was ready for the port, its transmitter free and its
  transmit BB credit zero (Cisco MDS "TxWait", counted there in 2.5 us
  units: Cisco MDS 9000 NX-OS Interfaces Configuration Guide, "Slow Drain
  Device Detection and Congestion Avoidance"); given in s and in those units.
* Transitions to zero transmit credit (Cisco MDS "transmit B2B credit
  transitions to zero" in ``show interface counters``) and the time at zero
  credit, from the spending of the last credit to the next R_RDY (Brocade's
  ``tim_txcrd_z`` in ``portstatsshow`` samples zero credit every 2.5 us; it
  counts from the last credit's allocation, while the last frame is still
  being sent, IBM support note 6983837).
* Frames removed after the switch's hold time (Brocade's edge hold time,
  FOS Administration Guide: 80-500 ms; a Class 3 frame is discarded).
* Utilisation of each direction.
* In a fabric whose links recover (faults, or credit loss recovery or port
  fencing, :mod:`fcsim.fabric.cures`): the Link Resets the port began
  (``link_resets``: credit loss recovery's, Cisco MDS ``lr-tx``) and the
  frames it sent that were lost at its peer (``frames_lost``: on the line,
  or discarded from the peer's receive buffers by a reset).

The receive direction of a port reports its link peer's transmit counters:
what the peer waited for this port's buffers.

Over a window (:class:`PortWindow`): the TxWait and the transitions to zero
credit of one port since the last reading, as a switch's port monitor polls
them (the cures of :mod:`fcsim.fabric.cures`, the FPIN congestion rules and
the report's time series read them so, and compare the TxWait with their
thresholds by :func:`holds_back`).

Fabric-wide (:func:`culprits_and_victims`), from those counters and the
routes alone, not from the scenario's workloads:

* A port *holds back* traffic when its TxWait is at least
  :data:`TXWAIT_CONGESTED` of the interval.
* A flow (a sender and receiver pair that logged in with each other, and
  the way back for a block job, whose read data comes back from its target:
  the network's ``flows``) crosses the switch outputs its routes give it
  (every equal-cost next hop); on an ISL with virtual channels, the queue
  of the channel its frames take there, which holds back traffic when that
  channel's TxWait passes the threshold.
* A *culprit* is a switch port cabled to an N_Port (an F_Port) that either
  holds back traffic itself: its device returns credit slowly ("slow
  drain"); or is busy at least :data:`BUSY` of the interval while a flow to
  it crosses another port that holds back traffic: its device takes more
  than its link carries and the excess waits upstream
  ("over-utilisation"). They are listed slow drains first, then by TxWait
  and utilisation, the most first.
* A *victim* of a culprit is a flow to another N_Port that crosses an output
  (an ISL, or an F_Port) that holds back traffic and that a flow to the
  culprit crosses too: it waits for credit the culprit's frames hold.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from fcsim.fabric.addressing import area_of, domain_of
from fcsim.fabric.switch import Switch
from fcsim.fabric.switch_port import SwitchPort
from fcsim.fabric.virtual_channels import ChannelQueue
from fcsim.fc2.port import Port
from fcsim.fc2.recovering_port import RecoveringPort
from fcsim.fc2.vc_port import VirtualChannelPort

TXWAIT_UNIT = 2.5e-6
"""Cisco MDS counts TxWait in ticks of 2.5 us (its slow-drain configuration guide)."""
TXWAIT_CONGESTED = 0.05
"""The fraction of the interval with TxWait at which a port holds back traffic.
An assumption: vendors leave the threshold to the user (Cisco's port-monitor
``tx-wait`` counter and Brocade MAPS rules take a percentage), and 5 % marks a
port whose credit, not its line, sets its pace for a twentieth of the time."""
BUSY = 0.95
"""The utilisation at which an F_Port's own line is the limit (an assumption,
as :data:`TXWAIT_CONGESTED`)."""


ROUNDING = 1e-9
"""Relative slack on a TxWait threshold: a TxWait summed from many waits is
at the threshold when within this of it (float rounding, not a tolerance)."""


def holds_back(txwait: float, interval: float, threshold: float = TXWAIT_CONGESTED) -> bool:
    """True if a port with *txwait* s of TxWait over *interval* s holds back
    traffic: its TxWait is at least *threshold* of the interval (the rule the
    congestion view and every cure that polls TxWait apply)."""
    return interval > 0 and txwait >= threshold * interval * (1 - ROUNDING)


class PortWindow:
    """The transmit counters of *port* read window by window: each
    :meth:`advance` gives the TxWait (s) and the transitions to zero credit
    since the previous one (or since the port's stats were last reset, if
    that was later). It only reads the port."""

    __slots__ = ("port", "_wait", "_zeros")

    def __init__(self, port: Port) -> None:
        self.port = port
        self._wait = port.credit_wait_now()
        self._zeros = port.stats.credit_zero

    def advance(self) -> tuple[float, int]:
        """(TxWait s, transitions to zero credit) since the last reading."""
        wait, zeros = self.port.credit_wait_now(), self.port.stats.credit_zero
        d_wait = wait - self._wait if wait >= self._wait else wait
        d_zeros = zeros - self._zeros if zeros >= self._zeros else zeros
        self._wait, self._zeros = wait, zeros
        return d_wait, d_zeros


def _direction(port: Port, interval: float) -> dict[str, Any]:
    """The transmit counters of *port* over *interval* s."""
    s = port.stats
    out = {"frames": s.frames_tx,
           "utilisation": s.busy_time / interval if interval > 0 else 0.0,
           "txwait_s": s.credit_wait,
           "txwait_2_5us": int(s.credit_wait / TXWAIT_UNIT),
           "txwait_fraction": s.credit_wait / interval if interval > 0 else 0.0,
           "credit_zero": s.credit_zero,
           "credit_zero_s": s.credit_zero_time}
    if isinstance(port, RecoveringPort) and isinstance(port.peer, RecoveringPort):
        out["link_resets"] = port.lcf.stats.resets
        out["frames_lost"] = port.peer.lcf.stats.frames_lost
    return out


def _channels(port: VirtualChannelPort, interval: float) -> list[dict[str, Any]]:
    """The transmit counters of each virtual channel of *port* over *interval* s."""
    return [{"channel": vc, "credit_login": port.vc_login[vc],
             "frames": c.frames_tx,
             "txwait_s": c.credit_wait,
             "txwait_2_5us": int(c.credit_wait / TXWAIT_UNIT),
             "txwait_fraction": c.credit_wait / interval if interval > 0 else 0.0,
             "credit_zero": c.credit_zero, "credit_zero_s": c.credit_zero_time,
             "er_rdy_tx": c.er_rdy_tx, "er_rdy_rx": c.er_rdy_rx}
            for vc, c in enumerate(port.vc_stats)]


def port_counters(sp: SwitchPort, interval: float) -> dict[str, Any]:
    """Switch port *sp*'s counters over *interval* s: ``tx`` (towards its
    peer, with the frames removed after the hold time) and ``rx`` (from its
    peer: the peer's transmit counters); on a link with virtual channels,
    each direction's ``virtual_channels``, the counters of each channel.
    Call after the ports' stats are closed."""
    port = sp.port
    peer = port.peer
    tx = _direction(port, interval)
    tx["hold_time_removed"] = sp.timeouts
    rx = _direction(peer, interval) if peer is not None else None
    if isinstance(port, VirtualChannelPort) and isinstance(peer, VirtualChannelPort):
        tx["virtual_channels"] = _channels(port, interval)
        rx["virtual_channels"] = _channels(peer, interval)  # type: ignore[index]
        if sp.channels is not None:
            tx["hold_time_removed"] += sum(lane.timeouts for lane in sp.channels[1:])
    return {"peer": peer.name if peer is not None else None, "tx": tx, "rx": rx}


def _lane(hop: SwitchPort, d_id: int, s_id: int) -> SwitchPort:
    """What a flow from *s_id* to *d_id* crosses at output *hop*: the queue of
    its virtual channel there, if *hop* has channels (the channel its frames
    take now), else *hop*."""
    if hop.channels is None:
        return hop
    return hop.channels[hop.assignment.channel_for(d_id, s_id)]  # type: ignore[attr-defined]


def _waited(sp: SwitchPort) -> float:
    """The TxWait of output *sp*, s: its port's, or its virtual channel's."""
    if isinstance(sp, ChannelQueue):
        return sp.port.vc_stats[sp.vc].credit_wait  # type: ignore[attr-defined]
    if sp.channels is not None:
        return sp.port.vc_stats[0].credit_wait  # type: ignore[attr-defined]
    return sp.port.stats.credit_wait


def _outputs(switch: Switch) -> list[SwitchPort]:
    """The outputs of *switch* whose TxWait counts: its ports, and the data
    channels of those with virtual channels."""
    out = []
    for sp in switch.ports.values():
        out.append(sp)
        if sp.channels is not None:
            out += sp.channels[1:]
    return out


def flow_paths(switches: Mapping[str, Switch], addresses: Mapping[str, int],
           flows: Iterable[tuple[str, str]]) -> dict[tuple[str, str], set[SwitchPort]]:
    """The switch outputs each flow may cross (every equal-cost next hop)."""
    switch_of: dict[int, Switch] = {}
    for switch in switches.values():
        for sp in switch.ports.values():
            switch_of[id(sp.port)] = switch
    entry = {sp.port.peer.name: switch for switch in switches.values()
             for sp in switch.local.values() if sp.port.peer is not None}
    paths = {}
    for src, dst in flows:
        d_id = addresses[dst]
        crossed: set[SwitchPort] = set()
        todo = [entry.get(src)]
        seen: set[str] = set()
        while todo:
            switch = todo.pop()
            if switch is None or switch.name in seen:
                continue
            seen.add(switch.name)
            if domain_of(d_id) == switch.domain:
                out = switch.local.get(area_of(d_id))
                if out is not None:
                    crossed.add(out)
                continue
            for hop in switch.routes.get(domain_of(d_id), ()):
                crossed.add(_lane(hop, d_id, addresses[src]))
                peer = hop.port.peer
                todo.append(switch_of.get(id(peer)) if peer is not None else None)
        paths[(src, dst)] = crossed
    return paths


def culprits_and_victims(switches: Mapping[str, Switch], addresses: Mapping[str, int],
                         flows: Iterable[tuple[str, str]],
                         interval: float) -> dict[str, Any]:
    """The fabric-wide view (see the module docstring) over *interval* s:
    the ports that hold back traffic, the culprits and each one's victims."""
    def name(sp: SwitchPort) -> str:
        if isinstance(sp, ChannelQueue):
            return f"{sp.switch.name}:{sp.e_port.index} VC {sp.vc}"
        return f"{sp.switch.name}:{sp.index}"

    holding = [sp for switch in switches.values() for sp in _outputs(switch)
               if holds_back(_waited(sp), interval)]
    if not holding:  # no culprit without a port holding back traffic
        return {"txwait_threshold": TXWAIT_CONGESTED, "holding_back": [], "culprits": []}
    device_of = {id(sp): sp.port.peer.name for switch in switches.values()
                 for sp in switch.local.values() if sp.port.peer is not None}
    paths = flow_paths(switches, addresses, list(flows))
    held = set(holding)

    def kind(sp: SwitchPort) -> str | None:
        """Why F_Port *sp* is a culprit (None: it is not)."""
        if sp in held:
            return "slow drain"
        device = device_of[id(sp)]
        if (interval > 0 and sp.port.stats.busy_time >= BUSY * interval
                and any(dst == device and (crossed - {sp}) & held
                        for (_, dst), crossed in paths.items())):
            return "over-utilisation"
        return None

    kinds = {id(sp): kind(sp) for switch in switches.values() for sp in switch.local.values()
             if id(sp) in device_of}
    culprits = sorted((sp for switch in switches.values() for sp in switch.local.values()
                       if kinds.get(id(sp)) is not None),
                      key=lambda sp: (kinds[id(sp)] != "slow drain",
                                      -sp.port.stats.credit_wait, -sp.port.stats.busy_time,
                                      name(sp)))
    found = []
    for culprit in culprits:
        device = device_of[id(culprit)]
        shared = set().union(*(crossed for (_, dst), crossed in paths.items()
                               if dst == device)) & held
        victims = [{"flow": f"{src}->{dst}",
                    "shared": sorted(name(sp) for sp in crossed & shared)}
                   for (src, dst), crossed in sorted(paths.items())
                   if dst != device and crossed & shared]
        found.append({"port": name(culprit), "device": device, "kind": kinds[id(culprit)],
                      "txwait_s": culprit.port.stats.credit_wait,
                      "txwait_fraction": culprit.port.stats.credit_wait / interval,
                      "utilisation": culprit.port.stats.busy_time / interval,
                      "spreading": sorted(name(sp) for sp in shared if sp is not culprit),
                      "victims": victims})
    return {"txwait_threshold": TXWAIT_CONGESTED,
            "holding_back": sorted(name(sp) for sp in holding),
            "culprits": found}
