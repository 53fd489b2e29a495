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

- ``arbitration``: each (output, input) queue of a switch: the output's
  round-robin level, a cap on the frames that input sends it
  (:mod:`fcsim.flow.arbitration`).

On a link whose two directions are both credit-bound, and whose trains of
frames cannot keep out of each other's way, each R_RDY leaves locked behind
the frame the other way: the credit's cycle holds the buffer that much
longer (:mod:`fcsim.flow.credit`, :func:`_locked`); where the trains could
also cross, the start the scenario sets decides, followed frame by frame
where it sets it (:func:`_from_start`); on a link whose other
direction's credit is not bound, a credit-bound direction's R_RDYs wait for
the end of the frame in progress, followed frame by frame where no closed
form holds (:func:`_paced`). So does a frame on a
credit-bound link that waits its turn at a full output of a switch
(:func:`_behind`).

The rates are max-min fair (:func:`fcsim.flow.fairness.max_min`) under the
caps, and the caps are what the switches' turn-taking gives for those
rates (:func:`_levels`, :func:`_settle`): an output serves its *inputs* in
turn, not senders, and a switch input's buffers are shared by every output,
so that frames for a held output fill them and the link into the input
then runs at that output's pace. Where the packet model's switches still
share otherwise, the result is flagged, not corrected (:func:`caveats`): an
input FIFO holds frames behind a head waiting for another output; a
central router serves frames in arrival order; an R_RDY waits behind a
frame the other way where the link is not locked; a frame that waits at a
full output holds its buffer longer where the model does not compute that
wait (:func:`_behind`); a short frame at the end of each
sequence needs a credit more where the model does not follow the frames
in order (:func:`_pipelined`); an input full at exactly its shares of two
outputs has queues whose backlogs no rate pins, and one may hold all its
buffers (:func:`_at_its_shares`).
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from fcsim.fabric.switch_port import HEADER_CHARS
from fcsim.fc2.frame import frame_chars
from fcsim.flow.arbitration import Queue, held, resources_of, round_robin, waiting
from fcsim.flow.credit import (
    Crossing,
    Facing,
    Way,
    behind_line,
    behind_output,
    both_ways,
    facing,
    forced,
    hidden_wait,
    locked_hold,
    pipeline_period,
)
from fcsim.flow.fabric import GAP_CHARS, Exchange, FlowFabric, StreamFlow, other_ways
from fcsim.flow.fairness import TOLERANCE, max_min
from fcsim.flow.fluid import steady_rates

CLOSE = 1e-6
"""Relative difference under which two rates count as equal in :func:`caveats`."""


@dataclass(frozen=True)
class Resource:
    """A resource of the fabric: *kind* (line, credit, router, processing,
    arbitration), the direction, switch or N_Port it belongs to (*owner*),
    its *capacity* and, for an output's arbitration, the input whose queue
    it caps (*via*; frames/s, inf where the output's turn-taking does not
    bind)."""

    kind: str
    owner: str
    capacity: float
    via: str | None = None


@dataclass
class FlowResult:
    """The solved model: each sender's frame rate (*rates*, frames/s), the
    resource that stopped it (*bottleneck*), each resource's *load*, each
    stream's payload rate (*stream_rates*, bytes/s), each direction's
    utilisation by frames (*utilisation*, busy fraction as the packet model
    counts it) and payload rate (*payload*, bytes/s), and per sender the
    packet-model behaviours the max-min result leaves out (*caveats*);
    *settled*, whether the round-robin levels reached their fixed point;
    *locked*, per link direction whose R_RDYs leave locked behind the frames
    the other way (:mod:`fcsim.flow.credit`), how much longer each buffer is
    held than the receiver's own hold, s (0 for a link whose trains could
    lock or cross and, from the start the scenario sets, cross:
    :func:`_from_start`); *paced*, the same for each
    credit-bound link direction whose R_RDYs wait behind the frames the
    other way, that direction's credit not bound
    (:func:`fcsim.flow.credit.behind_line`,
    :func:`fcsim.flow.credit.both_ways`);
    *behind*, the same for each link
    direction into a switch whose frames wait their turn at a full output
    (:func:`fcsim.flow.credit.behind_output`); *pipelined*, the same for
    each link direction one stream alone keeps full with sequences that end
    in a shorter frame (:func:`fcsim.flow.credit.pipeline_period`);
    *other*, the senders' frame rates at another fixed point of the round
    robin where one is found (:func:`_other_fixed_point`), else None;
    *fluid*, whether the rates are the steady rates of the queues' fluid
    dynamics (:mod:`fcsim.flow.fluid`), taken where the levels did not
    settle; *unkept*, the senders of the queues the second rule of
    :func:`fcsim.flow.arbitration.waiting` counts as waiting at an output
    whose level it would lower (:func:`_unkept`)."""

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
    settled: bool = True
    locked: dict[str, float] = field(default_factory=dict)
    behind: dict[str, float] = field(default_factory=dict)
    pipelined: dict[str, float] = field(default_factory=dict)
    paced: dict[str, float] = field(default_factory=dict)
    other: np.ndarray | None = None
    fluid: bool = False
    unkept: frozenset[str] = frozenset()


def _per_frame(stream: StreamFlow) -> tuple[float, float]:
    """Mean characters and mean payload per frame of *stream*'s sequences."""
    payloads = stream.frame_payloads
    return (sum(frame_chars(d) for d in payloads) / len(payloads),
            stream.size / len(payloads))


DAMPING = 0.5
"""Each round of :func:`_settle` moves a level this fraction of the way to
what its round robin gives (a full step can swing between two states)."""
SETTLED = 1e-6
"""Relative move under which every output's level counts as settled."""
RISES = 40
"""Max-min solutions the levels may take to rise (:func:`_levels`: about one
for each distinct level at which outputs fill)."""
ROUNDS = 100
"""Max-min solutions the levels may take to settle (:func:`_settle`). Past
either budget the levels count as unsettled: the rates are then plain
max-min, and the caveats name where the switches share otherwise. Each
solution costs about O(senders x hops x distinct levels); a fabric whose
outputs fill at many distinct levels, such as the 239-domain one, runs out
of rises."""

THROWN = 10.0
"""Factor by which the largest relative move of a level in :func:`_settle`
rises from one round to the next for the round to count as thrown back.
While the same queues count as waiting, each round moves every level by
:data:`DAMPING` of its distance to what its round robin gives, so the
largest move shrinks round by round (about halving, as on the bench
fabrics); it rises tenfold or more where a round robin's level jumps: a
queue starts or stops counting as waiting, the busiest queue changes, or
a sender's bottleneck moves."""
THROWS = 3
"""Throw-backs (:data:`THROWN`) after which :func:`_settle` gives up before
its :data:`ROUNDS`: a settling that converges is thrown back at most once
in every fabric measured (the example scenarios, 100 of the oracle's
random fabrics and 300 of the one-core grid's, drawn as the tests draw
them: 2,050 settlings that converged, 28 of them after one), while
one that does not (the second settling of the bench's 16- and 64-domain
fabrics, docs/performance.md) is thrown back again and again, a third
time at its 29th round on the 16-domain fabric and its 49th on the
64-domain one; giving up at the third throw-back leaves a margin of one
over what converging settlings show. This is a measured rule, not a
proof: a settling given up returns as one that used up its rounds (the
levels unsettled), and tests/unit/test_flow_fast_paths.py checks on the
example fabrics and random ones that the answers are those of the full
rounds, bit for bit."""

FORCED_ROUNDS = 30
"""Rounds of :func:`_settle` that count an output's forced queues as
backlogged when :func:`_other_fixed_point` looks for a second fixed point
(then up to :data:`ROUNDS` more to settle)."""
OTHER = 1e-4
"""Relative difference in a sender's rate above which a fixed point found by
:func:`_other_fixed_point` counts as another one (the levels settle to
:data:`SETTLED`)."""

UNTIES = 5
"""Times :func:`_untied` may free a fixed point of levels held by a tie."""

LOCKS = 5
"""Solutions :func:`solve` may take to find the link directions whose R_RDYs
lock behind frames the other way (:func:`_locked`): one more after each
change of that set or of their waits; past it the last set stands."""

def solve(fabric: FlowFabric) -> FlowResult:
    """Rates of every sending N_Port of *fabric*: max-min fair over the
    fabric's resources, with each switch output's per-port arbitration and
    the blocking of its inputs' shared buffers as caps on its queues
    (:mod:`fcsim.flow.arbitration`), solved again with the caps until they
    hold still."""
    senders = sorted({s.source for s in fabric.streams})
    index = {name: i for i, name in enumerate(senders)}
    slots: dict[str, float] = defaultdict(float)
    for s in fabric.streams:
        slots[s.source] += s.slots
    resources: list[Resource] = []
    where: dict[tuple[str, str, str | None], int] = {}

    def resource(kind: str, owner: str, capacity: float, via: str | None = None) -> int:
        key = (kind, owner, via)
        if key not in where:
            where[key] = len(resources)
            resources.append(Resource(kind, owner, capacity, via))
        return where[key]

    entries: dict[tuple[int, int], float] = defaultdict(float)
    busy: dict[tuple[str, int], float] = defaultdict(float)  # (direction, sender): busy s/frame
    frames: dict[tuple[str, int], float] = defaultdict(float)  # frames per frame of the sender
    credit_share: dict[tuple[int, int], float] = defaultdict(float)  # (credit, sender): frames
    carried: dict[tuple[str, int], float] = defaultdict(float)  # payload bytes per frame
    queues: dict[tuple[str, str], Queue] = {}
    cycles: list[tuple[dict[int, float], int, float]] = []  # a queue's units, credit, its cycle
    positions: list[dict[int, float]] = []
    char = {name: d.speed.char_time for name, d in fabric.directions.items()}
    word = {name: d.speed.word_time for name, d in fabric.directions.items()}
    for s in fabric.streams:
        j = index[s.source]
        chars, payload = _per_frame(s)
        processing = fabric.processing.get(s.destination)
        for exchange in s.exchanges:
            share = exchange.weight / slots[s.source]
            place: dict[int, float] = {}
            e = len(positions)
            positions.append(place)
            for k, name in enumerate(exchange.path):
                d = fabric.directions[name]
                frame_time = chars * char[name]
                line = resource("line", name, 1.0)
                entries[line, j] += share * (frame_time + GAP_CHARS * char[name])
                cycle = frame_time + 2 * d.delay + d.hold + word[name]
                credit = resource("credit", name, d.credit)
                entries[credit, j] += share * cycle
                credit_share[credit, j] += share
                place[line] = place[credit] = k
                units = {line: frame_time + GAP_CHARS * char[name], credit: cycle}
                cycles.append((units, credit, cycle))
                busy[name, j] += share * frame_time
                frames[name, j] += share
                carried[name, j] += share * payload
                if d.switch in fabric.routers:
                    router = resource("router", d.switch, fabric.routers[d.switch])
                    entries[router, j] += share
                    place[router] = k + 0.5
                if d.switch is None and processing is not None:
                    p = resource("processing", s.destination, 1.0)
                    entries[p, j] += share * processing
                    place[p] = k
                    units[p] = processing
                if k + 1 < len(exchange.path):  # the next output's cap on this input's frames
                    units[resource("arbitration", exchange.path[k + 1], math.inf, name)] = 1.0
                if d.origin is not None:
                    via = exchange.path[k - 1]
                    q = queues.get((name, via))
                    if q is None:
                        q = queues[name, via] = Queue(name, via)
                    cap = resource("arbitration", name, math.inf, via)
                    entries[cap, j] += share
                    place[cap] = k
                    q.senders.append(j)
                    q.shares.append(share)
                    q.positions.append(k)
                    q.exchanges.append(e)
                    q.units.append(units)
    crossed: dict[int, list[int]] = defaultdict(list)  # per sender, its exchanges
    for q in queues.values():
        for j, e in zip(q.senders, q.exchanges, strict=True):
            if e not in crossed[j]:
                crossed[j].append(e)
    for q in queues.values():
        for j, e in zip(q.senders, q.exchanges, strict=True):
            others = set().union(*(positions[x] for x in crossed[j] if x != e))
            q.exclusive.append(frozenset(positions[e].keys() - others))
    keys = list(entries)
    rows = np.array([r for r, _ in keys], dtype=np.int64)
    cols = np.array([c for _, c in keys], dtype=np.int64)
    values = np.array([entries[k] for k in keys])
    shares = np.array([credit_share.get(k, 0.0) for k in keys])
    capacity = np.array([r.capacity for r in resources])
    by_output: dict[str, list[Queue]] = defaultdict(list)
    for q in queues.values():
        by_output[q.output].append(q)
    credits = {r.owner: i for i, r in enumerate(resources) if r.kind == "credit"}
    locked: dict[str, float] = {}
    started: dict[str, float | None] = {}  # _from_start's, per direction
    paced: dict[str, float] = {}
    behind: dict[str, float] = {}
    pipelined: dict[str, float] = {}
    base = values
    extra = np.zeros(len(capacity))  # per credit, the wait its cycles carry, s
    for _ in range(LOCKS):
        cap, settled = _levels(by_output, where, rows, cols, values, capacity, positions,
                               len(senders))
        filling = max_min(rows, cols, values, cap, len(senders))
        per_frame = _frame_times(busy, frames, filling.rate)
        found = _locked(fabric, credits, cap, filling.load, per_frame, started)
        lined = _paced(fabric, credits, where, cap, filling.load, per_frame, found)
        waiting = _behind(fabric, credits, by_output, where, cap, filling.load,
                          filling.rate, per_frame)
        tight = _pipelined(fabric, credits, where, cap, filling.load, per_frame,
                           {n for waits in (found, lined, waiting) for n, w in waits.items()
                            if w > 0})
        if (_same(found, locked) and _same(lined, paced) and _same(waiting, behind)
                and _same(tight, pipelined)):
            break
        locked, paced, behind, pipelined = found, lined, waiting, tight
        before, extra = extra, np.zeros(len(capacity))
        for waits in (locked, paced, behind, pipelined):
            for name, wait in waits.items():
                extra[credits[name]] += wait
        if _same_waits(extra, before):
            break  # the loads this solution had: solving them again finds these waits
        values = base + shares * extra[rows]
        added = extra.tolist()  # Python floats: the water-filling's loops are in Python
        for units, credit, cycle in cycles:  # the levels' water-filling sees the waits too
            units[credit] = cycle + added[credit]
    other = (_other_fixed_point(by_output, where, rows, cols, values, capacity, cap, positions,
                                len(senders)) if settled else None)
    capacity = cap
    resources = [replace(r, capacity=float(c)) for r, c in zip(resources, capacity, strict=True)]
    rates, load = filling.rate, filling.load
    fluid = None if settled else steady_rates(fabric, senders)
    if fluid is not None and fluid.steady:
        rates = fluid.rates
        load = np.bincount(rows, values * rates[cols], len(capacity))
    holding = held(rows, cols, values, capacity, rates, load)
    stops = [min(h | {int(b)}, key=lambda i: (resources[i].kind == "arbitration", i))
             for h, b in zip(holding, filling.bottleneck, strict=True)]
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
    unkept = (_unkept(by_output, where, rows, cols, values, capacity, positions, senders)
              if settled else frozenset())
    result = FlowResult(fabric, resources, senders, rates,
                        [resources[b] for b in stops], load,
                        stream_rates, dict(utilisation), dict(carried_rate), {}, settled,
                        locked, behind, pipelined, paced, other,
                        fluid is not None and fluid.steady, unkept)
    result.caveats = caveats(result)
    return result


def _unkept(by_output: dict[str, list[Queue]], where: dict[tuple[str, str, str | None], int],
            rows: np.ndarray, cols: np.ndarray, values: np.ndarray, cap: np.ndarray,
            positions: list[dict[int, float]], senders: list[str]) -> frozenset[str]:
    """The senders of the queues that wait by the second rule of
    :func:`fcsim.flow.arbitration.waiting` (an exchange held at or past the
    output by a resource of its own) and carry more than the level that
    rule gives their output, at the fixed point *cap*: where its settling
    did not settle (:func:`_settle` then keeps the first rule's answer),
    such a queue's frames fill the buffers before the output and every
    sender queued with them goes at their pace, which the levels do not
    give (docs/model.md, "Flow model", *a free stream behind held frames*).
    Empty where the answer is the second rule's fixed point."""
    filling = max_min(rows, cols, values, cap, len(senders))
    holding = held(rows, cols, values, cap, filling.rate, filling.load)
    rate, limit = filling.rate.tolist(), cap.tolist()
    found: set[str] = set()
    for o, group in by_output.items():
        now = limit[where["arbitration", o, group[0].input]]
        top = round_robin(group, rate, holding, positions, limit, resources_of(group), set())
        if not top < now * (1 - OTHER):
            continue
        for q, waits in zip(group, waiting(group, holding, positions, set()), strict=True):
            carried = sum(share * rate[j] for j, share in zip(q.senders, q.shares, strict=True))
            if waits and carried > top * (1 + OTHER):
                found.update(senders[j] for j in q.senders)
    return frozenset(found)


def _same(a: dict[str, float], b: dict[str, float]) -> bool:
    """True if the waits *a* and *b* name the same directions with the same waits."""
    return a.keys() == b.keys() and all(math.isclose(a[n], b[n], rel_tol=SETTLED) for n in a)


def _same_waits(extra: np.ndarray, before: np.ndarray) -> bool:
    """True if the waits per credit *extra* (s) are those, *before*, under
    which the levels were just solved: the same loads and units, so solving
    them again (a deterministic function of them) would give the same
    levels, rates and waits, and :func:`solve` stops there as it would
    after that solution. Where the waits found are all 0 (``_behind``'s
    queues served in turn, ``_pipelined``'s hops at their bound) this
    spares a second rise and settling."""
    return bool(np.array_equal(extra, before))


def _frame_times(busy: dict[tuple[str, int], float], frames: dict[tuple[str, int], float],
                 rate: np.ndarray) -> dict[str, tuple[float, float]]:
    """Per link direction that carries frames at *rate* (the senders'), its
    frames per second and their mean frame time, s; *busy* and *frames* give
    per (direction, sender) the line seconds and the frames per frame of the
    sender."""
    seconds: dict[str, float] = defaultdict(float)
    count: dict[str, float] = defaultdict(float)
    for (name, j), b in busy.items():
        seconds[name] += b * rate[j]
        count[name] += frames[name, j] * rate[j]
    return {n: (count[n], seconds[n] / count[n]) for n in count if count[n] > 0}


def _locked(fabric: FlowFabric, credits: dict[str, int], capacity: np.ndarray,
            load: np.ndarray, per_frame: dict[str, tuple[float, float]],
            started: dict[str, float | None]) -> dict[str, float]:
    """Per link direction whose R_RDYs leave locked behind the frames the
    other way (:mod:`fcsim.flow.credit`: the credits of both directions of
    its link are full under *load*), how much longer than the receiver's
    hold each of its buffers is held, s: where the scenario sets the link's
    start, what following it from there gives (:func:`_from_start`; 0 where
    the trains cross), else, where the lock is the only steady state
    (:func:`fcsim.flow.credit.forced`), the closed form
    (:func:`fcsim.flow.credit.locked_hold`).
    *per_frame* gives each direction's frames per second and mean frame
    time (:func:`_frame_times`), *credits* each direction's credit
    resource; *started* keeps, per direction, what :func:`_from_start`
    gave (its wait, or None), which depends on the fabric alone, from one
    call to the next."""
    full = {n for n, i in credits.items() if load[i] >= capacity[i] * (1 - CLOSE)}
    back_of = other_ways(fabric)
    out: dict[str, float] = {}
    carriers: dict[str, list[tuple[StreamFlow, Exchange]]] | None = None
    for name in full:
        d = fabric.directions[name]
        back = back_of[name]
        if back is None or back not in full or name not in per_frame or back not in per_frame:
            continue
        t_forward, t_back = per_frame[name][1], per_frame[back][1]
        period = max(t_forward, t_back) + GAP_CHARS * d.speed.char_time
        if name not in started:  # the start sets whether and how the trains lock
            if carriers is None and not fabric.login:
                carriers = _carriers(fabric)
            crossing = (_from_start(fabric, name, back, carriers)
                        if carriers is not None else None)
            started[name], started[back] = ((None, None) if crossing is None else
                                            (crossing.waits[0], crossing.waits[1]))
        wait_from_start = started[name]
        if wait_from_start is not None:  # 0 where they cross
            out[name] = float(wait_from_start)
            continue
        if not forced(d.credit, period, t_forward, d.delay, d.hold, d.speed.word_time):
            continue  # the trains may also cross, from a start not computed: flagged
        wait = locked_hold(d.hold, d.speed.word_time, t_back, period, d.credit) - d.hold
        if wait > 0:
            out[name] = float(wait)
    return out


def _carriers(fabric: FlowFabric) -> dict[str, list[tuple[StreamFlow, Exchange]]]:
    """Per link direction, the streams' exchanges that cross it."""
    out: dict[str, list[tuple[StreamFlow, Exchange]]] = defaultdict(list)
    for s in fabric.streams:
        for e in s.exchanges:
            for name in e.path:
                out[name].append((s, e))
    return out


def _from_start(fabric: FlowFabric, forward: str, back: str,
                carriers: dict[str, list[tuple[StreamFlow, Exchange]]]) -> Crossing | None:
    """The steady state of the link of directions *forward* and *back*, both
    credit-bound, as its start sets it (:func:`fcsim.flow.credit.both_ways`),
    where the scenario sets that start; else None. It does where no fabric
    login precedes the streams (a login's last frames leave credits out on
    the link, and its duration is the fabric services' and the peers'), and
    each direction carries one stream of one exchange, alone on every hop
    of its path, whose other hops neither slow its frames nor run out of
    credit at their own line rate (even with each R_RDY a frame late behind
    one the other way), its sender sending nothing else, through switches
    without a central router: the stream's first frame then starts
    on the link at its start plus, per hop before it, the time a frame
    takes to the next (:func:`_first_frame_at`), and its frames follow back
    to back, a sequence's frames in order. With several open sequences the
    N_Port sends their frames in turn, but where a sequence's short last
    frame falls among the others' follows its rotation as sequences end and
    start (two on the 20 km 1GFC ISL of 4 credits: the short frames 3
    apart, not together, and 34.9 MB/s where frames in step give 36.4), so
    the model does not follow them. *carriers* gives the exchanges
    on each direction (:func:`_carriers`)."""
    if fabric.login:
        return None
    ways = []
    for name in (forward, back):
        d = fabric.directions[name]
        on = carriers.get(name, [])
        if not on:
            return None
        stream, exchange = on[0]
        if (len(on) != 1 or len(stream.exchanges) != 1 or exchange.weight != 1
                or sum(s.source == stream.source for s in fabric.streams) != 1):
            return None  # several open sequences: their frames' order is the N_Port's rotation
        longest = frame_chars(max(stream.frame_payloads))
        for hop in exchange.path:
            h = fabric.directions[hop]
            if h.switch in fabric.routers:
                return None
            if hop == name:
                continue
            frame = longest * h.speed.char_time
            cycle = 2 * frame + 2 * h.delay + h.hold + h.speed.word_time  # an R_RDY a frame late
            if (len(carriers.get(hop, [])) != 1 or h.speed.char_time > d.speed.char_time
                    or h.credit * (frame + GAP_CHARS * h.speed.char_time) < cycle):
                return None
        chars = [frame_chars(p) for p in stream.frame_payloads]
        first = _first_frame_at(fabric, stream, exchange.path, name)
        if d.switch is None:  # an N_Port: its frames go no further
            ways.append(Way(d.credit, tuple(c * d.speed.char_time for c in chars), d.hold,
                            first))
            continue
        after = fabric.directions[exchange.path[exchange.path.index(name) + 1]]
        ways.append(Way(d.credit, tuple(c * d.speed.char_time for c in chars), d.hold, first,
                        onward=tuple(c * after.speed.char_time for c in chars),
                        onward_gap=GAP_CHARS * after.speed.char_time,
                        cut_through=fabric.models[d.switch].cut_through,
                        header=HEADER_CHARS * d.speed.char_time))
    d = fabric.directions[forward]
    return both_ways((ways[0], ways[1]), d.delay, d.speed.word_time,
                     GAP_CHARS * d.speed.char_time)


def _first_frame_at(fabric: FlowFabric, stream: StreamFlow, path: tuple[str, ...],
                    name: str) -> float:
    """When *stream*'s first frame starts on direction *name* of its *path*,
    s, its hops idle before it: it starts on the first at the stream's start;
    a store-and-forward switch forwards it its hold (routing latency) after
    its EOF is in, a cut-through one its hold after its header is in or, if
    later, after the EOF is in less the frame's time on the output (it may
    not overtake its own EOF, :meth:`fcsim.fabric.switch.Switch.arrive`).
    An R_RDY in progress on a line as the frame would start puts it a word
    later, which this leaves out (at most a word a hop)."""
    chars = frame_chars(stream.frame_payloads[0])
    at = stream.start
    for hop, after in zip(path, path[1:], strict=False):
        if hop == name:
            break
        h = fabric.directions[hop]
        eof = at + chars * h.speed.char_time + h.delay
        if h.switch is not None and fabric.models[h.switch].cut_through:
            header = at + HEADER_CHARS * h.speed.char_time + h.delay
            eof = max(header, eof - chars * fabric.directions[after].speed.char_time)
        at = eof + h.hold
    return at


def _paced(fabric: FlowFabric, credits: dict[str, int],
           where: dict[tuple[str, str, str | None], int], capacity: np.ndarray,
           load: np.ndarray, per_frame: dict[str, tuple[float, float]],
           locked: dict[str, float]) -> dict[str, float]:
    """Per link direction whose credit is full under *load* while the other
    direction of its link carries frames whose own credit is not full (its
    frames do not wait for R_RDYs: back to back where its line is full, one
    as each comes otherwise), how much longer than the receiver's hold each
    of its buffers is held, s: each R_RDY waits for the end of the frame
    then on the line. One credit whose cycle ends within a frame of a full
    line of frames of one length locks to them, and the wait has a closed
    form (:func:`fcsim.flow.credit.behind_line`); otherwise (a cycle ending
    in the fill words drifts into the next frame) the two directions
    are followed frame by frame (:func:`fcsim.flow.credit.both_ways`, the
    frames of each in the order :func:`_sent` gives). Where the other line
    is not full, its frames come as what paces them allows: from a
    saturating N_Port, always one ready, each waiting for its credit, whose
    buffer the switch frees only as the frame crosses
    (:meth:`fcsim.fabric.switch.Switch.free_input`), so the buffer is held
    as long as gives its rate, and its R_RDYs, behind this direction's
    frames, set when its frames go; from a switch into an N_Port, as they
    reach the switch, one every 1 / its frame rate (an assumption: a steady
    supply); on an ISL either end may pace them, and no wait is computed.
    Where the link joins an N_Port to another on the same switch and each
    sends only to the other, neither supply holds: each one's frames go as
    its R_RDYs, riding on the other's frames, let them, and the two links
    are followed together, frame by frame, as the loop they make
    (:func:`fcsim.flow.credit.facing`, :func:`_facing`). Directions
    *locked* (both ways credit-bound) are left to :func:`_locked`;
    *per_frame* gives each direction's frames per second and mean frame
    time, *credits* each direction's credit resource."""
    full = {n for n, i in credits.items() if load[i] >= capacity[i] * (1 - CLOSE)}
    back_of = other_ways(fabric)
    out: dict[str, float] = {}
    rates: dict[tuple[tuple[Way, Way], float, float, float], float] = {}
    looped: dict[tuple[tuple[Facing, Facing], float, bool, float], tuple[float, float]] = {}
    hops: dict[str, set[str | None]] | None = None  # _first_hops', once needed
    for name in full - locked.keys():
        d = fabric.directions[name]
        back = back_of[name]
        if back is None or back in full or name not in per_frame or back not in per_frame:
            continue
        line = where[("line", back, None)]
        busy = load[line] >= capacity[line] * (1 - CLOSE)
        e = fabric.directions[back]
        cycle = per_frame[name][1] + 2 * d.delay + d.hold + d.speed.word_time
        mine, theirs = _sent(fabric, name), _sent(fabric, back)
        wait = 0.0
        if busy and d.credit == 1 and len(set(theirs)) == 1:  # locked: the closed form
            wait = behind_line(cycle, theirs[0], theirs[0] + GAP_CHARS * e.speed.char_time) - cycle
        if wait <= 0:
            held, supply = e.hold, 0.0  # a full line: always a frame, no wait beyond
            if not busy:
                if hops is None:
                    hops = _first_hops(fabric)
                found = _facing(fabric, hops, back_of, name, per_frame)
                if found is not None:  # two N_Ports streaming to each other: their loop
                    pair, k = found
                    if pair not in looped:
                        looped[pair] = facing(*pair)
                    every = pair[0][k].every
                    rate = (looped[pair][k] if d.origin is None  # its N_Port's frames
                            else looped[pair][1 - k] + (1 / every if every else 0.0))
                    wait = d.credit / rate - cycle
                    if wait > 0:
                        out[name] = float(wait)
                    continue
                if e.origin is None:  # a saturating N_Port, paced by its buffers' release
                    held = max(e.hold, e.credit / per_frame[back][0] - (
                        per_frame[back][1] + 2 * e.delay + e.speed.word_time))
                elif e.switch is None:  # a switch's frames into an N_Port, as they come
                    supply = 1 / per_frame[back][0]
                else:  # an ISL: paced from either end; not computed (caveats)
                    continue
            key = ((Way(d.credit, mine, d.hold), Way(e.credit, theirs, held, supply=supply)),
                   d.delay, d.speed.word_time, GAP_CHARS * d.speed.char_time)  # one speed
            if key not in rates:  # the same link, followed once
                rates[key] = both_ways(*key).rates[0]
            wait = d.credit / rates[key] - cycle
        if wait > 0:
            out[name] = float(wait)
    return out


def _first_hops(fabric: FlowFabric) -> dict[str, set[str | None]]:
    """Per link direction out of an N_Port, the directions its frames leave
    the switch by where that is the last hop (None for a longer path)."""
    hops: dict[str, set[str | None]] = defaultdict(set)
    for st in fabric.streams:
        for e in st.exchanges:
            hops[e.path[0]].add(e.path[1] if len(e.path) == 2 else None)
    return hops


def _facing(fabric: FlowFabric, hops: dict[str, set[str | None]],
            back_of: dict[str, str | None], name: str,
            per_frame: dict[str, tuple[float, float]]
            ) -> tuple[tuple[tuple[Facing, Facing], float, bool, float], int] | None:
    """Where *name* is a direction of a link between an N_Port and a switch
    that joins that N_Port to another on the same switch, of the same
    speed, each of the two sending only to the other (*hops*:
    :func:`_first_hops`; *back_of*, each direction's other way): the two ends as
    :func:`fcsim.flow.credit.facing` follows them, in the order of their
    links' names (each one's frames in
    :func:`_sent`'s order, the other frames the switch sends it at their
    rate here, *per_frame*), the switch's hold (s), whether it cuts through
    and its header's time (s), and which of the two is this link's N_Port;
    else None. Both links' directions find the same two ends, so one
    following serves all four."""
    d = fabric.directions[name]
    back = back_of[name]
    up = name if d.origin is None else back
    if up is None:
        return None
    u = fabric.directions[up]
    out = next(iter(hops[up])) if len(hops.get(up, ())) == 1 else None
    if u.origin is not None or u.switch is None or out is None:
        return None
    o = fabric.directions[out]
    src = back_of[out]
    into = back if up == name else name
    if (o.switch is not None or src is None or o.speed != u.speed or hops.get(src) != {into}
            or not {up, into, src, out} <= per_frame.keys()):
        return None
    ends = []
    for sender, down, other in ((up, into, src), (src, out, up)):
        x, y = fabric.directions[sender], fabric.directions[down]
        extra = every = 0.0
        (total, mean), (theirs, their_mean) = per_frame[down], per_frame[other]
        rest = total - theirs
        if rest > CLOSE * total:  # other inputs' frames: their mean line time, at their rate
            extra = (total * mean - theirs * their_mean) / rest
            every = 1 / rest
        ends.append(Facing(_sent(fabric, sender), x.credit, y.credit, x.delay,
                           x.speed.word_time, GAP_CHARS * x.speed.char_time, y.hold, extra,
                           every))
    k = 0 if u.link < o.link else 1
    pair = (ends[0], ends[1]) if k == 0 else (ends[1], ends[0])
    return (pair, u.hold, fabric.models[u.switch].cut_through,
            HEADER_CHARS * u.speed.char_time), k


def _sent(fabric: FlowFabric, name: str) -> tuple[float, ...]:
    """The line times (s) of the frames link direction *name* carries, in the
    order they go, over and over: each stream crossing it sends its open
    sequences in turn, frame by frame (:class:`fcsim.fc2.nport.NPort`),
    each sequence's frames in order, all sequences started together (an
    assumption: the packet model's sequences keep the phases their start
    gave them); the streams take turns frame by frame (a switch output's
    round robin over its inputs; an assumption where they come at
    different rates)."""
    char = fabric.directions[name].speed.char_time
    each = [[frame_chars(x) * char for x in st.frame_payloads
             for e in st.exchanges if name in e.path]
            for st in fabric.streams if any(name in e.path for e in st.exchanges)]
    rounds = math.lcm(*(len(f) for f in each))
    return tuple(f[k % len(f)] for k in range(rounds) for f in each)


def _behind(fabric: FlowFabric, credits: dict[str, int], by_output: dict[str, list[Queue]],
            where: dict[tuple[str, str, str | None], int], capacity: np.ndarray,
            load: np.ndarray, rate: np.ndarray,
            per_frame: dict[str, tuple[float, float]]) -> dict[str, float]:
    """Per link direction into a switch whose frames wait their turn at a
    full output, how much longer than the switch's hold each
    of its buffers is held, s (:func:`fcsim.flow.credit.behind_output`):
    every frame the direction carries leaves by that output, whose line is
    full, every other input of the output always has a frame waiting (its
    queue gets the output's top rate), and the direction's credit is full
    under *load*. A queue at the top rate itself gets a wait of 0 where its
    credits bring a frame back before each of its turns (counting only the
    other inputs at the top rate, the shortest the turns can come): the
    round robin the model computes is then exact for it. *rate* gives the senders'
    frame rates, *per_frame* each direction's frames per second and mean
    frame time."""
    out: dict[str, float] = {}
    for o, group in by_output.items():
        line = where.get(("line", o, None))
        if line is None or load[line] < capacity[line] * (1 - CLOSE) or o not in per_frame:
            continue
        rates = [sum(share * rate[j] for j, share in zip(q.senders, q.shares, strict=True))
                 for q in group]
        top = max(rates)
        for k, q in enumerate(group):
            d = fabric.directions[q.input]
            if (d.switch is None or q.input not in per_frame
                    or per_frame[q.input][0] > rates[k] * (1 + CLOSE)):
                continue
            others = sum(1 for i, r in enumerate(rates) if i != k and r >= top * (1 - CLOSE))
            every = others == len(group) - 1
            backlogged = rates[k] >= top * (1 - CLOSE)
            if not backlogged and not (every and load[credits[q.input]]
                                       >= capacity[credits[q.input]] * (1 - CLOSE)):
                continue
            cycle = per_frame[q.input][1] + 2 * d.delay + d.hold + d.speed.word_time
            out_char = fabric.directions[o].speed.char_time
            period = per_frame[o][1] + GAP_CHARS * out_char
            hidden = 0.0
            if fabric.models[d.switch].cut_through:
                frame = per_frame[q.input][1]
                hidden = hidden_wait(frame, frame * out_char / d.speed.char_time,
                                     HEADER_CHARS * d.speed.char_time)
            wait = behind_output(cycle, d.credit, others, period, hidden) - cycle
            if wait <= 0 or every:
                out[q.input] = float(wait)
    return out

def _pipelined(fabric: FlowFabric, credits: dict[str, int],
               where: dict[tuple[str, str, str | None], int], capacity: np.ndarray,
               load: np.ndarray, per_frame: dict[str, tuple[float, float]],
               waits: set[str]) -> dict[str, float]:
    """Per link direction that one stream alone keeps full (its line or its
    credit), all of whose exchanges cross it, with sequences that end in a
    shorter frame, how much longer each buffer is effectively held than the
    receiver's hold, s, so that the credit gives the rate of frames sent in
    order as credits come back (:func:`fcsim.flow.credit.pipeline_period`);
    0 where that rate is the line's or the credits' bound. Directions with
    another wait (*waits*) are left out."""
    users: dict[str, list[StreamFlow]] = defaultdict(list)
    for st in fabric.streams:
        for name in {n for e in st.exchanges for n in e.path}:
            users[name].append(st)
    out: dict[str, float] = {}
    periods: dict[tuple[tuple[float, ...], int, float, float], float] = {}
    for name, streams in users.items():
        if len(streams) != 1 or name in waits or name not in per_frame:
            continue
        st = streams[0]
        crossing = [e for e in st.exchanges if name in e.path]
        if (len(set(st.frame_payloads)) < 2 or len(crossing) != len(st.exchanges)
                or any(e.weight != 1 for e in crossing)
                or not any(load[where[kind, name, None]]
                           >= capacity[where[kind, name, None]] * (1 - CLOSE)
                           for kind in ("line", "credit"))):
            continue
        d = fabric.directions[name]
        char = d.speed.char_time
        frames = [frame_chars(x) * char for x in st.frame_payloads for _ in crossing]
        rest = 2 * d.delay + d.hold + d.speed.word_time
        key = (tuple(frames), d.credit, rest, GAP_CHARS * char)  # the same hop, computed once
        if key not in periods:
            periods[key] = pipeline_period(frames, d.credit, rest, GAP_CHARS * char)
        rate = len(frames) / periods[key]
        cycle = sum(frames) / len(frames) + rest
        bound = min(len(frames) / (sum(frames) + len(frames) * GAP_CHARS * char),
                    d.credit / cycle)  # the line's and the credits' bounds, frames/s
        out[name] = d.credit / rate - cycle if rate < bound * (1 - CLOSE) else 0.0
    return out

def _levels(by_output: dict[str, list[Queue]], where: dict[tuple[str, str, str | None], int],
            rows: np.ndarray, cols: np.ndarray, values: np.ndarray, capacity: np.ndarray,
            positions: list[dict[int, float]], senders: int) -> tuple[np.ndarray, bool]:
    """The round-robin level of every output (:mod:`fcsim.flow.arbitration`),
    as *capacity* with each queue's cap set to its output's level (inf where
    the output never fills), and whether the levels settled within
    :data:`ROUNDS` solutions per output.

    The levels rise together: at level *t* every queue of an output not yet
    settled is capped at *t* and the senders take their max-min rates under
    the caps; *t* rises (to where the loads, linear in *t* between changes,
    first fill a resource of an output) until an output's resources are
    full; its level is then fixed by water-filling
    (:func:`fcsim.flow.arbitration.round_robin`) and *t* goes on rising for
    the others, until no sender is held by a rising cap. A cap of the next
    switch's output counts among an output's resources once that level is
    fixed."""
    own = {o: np.array([where["arbitration", o, q.input] for q in group], dtype=np.int64)
           for o, group in by_output.items()}
    owner = {int(i): o for o, idx in own.items() for i in idx}
    mine = {o: resources_of(group) for o, group in by_output.items()}
    # the same as arrays, outputs numbered in by_output's order: each cap's output
    # (own_out), each output's resources (mine_res, mine_out), a cap's output by resource
    names = list(by_output)
    number = {o: k for k, o in enumerate(names)}
    own_idx = np.concatenate([own[o] for o in names])
    own_out = np.repeat(np.arange(len(names)), [len(own[o]) for o in names])
    mine_res = np.array([i for o in names for i in mine[o]], dtype=np.int64)
    mine_out = np.repeat(np.arange(len(names)), [len(mine[o]) for o in names])
    cap_of = np.full(len(capacity), -1)
    cap_of[own_idx] = own_out
    mine_cap = cap_of[mine_res]
    is_fixed = np.zeros(len(names), dtype=bool)
    fixed_level = np.zeros(len(names))
    fixed: dict[str, float] = {}
    t = 1.0
    before: tuple[float, np.ndarray] | None = None
    cap = capacity.copy()
    for _ in range(RISES):
        cap = capacity.copy()
        cap[own_idx] = np.where(is_fixed[own_out], fixed_level[own_out], t)
        filling = max_min(rows, cols, values, cap, senders)
        load = filling.load

        def eligible(i: int) -> bool:
            return i not in owner or owner[i] in fixed

        # an output's resource counts once it is not a cap still rising
        counts = (mine_cap < 0) | is_fixed[np.maximum(mine_cap, 0)]
        open_ = counts & ~is_fixed[mine_out]
        full = [names[k] for k in np.unique(mine_out[
            open_ & (load[mine_res] >= cap[mine_res] * (1 - CLOSE))]).tolist()]
        holding = held(rows, cols, values, cap, filling.rate, load)
        rising = set(own_idx[~is_fixed[own_out]].tolist())
        if full:
            rate, limit = filling.rate.tolist(), cap.tolist()
            for o in full:
                fixed[o] = min(t, round_robin(by_output[o], rate, holding, positions, limit,
                                              [i for i in mine[o] if eligible(i)], rising,
                                              exclusive=False))
                is_fixed[number[o]], fixed_level[number[o]] = True, fixed[o]
            before = None
            continue
        if math.isinf(t) or not any(h in rising for hs in holding for h in hs):
            return _settle(by_output, own, mine, fixed, rows, cols, values, capacity,
                           positions, senders, exclusive=False)
        res = mine_res[open_ & (load[mine_res] > 0)]
        if before is None:
            found = t * cap[res] / load[res]
        else:
            res = res[load[res] > before[1][res]]
            slope = (load[res] - before[1][res]) / (t - before[0])
            found = t + (cap[res] - load[res]) / slope
        nxt = float(found.min()) if len(found) else math.inf
        before = (t, load)
        t = max(nxt, t * (1 + 1e-9))
    return capacity, False


def _settle(by_output: dict[str, list[Queue]], own: dict[str, np.ndarray],
            mine: dict[str, list[int]], fixed: dict[str, float], rows: np.ndarray,
            cols: np.ndarray, values: np.ndarray, capacity: np.ndarray,
            positions: list[dict[int, float]], senders: int,
            forced: dict[str, set[int]] | None = None,
            untie: bool = True, exclusive: bool = True) -> tuple[np.ndarray, bool]:
    """From the levels *fixed* as they rose, every output's level again from
    the solution they give, until none moves (the fixed point: each output's
    level is what its round robin gives for the rates the levels give);
    the capacities with the levels and whether they settled. With *forced*
    (per output, senders), the first :data:`FORCED_ROUNDS` rounds count the
    queues of those senders at that output as backlogged whatever holds
    them (:func:`_other_fixed_point`), and the rounds after them settle as
    above. A settled answer (without *forced*, and with *untie*) is then
    freed of the levels that hold senders only by a tie (:func:`_untied`).
    Without *exclusive* a queue whose sender is held on another exchange's
    path never waits (:func:`fcsim.flow.arbitration.waiting`); the levels
    rise and first settle so, and from there settle again counting a queue
    whose exchange is held by a resource of its own as waiting: that answer
    if it settles, else the first. A settling thrown back :data:`THROWS`
    times gives up before its :data:`ROUNDS`, as unsettled."""
    levels = dict(fixed)
    cap = capacity.copy()
    pushed = FORCED_ROUNDS if forced else 0
    before, thrown = math.inf, 0
    inputs = _RoundRobinInputs(by_output, mine, senders, len(capacity))
    last: dict[str, float] = {}
    for round_ in range(pushed + ROUNDS):
        cap = capacity.copy()
        for o, idx in own.items():
            cap[idx] = levels.get(o, math.inf)
        filling = max_min(rows, cols, values, cap, senders)
        holding = held(rows, cols, values, cap, filling.rate, filling.load)
        found = {}
        rate, limit = filling.rate.tolist(), cap.tolist()
        # an output whose round robin sees what it saw last round keeps its level
        # (the rising caps of the forced rounds and the round after them excepted)
        moved = inputs.moved(filling.rate, holding, cap, everything=bool(forced)
                             and round_ <= pushed)
        for o, group in by_output.items():
            if o in moved:
                rising: set[int] = set()
                if forced and round_ < pushed and o in forced:
                    rising = {h for j in forced[o] for h in holding[j]}
                last[o] = round_robin(group, rate, holding, positions, limit, mine[o], rising,
                                      exclusive)
            if math.isfinite(last[o]):
                found[o] = last[o]
        if round_ >= pushed:
            move = _largest_move(found, levels)
            thrown += move > THROWN * before
            if thrown >= THROWS:
                return capacity, False  # thrown back again and again: it will not settle
            before = move
        if round_ >= pushed and found.keys() == levels.keys() and all(
                math.isclose(found[o], levels[o], rel_tol=SETTLED) for o in found):
            if forced or not untie:
                return cap, True
            if not exclusive:
                again, settled = _settle(by_output, own, mine, levels, rows, cols, values,
                                         capacity, positions, senders)
                if settled:
                    return again, True
            return _untied(by_output, own, mine, rows, cols, values, capacity, cap,
                           positions, senders, exclusive), True
        levels = {o: level if math.isinf(levels.get(o, math.inf))
                  else levels[o] + DAMPING * (level - levels[o]) for o, level in found.items()}
    return capacity, False


class _RoundRobinInputs:
    """What each output's round robin (:func:`fcsim.flow.arbitration.round_robin`)
    reads of a max-min solution, round after round of :func:`_settle`: the
    rates and holding resources of its queues' senders and the capacities
    of its resources (its queues, positions and the rule are fixed). An
    output none of whose inputs moved since the round before gives the same
    level, so :meth:`moved` names only the outputs whose level must be
    computed again."""

    def __init__(self, by_output: dict[str, list[Queue]], mine: dict[str, list[int]],
                 senders: int, resources: int) -> None:
        self.names = list(by_output)
        # (output number, sender) and (output number, resource) pairs
        pairs = [(k, j) for k, o in enumerate(self.names)
                 for j in {j for q in by_output[o] for j in q.senders}]
        self.sender_out = np.array([k for k, _ in pairs], dtype=np.int64)
        self.sender = np.array([j for _, j in pairs], dtype=np.int64)
        self.resource_out = np.repeat(np.arange(len(self.names)),
                                      [len(mine[o]) for o in self.names])
        self.resource = np.array([i for o in self.names for i in mine[o]], dtype=np.int64)
        self.rate: np.ndarray | None = None
        self.holding: list[set[int]] = []
        self.cap = np.zeros(resources)
        self.senders = senders

    def moved(self, rate: np.ndarray, holding: list[set[int]], cap: np.ndarray,
              everything: bool = False) -> set[str]:
        """The outputs whose senders' *rate* (frames/s) or *holding*, or
        whose resources' *cap*, differ from the last call's (all of them at
        the first call and with *everything*); remembers these."""
        if self.rate is None or everything:
            out = set(self.names)
        else:
            sender = (rate != self.rate) | np.fromiter(
                (now != then for now, then in zip(holding, self.holding, strict=True)),
                dtype=bool, count=self.senders)
            resource = cap != self.cap
            dirty = np.zeros(len(self.names), dtype=bool)
            dirty[self.sender_out[sender[self.sender]]] = True
            dirty[self.resource_out[resource[self.resource]]] = True
            out = {self.names[k] for k in np.flatnonzero(dirty).tolist()}
        self.rate, self.holding, self.cap = rate, holding, cap
        return out


def _largest_move(found: dict[str, float], levels: dict[str, float]) -> float:
    """The largest relative move of an output's level from *levels* to
    *found* (relative to the larger of the two, as :data:`SETTLED` is), inf
    where an output gains or loses its level."""
    if found.keys() != levels.keys():
        return math.inf
    return max((abs(found[o] - levels[o]) / max(abs(found[o]), abs(levels[o]))
                for o in found if found[o] != levels[o]), default=0.0)


def _untied(by_output: dict[str, list[Queue]], own: dict[str, np.ndarray],
            mine: dict[str, list[int]], rows: np.ndarray, cols: np.ndarray,
            values: np.ndarray, capacity: np.ndarray, cap: np.ndarray,
            positions: list[dict[int, float]], senders: int,
            exclusive: bool = True) -> np.ndarray:
    """The capacities *cap* of a settled fixed point (*capacity* without the
    levels), freed of the levels that hold senders only by a tie.

    An output none of whose queues is backlogged takes the level at which
    its busiest queues would fill it (:func:`fcsim.flow.arbitration.round_robin`),
    meant to lie above every rate it carries: no frame waits for it, and
    the switch serves whichever input has a frame (``Switch.pull``), so
    its turns hold no one. Where two queues tie for busiest, that level can
    equal their rate, cap one of them through a resource only the other
    loads (the next switch's cap on the other's frames, which it fills
    exactly), and hold its sender, keeping the tie: a fixed point of the
    levels that the switches do not keep. For each output whose level
    holds a sender while none of its queues is backlogged, the levels
    settle again from this fixed point without that output's; an answer
    that settles, gives no sender less (to :data:`OTHER`) and some more, is
    taken, the one carrying the most frames if several, and the search
    repeats from it (at most :data:`UNTIES` times)."""
    owner = {int(i): o for o, idx in own.items() for i in idx}
    for _ in range(UNTIES):
        filling = max_min(rows, cols, values, cap, senders)
        holding = held(rows, cols, values, cap, filling.rate, filling.load)
        levels = {o: float(cap[idx[0]]) for o, idx in own.items() if math.isfinite(cap[idx[0]])}
        tied = {o for o in {owner[h] for hs in holding for h in hs if h in owner}
                if not any(waiting(by_output[o], holding, positions, set(), exclusive))}
        if not tied:
            break
        freed = {k: v for k, v in levels.items() if k not in tied}
        other, settled = _settle(by_output, own, mine, freed, rows, cols, values, capacity,
                                 positions, senders, untie=False, exclusive=exclusive)
        if not settled:
            break
        rates = max_min(rows, cols, values, other, senders).rate
        if not (rates.sum() > filling.rate.sum() * (1 + OTHER)
                and np.all(rates >= filling.rate * (1 - OTHER))):
            break
        cap = other
    return cap


def _other_fixed_point(by_output: dict[str, list[Queue]],
                       where: dict[tuple[str, str, str | None], int], rows: np.ndarray,
                       cols: np.ndarray, values: np.ndarray, capacity: np.ndarray,
                       cap: np.ndarray, positions: list[dict[int, float]],
                       senders: int) -> np.ndarray | None:
    """The senders' rates at another fixed point of the round robin than the
    one settled under the capacities *cap* (*capacity* without the levels),
    None if none is found.

    Two fixed points fit where a sender crosses two full outputs on two of
    its exchanges and may be held at either: held at one, its queue at the
    other is not backlogged (it carries fewer frames than that output's
    level), while held at the other, that output would take its inputs in
    turn at a lower level and leave the first output's slack to others. The
    candidates are the full outputs with a queue that is not backlogged
    (:func:`fcsim.flow.arbitration.waiting`) although one of its senders is
    held off that exchange's path, and whose level, counting those queues
    as backlogged, is below the rate one of them carries (the round robin
    would then hold it). From each candidate's levels the settling starts
    again with those queues counted as backlogged for
    :data:`FORCED_ROUNDS` rounds, then settles freely; a settled answer
    whose rates differ by more than :data:`OTHER` is another fixed point."""
    filling = max_min(rows, cols, values, cap, senders)
    holding = held(rows, cols, values, cap, filling.rate, filling.load)
    own = {o: np.array([where["arbitration", o, q.input] for q in group], dtype=np.int64)
           for o, group in by_output.items()}
    mine = {o: resources_of(group) for o, group in by_output.items()}
    levels = {o: float(cap[idx[0]]) for o, idx in own.items() if math.isfinite(cap[idx[0]])}
    rate, limit = filling.rate.tolist(), cap.tolist()
    turns = {int(i) for idx in own.values() for i in idx}
    for o, group in by_output.items():
        if o not in levels:
            continue
        forced: set[int] = set()
        carried = 0.0
        for q, waits in zip(group, waiting(group, holding, positions, set(), exclusive=False),
                            strict=True):
            held_off = {j for j, e in zip(q.senders, q.exchanges, strict=True)
                        if holding[j] and any(h not in positions[e] for h in holding[j])
                        and all(h in turns for h in holding[j])}
            if not waits and held_off:
                forced |= held_off
                carried = max(carried, sum(share * rate[j] for j, share
                                           in zip(q.senders, q.shares, strict=True)))
        if not forced:
            continue
        pushed = round_robin(group, rate, holding, positions, limit, mine[o],
                             {h for j in forced for h in holding[j]}, exclusive=False)
        if pushed >= carried * (1 - CLOSE):
            continue
        other, settled = _settle(by_output, own, mine, levels, rows, cols, values, capacity,
                                 positions, senders, {o: forced}, exclusive=False)
        if not settled:
            continue
        rates = max_min(rows, cols, values, other, senders).rate
        if np.any(np.abs(rates - filling.rate) > OTHER * filling.rate):
            return rates
    return None


def caveats(result: FlowResult) -> dict[str, list[str]]:
    """Per sender, how the packet model's switches may share otherwise than
    max-min fairness, for this result (empty: the result is what they give):

    - *per-port arbitration*, *shared input buffers*: only where the
      round-robin levels of the switch outputs did not settle within their
      budget (:data:`ROUNDS`) and the fluid queues
      (:mod:`fcsim.flow.fluid`) did not become steady within theirs (the
      rates are then plain max-min): a full
      output out of a switch that does not carry equal frame rates from the
      inputs holding senders stopped there, and a switch input carrying a
      sender stopped further on beside others stopped elsewhere
      (:func:`_unsettled`);
    - *two fixed points*: a sender whose rate differs at another fixed point
      of the round robin (:func:`_other_fixed_point`): the packet model's
      switches may settle in either, or between them, by the order in which
      their buffers fill, which the levels do not carry;
    - *input FIFO*: an input of a switch without virtual output queues
      carries frames for more than one output (head-of-line blocking);
    - *central router*: a sender stopped by a switch's router (served in
      arrival order, not in turn);
    - *R_RDY behind frames*: a link direction whose credit would bind if each
      R_RDY waited for a whole frame the other way (an R_RDY goes between
      frames), on a link carrying frames both ways, unless both directions
      are credit-bound: their R_RDYs then lock behind the frames the other
      way, which the model computes (:mod:`fcsim.flow.credit`, *locked*),
      or, where the trains could also cross, the model follows the link
      from the start the scenario sets (:func:`_from_start`; *locked* 0
      where the trains cross);
    - *credit behind a full output*: a link direction into a switch whose
      credit would bind if each frame also waited, on a full output it
      leaves by, for a whole frame from each input the output serves in turn
      (the switch holds its buffer until the frame crosses), unless the
      model computes that wait (:func:`_behind`, *behind*);
    - *credit-tight pipeline*: a stream whose sequences end in a shorter
      frame crosses a link direction with less than a credit to spare (the
      next frame follows the short one at once, so the hop needs a credit
      more than on average: a stall each sequence; computed instead where
      one stream alone keeps the hop full, :func:`_pipelined`), or into a
      store-and-forward switch whose credits are not twice what the hop
      keeps in flight (a short frame then waits behind the long one ahead of
      it at every hop and takes a long frame's slot);
    - *queue behind held frames*: a sender of a queue that the second rule
      of :func:`fcsim.flow.arbitration.waiting` counts as waiting above the
      level it gives that queue's output, where the settling by that rule
      did not settle and the first rule's answer is kept (:func:`_unkept`):
      every queue of the held senders' paths may then be backlogged, and a
      sender sharing them goes at their pace;
    - *input full at its shares*: a link direction into a switch, full,
      whose frames leave by two or more full outputs, each taking it in turn
      with another input at exactly the round robin's share
      (:func:`_at_its_shares`): its queues' backlogs are not pinned by the
      rates, and where one comes to hold the input's buffers the other's
      output takes its other input instead.
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
    for inp, senders in after.items():
        switch = fabric.directions[inp].switch
        if switch is not None and not fabric.models[switch].virtual_output_queues and len(
                outputs[inp]) > 1:
            for s in senders:
                found[s].add("input FIFO")
    if not result.settled and not result.fluid:  # plain max-min: where the switches share otherwise
        _unsettled(result, on, after, found)
    for name in result.unkept:  # queued behind frames the second rule holds: not computed
        found[name].add("queue behind held frames")
    if result.other is not None:  # the switches may settle in either fixed point
        for name, ours, theirs in zip(result.senders, result.rates, result.other, strict=True):
            if abs(theirs - ours) > OTHER * ours:
                found[name].add("two fixed points")
    for s, (kind, _) in stopped.items():
        if kind == "router":
            found[s].add("central router")
    longest = _longest_frames(fabric)
    where = {(r.kind, r.owner): i for i, r in enumerate(result.resources)}
    # credits to spare, without the wait that gives a pipeline's rate (_pipelined)
    spare = {r.owner: r.capacity - result.load[i] + result.pipelined.get(r.owner, 0.0) * sum(
        rate for g in on[r.owner].values() for rate in g.values())
        for i, r in enumerate(result.resources) if r.kind == "credit"}

    def tight(name: str) -> bool:
        """Less than a credit to spare (unless :func:`_pipelined` computed the
        hop), or (into a store-and-forward switch) more than half the credits
        in use."""
        d = fabric.directions[name]
        stored = d.switch is not None and not fabric.models[d.switch].cut_through
        return ((spare[name] < 1 and name not in result.pipelined)
                or (stored and spare[name] < d.credit / 2))

    for st in fabric.streams:
        if len(set(st.frame_payloads)) > 1 and any(
                tight(name) for e in st.exchanges for name in e.path):
            found[st.source].add("credit-tight pipeline")
    back_of = other_ways(fabric)
    for i, r in enumerate(result.resources):
        if r.kind != "credit":
            continue
        back = back_of[r.owner]
        wait = longest.get(back, 0.0) if back is not None else 0.0
        frames = sum(on[r.owner][g][s] for g in on[r.owner] for s in on[r.owner][g])
        senders = {s for g in on[r.owner] for s in on[r.owner][g]}
        if wait and r.owner not in result.locked and (
                result.load[i] + frames * wait > r.capacity * (1 - CLOSE)):
            for s in senders:
                found[s].add("R_RDY behind frames")
        ahead = max((len(on[n]) * longest.get(n, 0.0) for n in outputs.get(r.owner, ())
                     if _full(result, where, n)), default=0.0)
        if ahead and r.owner not in result.behind and (
                result.load[i] + frames * ahead > r.capacity * (1 - CLOSE)):
            for s in senders:
                found[s].add("credit behind a full output")
    for inp, senders in after.items():
        if _at_its_shares(result, where, on, inp, outputs[inp]):
            for s in senders:
                found[s].add("input full at its shares")
    return {s: sorted(found.get(s, ())) for s in result.senders}


def _at_its_shares(result: FlowResult, where: dict[tuple[str, str], int],
                   on: dict[str, dict[str, dict[str, float]]], inp: str,
                   outputs: set[str]) -> bool:
    """True if *inp*, a link direction into a switch, is full and carries
    frames to two or more *outputs*, each full and taking *inp* in turn
    with another input at exactly the round robin's share (its frames/s on
    each output, by input and sender: *on*). Each of the input's queues then
    gets frames exactly as fast as its output takes them, so nothing in the
    rates pins its backlog; in the packet model one queue's backlog comes to
    hold the input's shared buffers, the other's next frame cannot come in,
    and its output takes its other input again (docs/model.md, "Flow
    model", *input full at its shares*)."""
    if result.fabric.directions[inp].switch is None or len(outputs) < 2 or not _full(
            result, where, inp):
        return False
    for name in outputs:
        totals = {g: sum(senders.values()) for g, senders in on[name].items()}
        others = [rate for g, rate in totals.items() if g != inp]
        if not others or not _full(result, where, name) or abs(
                totals[inp] - max(others)) > CLOSE * totals[inp]:
            return False
    return True


def _unsettled(result: FlowResult, on: dict[str, dict[str, dict[str, float]]],
               after: dict[str, dict[str, set[str]]], found: dict[str, set[str]]) -> None:
    """Where the round-robin levels are not computed (the rates are plain
    max-min), add to *found* per sender what the switches would share
    otherwise: *per-port arbitration* where a full output out of a switch
    does not carry equal frame rates from the inputs holding senders stopped
    there, or another input carries more; *shared input buffers* where a
    switch input carries a sender stopped further on and others stopped
    elsewhere. *on* gives the frames per second on each direction per (input,
    sender), *after* the directions that follow each input per sender."""
    fabric = result.fabric
    stopped = {name: (b.kind, b.owner) for name, b in zip(result.senders, result.bottleneck,
                                                           strict=True)}
    for name, groups in on.items():
        if fabric.directions[name].origin is None:
            continue  # leaves an N_Port: its own turn-taking is modelled exactly
        holding = {g for g, senders in groups.items()
                   if any(stopped[s] in (("line", name), ("credit", name)) for s in senders)}
        if not holding:
            continue
        totals = {g: sum(senders.values()) for g, senders in groups.items()}
        top = max(totals[g] for g in holding)
        if any(abs(totals[g] - top) > CLOSE * top for g in holding) or any(
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
    char = {name: d.speed.char_time for name, d in fabric.directions.items()}
    for s in fabric.streams:
        chars = frame_chars(max(s.frame_payloads))
        for exchange in s.exchanges:
            for name in exchange.path:
                time = chars * char[name]
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
            "bottleneck": {"kind": b.kind, "at": b.owner} | (
                {"input": b.via} if b.via is not None else {}),
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
            "credit_in_use": float(credit_of.get(name, 0.0)),
            "credit_wait_s": sum(waits.get(name, 0.0) for waits in (
                result.locked, result.paced, result.behind, result.pipelined))}
    isl = [u for entry in links.values() if entry["isl"]
           for u in (v["utilisation"] for v in entry["directions"].values())]
    return {"model": "flow", "streams": streams, "links": links,
            "isl_utilisation": {"directions": len(isl), "max": float(max(isl, default=0.0)),
                                "mean": float(sum(isl) / len(isl)) if isl else 0.0},
            "total_throughput_bytes_per_s": float(sum(result.stream_rates.values())),
            "tolerance": TOLERANCE,
            "rates": ("round-robin levels" if result.settled else
                      "fluid queues" if result.fluid else "plain max-min"),
            "exact": not any(result.caveats.values())}
