"""The flow-level (fluid) model of a fabric: steady rates of saturating
Class 3 streams, max-min fair over the fabric's resources.

Each sending N_Port is one sender: it sends the frames of its open
sequences in turn, frame by frame (:class:`fcsim.fc2.nport.NPort`), and a Class 3
sequence waits for nothing but the BB credit all of them share, so every
open sequence (every exchange of its streams) moves at the same frame rate.
A sender's rate is its frames per second; its exchanges' paths
(:mod:`fcsim.flow.fabric`) put load on four kinds of resource:

- ``line``: each link direction, one second of line per second; a frame of
  data field *d* takes ``frame_chars(d)`` characters and at least
  ``MIN_FILL_WORDS`` fill words after it (:func:`fcsim.fc2.frame.frame_chars`,
  :data:`fcsim.fc2.port.MIN_FILL_WORDS`, the speed's character time,
  :attr:`fcsim.fc0.speed.Speed.char_time`): the framing-limited payload rate.
- ``credit``: each link direction's BB credit: a frame holds one of the
  receiver's buffers from the moment it starts until its R_RDY is back,
  ``frame time + 2 x propagation + hold + one word`` (the receiver's hold
  after the EOF: its routing latency, or an N_Port's frame processing
  time), so by Little's law the frames per second times that cycle stay
  within the credits: credits x frame / (round trip + frame time + latency).
- ``router``: a switch's central router, its frames per second.
- ``processing``: an N_Port's frame processing time, one frame at a time.

The rates are max-min fair (:func:`fcsim.flow.fairness.max_min`). Where the
packet model's switches share differently, the result is flagged, not
corrected (:func:`caveats`): an output serves its *inputs* in turn, not
senders; a switch input's buffers are shared by every output (frames for a
congested output fill them, and the link into it then runs at that output's
pace); an input FIFO holds frames behind a head waiting for another output;
a central router serves frames in arrival order.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import numpy as np

from fcsim.fc2.frame import frame_chars
from fcsim.fc2.port import MIN_FILL_WORDS
from fcsim.flow.fabric import FlowFabric, StreamFlow
from fcsim.flow.fairness import TOLERANCE, max_min

GAP_CHARS = 4 * MIN_FILL_WORDS
"""Fill-word characters a transmitter sends at least after each frame."""
CLOSE = 1e-6
"""Relative difference under which two rates count as equal in :func:`caveats`."""


@dataclass(frozen=True)
class Resource:
    """A resource of the fabric: *kind* (line, credit, router, processing),
    the direction, switch or N_Port it belongs to (*owner*) and its *capacity*."""

    kind: str
    owner: str
    capacity: float


@dataclass
class FlowResult:
    """The solved model: each sender's frame rate (*rates*, frames/s), the
    resource that stopped it (*bottleneck*), each resource's *load*, each
    stream's payload rate (*stream_rates*, bytes/s), each direction's
    utilisation by frames (*utilisation*, busy fraction as the packet model
    counts it) and payload rate (*payload*, bytes/s), and per sender the
    packet-model behaviours the max-min result leaves out (*caveats*)."""

    fabric: FlowFabric
    resources: list[Resource]
    senders: list[str]
    rates: np.ndarray
    bottleneck: list[Resource]
    load: np.ndarray
    stream_rates: dict[str, float]
    utilisation: dict[str, float]
    payload: dict[str, float]
    caveats: dict[str, list[str]]


def _per_frame(stream: StreamFlow) -> tuple[float, float]:
    """Mean characters and mean payload per frame of *stream*'s sequences."""
    payloads = stream.frame_payloads
    return (sum(frame_chars(d) for d in payloads) / len(payloads),
            stream.size / len(payloads))


def solve(fabric: FlowFabric) -> FlowResult:
    """Max-min fair rates of every sending N_Port of *fabric*."""
    senders = sorted({s.source for s in fabric.streams})
    index = {name: i for i, name in enumerate(senders)}
    slots: dict[str, float] = defaultdict(float)
    for s in fabric.streams:
        slots[s.source] += s.slots
    resources: list[Resource] = []
    where: dict[tuple[str, str], int] = {}

    def resource(kind: str, owner: str, capacity: float) -> int:
        key = (kind, owner)
        if key not in where:
            where[key] = len(resources)
            resources.append(Resource(kind, owner, capacity))
        return where[key]

    entries: dict[tuple[int, int], float] = defaultdict(float)
    busy: dict[tuple[str, int], float] = defaultdict(float)  # (direction, sender): busy s/frame
    carried: dict[tuple[str, int], float] = defaultdict(float)  # payload bytes per frame
    for s in fabric.streams:
        j = index[s.source]
        chars, payload = _per_frame(s)
        for exchange in s.exchanges:
            share = exchange.weight / slots[s.source]
            for name in exchange.path:
                d = fabric.directions[name]
                frame_time = chars * d.speed.char_time
                entries[resource("line", name, 1.0), j] += share * (
                    frame_time + GAP_CHARS * d.speed.char_time)
                cycle = frame_time + 2 * d.delay + d.hold + d.speed.word_time
                entries[resource("credit", name, d.credit), j] += share * cycle
                busy[name, j] += share * frame_time
                carried[name, j] += share * payload
                if d.switch in fabric.routers:
                    entries[resource("router", d.switch, fabric.routers[d.switch]), j] += share
            if s.destination in fabric.processing:
                entries[resource("processing", s.destination, 1.0), j] += (
                    share * fabric.processing[s.destination])
    keys = list(entries)
    rows = np.array([r for r, _ in keys], dtype=np.int64)
    cols = np.array([c for _, c in keys], dtype=np.int64)
    values = np.array([entries[k] for k in keys])
    capacity = np.array([r.capacity for r in resources])
    filling = max_min(rows, cols, values, capacity, len(senders))
    rates = filling.rate
    stream_rates = {}
    for s in fabric.streams:
        _, payload = _per_frame(s)
        stream_rates[s.name] = float(rates[index[s.source]] * s.slots
                                     / slots[s.source] * payload)
    utilisation: dict[str, float] = defaultdict(float)
    carried_rate: dict[str, float] = defaultdict(float)
    for (name, j), seconds in busy.items():
        utilisation[name] += seconds * rates[j]
    for (name, j), payload in carried.items():
        carried_rate[name] += payload * rates[j]
    result = FlowResult(fabric, resources, senders, rates,
                        [resources[b] for b in filling.bottleneck], filling.load,
                        stream_rates, dict(utilisation), dict(carried_rate), {})
    result.caveats = caveats(result)
    return result


def caveats(result: FlowResult) -> dict[str, list[str]]:
    """Per sender, how the packet model's switches may share otherwise than
    max-min fairness, for this result (empty: the result is what they give):

    - *per-port arbitration*: at a full link direction out of a switch, the
      inputs holding senders stopped there do not carry equal frame rates on
      it, or another input carries more than they do (an output takes its
      inputs in turn, so each backlogged input gets an equal share);
    - *shared input buffers*: a switch input carries a sender stopped further
      on and others not stopped at the same resource (frames for the further
      bottleneck fill the input's buffers and its link slows to that pace);
    - *input FIFO*: an input of a switch without virtual output queues
      carries frames for more than one output (head-of-line blocking);
    - *central router*: a sender stopped by a switch's router (served in
      arrival order, not in turn);
    - *R_RDY behind frames*: a link direction whose credit would bind if each
      R_RDY waited for a whole frame the other way (an R_RDY goes between
      frames), on a link carrying frames both ways;
    - *credit behind a full output*: a link direction into a switch whose
      credit would bind if each frame also waited, on a full output it
      leaves by, for a whole frame from each input the output serves in turn
      (the switch holds its buffer until the frame crosses);
    - *credit-tight pipeline*: a stream whose sequences end in a shorter
      frame crosses a link direction with less than a credit to spare (the
      next frame follows the short one at once, so the hop needs a credit
      more than on average: a stall each sequence), or into a
      store-and-forward switch whose credits are not twice what the hop
      keeps in flight (a short frame then waits behind the long one ahead of
      it at every hop and takes a long frame's slot).
    """
    fabric = result.fabric
    index = {name: i for i, name in enumerate(result.senders)}
    slots: dict[str, float] = defaultdict(float)
    for s in fabric.streams:
        slots[s.source] += s.slots
    found: dict[str, set[str]] = defaultdict(set)
    # frames/s on each direction per (input direction, sender); what follows each input
    on: dict[str, dict[str, dict[str, float]]] = defaultdict(lambda: defaultdict(dict))
    after: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    outputs: dict[str, set[str]] = defaultdict(set)
    for s in fabric.streams:
        for exchange in s.exchanges:
            rate = result.rates[index[s.source]] * exchange.weight / slots[s.source]
            path = exchange.path
            for k, name in enumerate(path):
                group = path[k - 1] if k else s.source
                on[name][group][s.source] = on[name][group].get(s.source, 0.0) + rate
                if k:
                    after[path[k - 1]][s.source].update(path[k:])
                    after[path[k - 1]][s.source].add(s.destination)
                    outputs[path[k - 1]].add(name)
    stopped = {name: (b.kind, b.owner) for name, b in zip(result.senders, result.bottleneck,
                                                           strict=True)}
    for name, groups in on.items():
        if fabric.directions[name].origin is None:
            continue  # leaves an N_Port: its own turn-taking is modelled exactly
        held = {g for g, senders in groups.items()
                if any(stopped[s] in (("line", name), ("credit", name)) for s in senders)}
        if not held:
            continue
        totals = {g: sum(senders.values()) for g, senders in groups.items()}
        top = max(totals[g] for g in held)
        if any(abs(totals[g] - top) > CLOSE * top for g in held) or any(
                totals[g] > top * (1 + CLOSE) for g in groups):
            for senders in groups.values():
                for s in senders:
                    found[s].add("per-port arbitration")
    for inp, senders in after.items():
        if fabric.directions[inp].switch is None:
            continue
        further = {s for s, rest in senders.items()
                   if stopped[s][1] in rest or stopped[s][1] in _origins(fabric, rest)}
        if further and len({stopped[s] for s in senders}) > 1:
            for s in senders:
                found[s].add("shared input buffers")
        model = fabric.models[fabric.directions[inp].switch]  # type: ignore[index]
        if not model.virtual_output_queues and len(outputs[inp]) > 1:
            for s in senders:
                found[s].add("input FIFO")
    for s, (kind, _) in stopped.items():
        if kind == "router":
            found[s].add("central router")
    longest = _longest_frames(fabric)
    where = {(r.kind, r.owner): i for i, r in enumerate(result.resources)}
    spare = {r.owner: r.capacity - result.load[i] for i, r in enumerate(result.resources)
             if r.kind == "credit"}

    def tight(name: str) -> bool:
        """Less than a credit to spare, or (into a store-and-forward switch)
        more than half the credits in use."""
        d = fabric.directions[name]
        stored = d.switch is not None and not fabric.models[d.switch].cut_through
        return spare[name] < 1 or (stored and spare[name] < d.credit / 2)

    for st in fabric.streams:
        if len(set(st.frame_payloads)) > 1 and any(
                tight(name) for e in st.exchanges for name in e.path):
            found[st.source].add("credit-tight pipeline")
    for i, r in enumerate(result.resources):
        if r.kind != "credit":
            continue
        d = fabric.directions[r.owner]
        back = next((n for n, e in fabric.directions.items() if e.link == d.link
                     and n != r.owner), None)
        wait = longest.get(back, 0.0) if back is not None else 0.0
        frames = sum(on[r.owner][g][s] for g in on[r.owner] for s in on[r.owner][g])
        senders = {s for g in on[r.owner] for s in on[r.owner][g]}
        if wait and result.load[i] + frames * wait > r.capacity * (1 - CLOSE):
            for s in senders:
                found[s].add("R_RDY behind frames")
        ahead = max((len(on[n]) * longest.get(n, 0.0) for n in outputs.get(r.owner, ())
                     if _full(result, where, n)), default=0.0)
        if ahead and result.load[i] + frames * ahead > r.capacity * (1 - CLOSE):
            for s in senders:
                found[s].add("credit behind a full output")
    return {s: sorted(found.get(s, ())) for s in result.senders}


def _full(result: FlowResult, where: dict[tuple[str, str], int], direction: str) -> bool:
    """True if *direction*'s line or credit is full in *result*."""
    for kind in ("line", "credit"):
        i = where.get((kind, direction))
        if i is not None and result.load[i] >= result.resources[i].capacity * (1 - CLOSE):
            return True
    return False


def _longest_frames(fabric: FlowFabric) -> dict[str, float]:
    """The longest frame time on each direction that carries frames, s."""
    longest: dict[str, float] = {}
    for s in fabric.streams:
        chars = frame_chars(max(s.frame_payloads))
        for exchange in s.exchanges:
            for name in exchange.path:
                time = chars * fabric.directions[name].speed.char_time
                longest[name] = max(longest.get(name, 0.0), time)
    return longest


def _origins(fabric: FlowFabric, names: set[str]) -> set[str | None]:
    """The switches that send on the directions *names* (N_Port names among them ignored)."""
    return {fabric.directions[n].origin for n in names if n in fabric.directions}


def results(result: FlowResult) -> dict[str, Any]:
    """The flow model's figures as the run's JSON gives them (docs/results.md)."""
    fabric = result.fabric
    index = {name: i for i, name in enumerate(result.senders)}
    streams = {}
    for s in fabric.streams:
        b = result.bottleneck[index[s.source]]
        streams[s.name] = {
            "source": s.source, "destination": s.destination,
            "throughput_bytes_per_s": result.stream_rates[s.name],
            "bottleneck": {"kind": b.kind, "at": b.owner},
            "exchanges": [{"ox_id": e.ox_id, "path": list(e.path), "share": e.weight}
                          for e in s.exchanges],
            "caveats": result.caveats[s.source]}
    links: dict[str, Any] = {}
    credit_of = {r.owner: result.load[i] / r.capacity for i, r in enumerate(result.resources)
                 if r.kind == "credit"}
    for name, d in fabric.directions.items():
        entry = links.setdefault(d.link, {"speed": d.speed.name, "isl": d.isl,
                                          "directions": {}})
        entry["directions"][name] = {
            "utilisation": float(result.utilisation.get(name, 0.0)),
            "payload_bytes_per_s": float(result.payload.get(name, 0.0)),
            "credit_in_use": float(credit_of.get(name, 0.0))}
    isl = [u for entry in links.values() if entry["isl"]
           for u in (v["utilisation"] for v in entry["directions"].values())]
    return {"model": "flow", "streams": streams, "links": links,
            "isl_utilisation": {"directions": len(isl), "max": float(max(isl, default=0.0)),
                                "mean": float(sum(isl) / len(isl)) if isl else 0.0},
            "total_throughput_bytes_per_s": float(sum(result.stream_rates.values())),
            "tolerance": TOLERANCE,
            "exact": not any(result.caveats.values())}
