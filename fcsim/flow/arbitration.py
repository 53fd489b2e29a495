"""Per-port arbitration at a switch output, as the flow model computes it.

A switch output takes its inputs in turn, a frame at a time
(:meth:`fcsim.fabric.switch.Switch.pull`: the inputs whose virtual output
queue for it holds a frame, cyclically from the one after the input it took
last), so where an output is the limit every *input* with frames waiting
for it gets the same frame rate, whatever number of senders each carries.
And an input's receive buffers (its BB credit) serve every output: frames
for an output that holds them back (it serves them at less than they
arrive) fill the buffers, the switch returns a credit only as a frame
crosses (:meth:`fcsim.fabric.switch.Switch.free_input`), and the link into
the input then carries frames at the pace they leave, the transmitter at
its other end taking its own inputs in turn at that pace.

Each (output, input) pair is a :class:`Queue`: the frames one input sends
to one output. Its cap is the output's *level* (frames/s), which
:func:`round_robin` computes from a max-min solution, and
:func:`fcsim.flow.model.solve` solves again under the caps until they hold
still:

- a queue is *backlogged* (:func:`waiting`) when it carries a sender held
  (stopped by a full resource on which no sender goes faster,
  :func:`held`) only at the output or further on that exchange's path: its
  frames wait for the output, it would send more. A sender held also
  somewhere before the output is not waiting here, nor one held on the
  path of another of its exchanges, unless a resource that only this
  exchange crosses holds it at the output or further on;
- the level is the round-robin share: every queue gets min(its rate,
  level), backlogged ones counting as wanting more than any level, and the
  output's resources are then exactly full (water-filling, :func:`level`):
  its line seconds, its credit seconds (by Little's law), the receiving
  N_Port's processing seconds, and the caps of the next switch's outputs on
  the frames this output feeds into that switch: a queue there held to its
  level fills the input's shared buffers, so this output sends frames for
  it only at that pace, and takes its own inputs in turn within it (the
  blocking reaches back hop by hop);
- an output with no backlogged queue gets the level at which its busiest
  queue would fill it (above every rate, so it does not bind, and the
  level moves continuously as the output comes to be full; where a tie
  makes it bind, :func:`fcsim.flow.model._untied` takes it out once the
  levels have settled).

Within a queue the frames of its senders keep the proportions the earlier
hops gave them (caps there), and max-min fairness among the senders of one
queue (the solver's filling) is what is left.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

CLOSE = 1e-6
"""Relative difference under which two rates count as equal."""


@dataclass
class Queue:
    """The frames *input* (a link direction into the switch: a sender's own
    link or another switch's output) sends to *output* (a link direction out
    of a switch):
    per member, the sender's index, its share of the sender's frames, the
    output's position on the member's exchange path, the exchange, and per
    frame of the member its load on each of the output's resources
    (*units*, by resource index), and the resources on the exchange's path
    that none of the sender's other exchanges crosses (*exclusive*)."""

    output: str
    input: str
    senders: list[int] = field(default_factory=list)
    shares: list[float] = field(default_factory=list)
    positions: list[int] = field(default_factory=list)
    exchanges: list[int] = field(default_factory=list)
    units: list[dict[int, float]] = field(default_factory=list)
    exclusive: list[frozenset[int]] = field(default_factory=list)


def held(rows: np.ndarray, cols: np.ndarray, values: np.ndarray, capacity: np.ndarray,
         rate: np.ndarray, load: np.ndarray) -> list[set[int]]:
    """Per sender, the resources that hold it: full ones on which no sender
    has a higher rate (max-min fairness's bottlenecks, Bertsekas and
    Gallager §6.5.2)."""
    full = load >= capacity * (1 - CLOSE)
    top = np.zeros(len(capacity))
    np.maximum.at(top, rows, rate[cols] * (values > 0))
    holds = full[rows] & (rate[cols] >= top[rows] * (1 - CLOSE))
    out: list[set[int]] = [set() for _ in range(len(rate))]
    for r, j in zip(rows[holds].tolist(), cols[holds].tolist(), strict=True):
        out[j].add(r)
    return out


def level(demands: list[float], units: list[float], capacity: float) -> float:
    """The water level *Q* at which queues of *demands* (frames/s; inf:
    backlogged), each frame loading *units* of a resource of *capacity*,
    fill it: sum(min(d, Q) x u) = capacity; inf if they all fit. A queue
    whose demand the resource meets (to :data:`CLOSE`) is met, so a resource
    that the queues met fill exactly, and none wanting more loads, bounds
    no level (inf): it would otherwise cap at their demand the queues that
    do not use it."""
    order = sorted(range(len(demands)), key=lambda i: demands[i])
    weight = sum(units)
    used = 0.0
    for i in order:
        if weight <= 0:
            return math.inf
        q = (capacity - used) / weight
        if q < demands[i] * (1 - CLOSE):
            return max(q, 0.0)
        used += demands[i] * units[i]
        weight -= units[i]
    return math.inf


def round_robin(group: list[Queue], rate: list[float], holding: list[set[int]],
                positions: list[dict[int, float]], capacity: list[float],
                resources: list[int], rising: set[int], exclusive: bool = True) -> float:
    """The level of the output whose queues are *group*, for a max-min
    solution (*rate* per sender, the resources *holding* each; *positions*
    per exchange each resource's place on its path): every queue gets
    min(its rate, level), a backlogged queue (:func:`waiting`) counting as
    wanting more than any level, and the output's *resources* (of its line,
    its credit, the receiving N_Port's processing and the caps of the next
    switch's outputs on its frames, those that count) are full at the level
    (inf if they never are). With no queue backlogged, the busiest counts as
    wanting more."""
    rates, demands, loads = [], [], []
    for q, waits in zip(group, waiting(group, holding, positions, rising, exclusive), strict=True):
        r = 0.0
        load: dict[int, float] = {}
        for j, share, units in zip(q.senders, q.shares, q.units, strict=True):
            m = share * rate[j]
            r += m
            for i, u in units.items():
                load[i] = load.get(i, 0.0) + m * u
        rates.append(r)
        demands.append(math.inf if waits else r)
        loads.append(load)
    if math.inf not in demands and rates:
        most = max(rates)  # none waits: the level the busiest would fill it at
        demands = [math.inf if r >= most * (1 - CLOSE) else d
                   for r, d in zip(rates, demands, strict=True)]
    top = math.inf
    for i in resources:
        units = [load.get(i, 0.0) / r if r > 0 else 0.0
                 for load, r in zip(loads, rates, strict=True)]
        top = min(top, level(demands, units, capacity[i]))
    return top


def waiting(group: list[Queue], holding: list[set[int]], positions: list[dict[int, float]],
            rising: set[int], exclusive: bool = True) -> list[bool]:
    """Per queue of *group*, whether it is backlogged: it carries a sender
    held only at the output or further on that exchange's path (*positions*),
    or by a cap that is still rising (*rising*: it would want more wherever
    it is), so that its frames wait for the output.

    A sender held also on the path of another of its exchanges sends this
    one's frames at the pace the others allow (it takes its exchanges in
    turn), and they do not wait here; but with *exclusive*, where this
    exchange is held at the output or further on by a resource none of the
    sender's other exchanges crosses (*exclusive* of the queue: each
    exchange held by its own turn at one full output, say), it would be
    held there whatever the others allow, its frames fill the buffers
    before it, and the queue waits. Without *exclusive* the first rule
    alone (the levels rise and first settle under it,
    :func:`fcsim.flow.model._settle`)."""
    flags = []
    for q in group:
        waits = False
        for j, k, e, alone in zip(q.senders, q.positions, q.exchanges, q.exclusive, strict=True):
            holders = holding[j]
            place = positions[e]
            if not holders or any(h not in rising and place.get(h, k) < k for h in holders):
                continue  # free, or held before the output
            if all(h in rising or h in place for h in holders) or exclusive and any(
                    h in alone and place[h] >= k for h in holders):
                waits = True
                break
        flags.append(waits)
    return flags


def resources_of(group: list[Queue]) -> list[int]:
    """The resources of the output whose queues are *group* (see :func:`round_robin`)."""
    return sorted({i for q in group for u in q.units for i in u})
