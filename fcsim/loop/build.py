"""Arbitrated-loop topology: NL_Ports on one ring, and the results of a loop network.

:func:`build_loop` is the ``"loop"`` entry of :data:`fcsim.build.BUILDERS`.
It makes one :class:`~fcsim.loop.lport.LPort` and one
:class:`~fcsim.fc2.nport.NPort` per node, in the ring order of the scenario's
:class:`~fcsim.loop.config.LoopConfig`, assigns AL_PAs as loop
initialisation would (:func:`fcsim.loop.al_pa.assign`: hard addresses, then
soft ones from the master round the ring) and logs every pair in (PLOGI,
implicit and instant, as on a point-to-point link). The loop is private: each
N_Port ID is ``0x0000`` + AL_PA. The loop itself initialises at time 0, which
takes simulated time before any frame flows.

Port_Names (which decide the loop master) are made from the node names:
``0x21000000_00000000`` | CRC-32 of the name.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from fcsim.engine.simulation import Simulation
from fcsim.fc2.els_payload import port_name
from fcsim.fc2.login import NodeSpec
from fcsim.fc2.nport import NPort
from fcsim.loop.al_pa import assign
from fcsim.loop.config import LoopConfig, LoopPortConfig
from fcsim.loop.loop import Loop
from fcsim.loop.lport import LPort
from fcsim.topology.network import Network
from fcsim.units import format_time


class LoopNode(NodeSpec, Protocol):
    """What the loop builder reads of a node: its name, the N_Port ID it asks
    for (None: its AL_PA gives it), its login service parameters and its loop
    port's settings (None: the defaults)."""

    @property
    def loop(self) -> LoopPortConfig | None: ...


def build_loop(sim: Simulation, nodes: Sequence[LoopNode],
               links: Sequence[object]) -> LoopNetwork:
    """Build the loop described by the one element of *links* joining *nodes*."""
    if len(links) != 1 or not isinstance(links[0], LoopConfig):
        raise ValueError(f"a loop is described by exactly one LoopConfig, got {links!r}")
    ring = links[0]
    by_name = {n.name: n for n in nodes}
    order = ring.order or tuple(by_name)
    if sorted(order) != sorted(by_name):
        raise ValueError(f"loop {ring.name}: order {order} must name every node once")
    ports: dict[str, LPort] = {}
    for name in order:
        config = by_name[name]
        if config.port_id is not None:
            raise ValueError(f"{name}: a loop port's ID comes from its AL_PA; set al_pa")
        lc = config.loop or LoopPortConfig()
        ports[name] = LPort(sim, name, config.params.bb_credit, lc.login_credit, lc.fairness,
                            ring.repeat_delay if lc.repeat_delay is None else lc.repeat_delay,
                            port_name(name))
    ring_ports = list(ports.values())
    master = min(range(len(ring_ports)), key=lambda i: ring_ports[i].port_name)
    claim_order = [(master + k) % len(ring_ports) for k in range(len(ring_ports))]
    hard = [(by_name[name].loop or LoopPortConfig()).al_pa for name in order]
    for port, al_pa in zip(ring_ports, assign(hard, claim_order), strict=True):
        port.al_pa = port.port_id = al_pa
    net = LoopNetwork()
    for config in nodes:
        port = ports[config.name]
        net.nodes[config.name] = NPort(sim, config.name, port.port_id, config.params, port=port)
    for near in net.nodes.values():
        for far in net.nodes.values():
            if far is not near:
                near.login(far)
    net.loop = Loop(sim, ring.name, ring_ports, ring.speed, ring.cable, ring.bit_error_rate,
                    ring.position_map, ring.lip_at, cables=ring.hop_cables())
    return net


@dataclass
class LoopNetwork(Network):
    """The N_Ports of an arbitrated loop and the :class:`~fcsim.loop.loop.Loop`."""

    loop: Loop | None = None

    def ports(self) -> list[LPort]:  # type: ignore[override]
        """Every loop port, in ring order."""
        return self.loop.ports  # type: ignore[union-attr]

    def not_up(self) -> str | None:
        """Why the loop is not usable: it is initialising (or its N_Ports log in)."""
        loop: Loop = self.loop  # type: ignore[assignment]
        plan = loop.initialisations[-1]
        if plan.end > loop.sim.now:
            return (f"the loop was initialising (LIP at {format_time(plan.start)}, "
                    f"done only at {format_time(plan.end)})")
        return super().not_up()

    def up_at(self) -> float:
        """When the first initialisation ended and every N_Port was logged in, s
        (a LIP asked for later in the run is the scenario's, not start-up)."""
        return max(self.loop.initialisations[0].end, super().up_at())  # type: ignore[union-attr]

    def results(self, interval: float) -> dict[str, Any]:
        """Per loop port (as link directions), per N_Port and loop-wide figures over
        *interval* s."""
        loop: Loop = self.loop  # type: ignore[assignment]

        def per(value: float) -> float:
            return value / interval if interval > 0 else 0.0

        directions = {}
        for port in loop.ports:
            port.close_stats()
            s = port.stats
            directions[f"{port.name}->{loop.name}"] = {
                "frames": s.frames_tx, "utilisation": per(s.busy_time),
                "credit_wait_s": s.credit_wait, "credit_wait_fraction": per(s.credit_wait),
                "credit_stalls": s.credit_stalls, "r_rdy": s.r_rdy_tx,
                "errors": port.loop_stats.errored_tx,
            }
        hops = [c.length for c in loop.cables]
        links = {loop.name: {"speed": loop.speed.name, "baud": loop.speed.baud,
                             "length_m": sum(hops), "directions": directions}}
        nodes = {}
        for name, node in self.nodes.items():
            port: LPort = node.port  # type: ignore[assignment]
            ls = port.loop_stats
            nodes[name] = {
                "port_id": f"{node.port_id:06X}", **node.stats.as_dict(),
                "credit_stalls": port.stats.credit_stalls, "credit_wait_s": port.stats.credit_wait,
                "al_pa": f"{port.al_pa:02X}", "fair": port.fair,
                "repeat_delay_words": port.repeat_words, "login_credit": port.login_credit,
                "arbitrations": ls.arbitrations, "arbitration_wait_s": ls.arbitration_wait,
                "tenancies": ls.tenancies, "opened": ls.opened, "hold_time_s": ls.hold_time,
                "hold_fraction": per(ls.hold_time), "overruns": ls.overruns,
                "lost_frames": ls.lost,
            }
        now = loop.sim.now
        inits = loop.initialisations
        summary = {
            "name": loop.name, "ports": len(loop.ports), "master": loop.ports[loop.master].name,
            "hop_length_m": hops[0] if len(set(hops)) == 1 else None, "hop_lengths_m": hops,
            "round_trip_s": loop.ring.round_trip,
            "utilisation": per(sum(p.stats.busy_time for p in loop.ports)),
            "held_fraction": per(sum(p.loop_stats.hold_time for p in loop.ports)),
            "throughput_bytes_per_s": per(sum(n.stats.payload_rx for n in self.nodes.values())),
            "tenancies": sum(p.loop_stats.tenancies for p in loop.ports),
            "initialisations": [
                {"start_s": plan.start, "duration_s": plan.duration,
                 "completed": (inits[i + 1].start if i + 1 < len(inits) else now) >= plan.end}
                for i, plan in enumerate(inits)],
        }
        return {"links": links, "nodes": nodes, "loop": summary}
