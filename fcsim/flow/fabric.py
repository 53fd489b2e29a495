"""A fabric as the flow model sees it: link directions with their capacity
figures, and the paths of every exchange of every stream.

Paths are those the packet model's switches take: FSPF's equal-cost next
hops (:func:`fcsim.fabric.routing.next_hops`, the same table) and each
switch's routing policy applied to the exchange (:func:`fcsim.fabric.routing.pick`
with the switch's seed, :func:`fcsim.fabric.routing.switch_seed`). A
stream's exchanges keep their OX_IDs for the whole run (each open slot of a
:class:`fcsim.workload.Stream` is one exchange), so exchange-based routing
pins each of them to one path as port- and device-based routing do; the
OX_IDs are those an N_Port hands out in order (:meth:`fcsim.fc2.nport.NPort.open_exchange`),
after its fabric login's (:data:`fcsim.fabric.login.FABRIC_EXCHANGES` and
one PLOGI per peer) when the run logs in.

:func:`unsupported` names what of a scenario the flow model cannot represent.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from fcsim.fabric.addressing import port_id
from fcsim.fabric.build import assign_domains, split_end
from fcsim.fabric.login import FABRIC_EXCHANGES
from fcsim.fabric.routing import fspf_cost, next_hops, pick, switch_seed
from fcsim.fabric.switch_model import SwitchModel
from fcsim.fc0.speed import Speed
from fcsim.fc2.port import MIN_FILL_WORDS
from fcsim.scenario.model import Scenario
from fcsim.scenario.workload_model import StreamConfig

GAP_CHARS = 4 * MIN_FILL_WORDS
"""Fill-word characters a transmitter sends at least after each frame
(FC-FS-5's minimum of six primitive signals between frames)."""


@dataclass(frozen=True)
class Direction:
    """One direction of a link, *name* ``"sender->receiver"`` as the packet
    model names it (an N_Port by its name, a switch port ``"switch:index"``):
    its *speed*, one-way propagation *delay* (s), the *credit* the sender holds
    (receive buffers at the far end: the link's ``bb_credit``, else the switch
    model's, or the N_Port's), how long the receiver holds a frame's
    buffer after its EOF is in when nothing delays it (*hold*, s: the switch's
    routing latency and router time, or the N_Port's frame processing time),
    the switch it enters (*switch*; None: an N_Port) and the switch it
    leaves (*origin*; None: an N_Port)."""

    name: str
    link: str
    speed: Speed
    delay: float
    credit: int
    hold: float
    switch: str | None
    origin: str | None

    @property
    def isl(self) -> bool:
        """True for a direction of an inter-switch link."""
        return self.switch is not None and self.origin is not None


@dataclass(frozen=True)
class Exchange:
    """One exchange of a stream, *ox_id*, over *path*: the directions it
    crosses in order; *weight*, the share of the exchange's frames on this path
    (1 unless the exchange is spread over several, :data:`SPREADS`)."""

    ox_id: int
    path: tuple[str, ...]
    weight: float = 1.0


@dataclass(frozen=True)
class StreamFlow:
    """A saturating Class 3 stream *name* from N_Port *source* to *destination*
    in sequences of *size* bytes in frames of at most *data_field* bytes,
    over its *exchanges*, offering its first sequence at *start* (s; after
    the fabric login where the run logs in)."""

    name: str
    source: str
    destination: str
    size: int
    data_field: int
    exchanges: tuple[Exchange, ...]
    start: float = 0.0

    @property
    def slots(self) -> float:
        """The stream's open sequences (the weights of its exchanges' paths)."""
        return sum(e.weight for e in self.exchanges)

    @property
    def frame_payloads(self) -> list[int]:
        """The data field of each frame of one sequence, bytes."""
        full, last = divmod(self.size, self.data_field)
        return [self.data_field] * full + ([last] if last else [])


@dataclass(frozen=True)
class FlowFabric:
    """The *directions* by name, the *streams*, the frames per second each
    switch's central router decides (*routers*, only switches with a limit),
    the switch model of each switch (*models*), each N_Port's frame
    processing time (*processing*, s; only N_Ports that take time) and
    whether the N_Ports log in to the fabric before their streams start
    (*login*)."""

    directions: dict[str, Direction]
    streams: tuple[StreamFlow, ...]
    routers: dict[str, float]
    models: dict[str, SwitchModel]
    processing: dict[str, float]
    login: bool = False


def other_ways(fabric: FlowFabric) -> dict[str, str | None]:
    """Each link direction's other way: the other direction of its link, by
    name (None for a link that carries one way only)."""
    links: dict[str, list[str]] = defaultdict(list)
    for name, d in fabric.directions.items():
        links[d.link].append(name)
    return {name: next((n for n in links[d.link] if n != name), None)
            for name, d in fabric.directions.items()}


def unsupported(scenario: Scenario) -> str | None:
    """What of *scenario* the flow model cannot represent, in a few words, or None."""
    if scenario.topology != "fabric":
        return f"topology {scenario.topology!r} (the flow model takes fabrics only)"
    for what, present in (("faults", scenario.faults), ("FC-3 alias groups", scenario.alias_groups),
                          ("zoning", scenario.zones)):
        if present:
            return what
    cures = scenario.cures.names()
    if cures:
        return (f"the congestion cure [congestion.{cures[0]}] (a cure acts on credit waits "
                "over time, which steady rates do not have)")
    for node in scenario.nodes:
        if node.host is not None:
            return f"node {node.name}: a host (TCP/IP and its processor are protocol behaviour)"
        if node.target is not None or node.channels:
            return f"node {node.name}: storage"
        if node.ports > 1:
            return f"node {node.name}: several N_Ports"
        if node.virtual_ports:
            return f"node {node.name}: NPIV virtual N_Ports (their logins share one link port)"
        if node.params.drain is not None:
            return (f"node {node.name}: a slow-drain receive path (rx_drain_rate, rx_delay, "
                    "rx_stuck_at or a drawn rx_frame_time)")
    for link in scenario.links:
        if link.bit_error_rate:
            return f"link {link.name}: a bit error rate (losses and recovery)"
        if getattr(link, "virtual_channels", None):
            return f"link {link.name}: virtual channels (credit per channel)"
        if link.trunk_group is not None:
            return f"link {link.name}: a member of ISL trunk {link.trunk_group!r}"
    for w in scenario.workloads:
        if not isinstance(w, StreamConfig):
            kind = type(w).__name__.removesuffix("Config").lower()
            return (f"workload {w.name}: a {kind} (open-loop or protocol traffic; "
                    "the flow model takes saturating streams)")
        if w.cls != 3:
            return f"workload {w.name}: Class {w.cls} (the flow model takes Class 3)"
        if w.count is not None:
            return f"workload {w.name}: a count of sequences (a transient)"
        if w.stripe_ports > 1:
            return f"workload {w.name}: FC-3 striping"
    return None


SPREADS = ("exact", "average")
"""How exchanges are put on equal-cost paths: ``exact``, each on the path its
switches' routing gives it (OX_IDs as the N_Ports hand them out); ``average``,
each exchange-based switch spreads every exchange equally over its equal-cost
hops (the hash's expected share: its output bits are uniform), port- and
device-based switches as ``exact``. A stream that opens an exchange for
each sequence (``exchanges = "per-sequence"``) takes a new OX_ID each time,
so its exchanges are spread as ``average`` under either."""


def flow_fabric(scenario: Scenario, spread: str = "exact") -> FlowFabric:
    """The directions and stream paths of fabric *scenario* (one
    :func:`unsupported` accepts), exchanges put on paths as *spread* says
    (:data:`SPREADS`). ValueError if a stream's destination cannot be
    reached."""
    domains = assign_domains(scenario.switches)
    configs = {s.name: s for s in scenario.switches}
    models: dict[str, SwitchModel] = {name: c.model for name, c in configs.items()}  # type: ignore[misc]
    params = {n.name: n.params for n in scenario.nodes}
    directions: dict[str, Direction] = {}
    attached: dict[str, tuple[str, int]] = {}
    isl_ends: dict[str, dict[str, tuple[str, int]]] = {}
    isls = []

    def hold(switch: str) -> float:
        model = models[switch]
        router = 1.0 / model.routing_rate if model.routing_rate is not None else 0.0
        return model.routing_latency + router

    for link in scenario.links:
        (a, pa), (b, pb) = (split_end(e) for e in link.ends)
        delay = link.cable.delay
        if pa is not None and pb is not None:
            isl_ends[link.name] = {a: (b, pb), b: (a, pa)}
            isls.append((a, b, link.name,
                         link.cost if link.cost is not None else fspf_cost(link.speed.line_rate)))
            for (s, ps), (r, pr) in (((a, pa), (b, pb)), ((b, pb), (a, pa))):
                name = f"{s}:{ps}->{r}:{pr}"
                directions[name] = Direction(name, link.name, link.speed, delay,
                                             link.bb_credit or models[r].bb_credit, hold(r),
                                             r, s)
            continue
        node, (switch, index) = (a, (b, pb)) if pa is None else (b, (a, pa))
        attached[node] = (switch, index)  # type: ignore[assignment]
        up, down = f"{node}->{switch}:{index}", f"{switch}:{index}->{node}"
        directions[up] = Direction(up, link.name, link.speed, delay,
                                   link.bb_credit or models[switch].bb_credit, hold(switch),
                                   switch, None)
        directions[down] = Direction(down, link.name, link.speed, delay,
                                     params[node].bb_credit, params[node].rx_frame_time, None,
                                     switch)
    table = next_hops(configs, isls)
    seeds = {name: switch_seed(domain) for name, domain in domains.items()}
    policies = {name: c.routing or c.model.routing for name, c in configs.items()}  # type: ignore[union-attr]
    address = {node: port_id(domains[sw], index) for node, (sw, index) in attached.items()}

    def trace(source: str, destination: str, ox_id: int,
              even: bool) -> list[tuple[float, tuple[str, ...]]]:
        """The exchange's paths, each with the share of its frames on it
        (*even*: spread evenly at exchange-based switches)."""
        switch, ingress = attached[source]
        target, out = attached[destination]
        s_id, d_id = address[source], address[destination]
        found = []
        walks = [(1.0, switch, ingress, [f"{source}->{switch}:{ingress}"])]
        while walks:
            weight, switch, ingress, path = walks.pop()
            if switch == target:
                found.append((weight, (*path, f"{switch}:{out}->{destination}")))
                continue
            hops = table[switch].get(target)
            if not hops or len(path) > len(configs):
                raise ValueError(f"N_Port {destination} cannot be reached from {source}")
            if even and policies[switch] == "exchange-based" and len(hops) > 1:
                chosen = hops  # the hash's expected share: each hop equally
            else:
                chosen = [pick(policies[switch], hops, s_id, d_id, ox_id, seeds[switch],
                               ingress)]
            for isl in chosen:
                peer, there = isl_ends[isl][switch]  # the far end; this end is the peer's far end
                here = isl_ends[isl][peer][1]
                walks.append((weight / len(chosen), peer, there,
                              [*path, f"{switch}:{here}->{peer}:{there}"]))
        return sorted(found, key=lambda wp: wp[1])

    peers: dict[str, set[str]] = {}
    for w in scenario.workloads:
        peers.setdefault(w.source, set()).add(w.destination)  # type: ignore[union-attr]
    first = {node: FABRIC_EXCHANGES + len(p) if scenario.run.login else 0
             for node, p in peers.items()}
    order = sorted(enumerate(scenario.workloads), key=lambda iw: (iw[1].start, iw[0]))  # type: ignore[union-attr]
    streams: dict[int, StreamFlow] = {}
    for i, w in order:
        assert isinstance(w, StreamConfig)
        data_field = params[w.destination].rx_data_field
        if w.max_data_field is not None:
            data_field = min(data_field, w.max_data_field)
        ox = first[w.source]
        first[w.source] = ox + w.outstanding
        streams[i] = StreamFlow(w.name, w.source, w.destination, w.size, data_field,
                                tuple(Exchange(ox + k, path, weight) for k in range(w.outstanding)
                                      for weight, path in trace(w.source, w.destination, ox + k,
                                                                spread == "average"
                                                                or w.exchanges == "per-sequence")),
                                w.start)
    routers = {name: m.routing_rate for name, m in models.items() if m.routing_rate is not None}
    processing = {node: p.rx_frame_time for node, p in params.items() if p.rx_frame_time > 0}
    return FlowFabric(directions, tuple(streams[i] for i in sorted(streams)), routers, models,
                      processing, scenario.run.login)

