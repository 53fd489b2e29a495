"""Fluid dynamics of a fabric's queues, stepped in time to their steady rates.

Where the round robin's levels do not settle (:func:`fcsim.flow.model.solve`),
the queues themselves are followed instead of a fixed point of their caps:
each (output, input) virtual output queue of a switch holds a content of
each exchange's frames (frames, a real number); each output takes the
queues with content in turn, a frame at a time, which in the fluid limit
is processor sharing among its inputs (each input served at the same frame
rate, an input offering less getting all it offers: :meth:`fcsim.fabric.switch.Switch.pull`);
a switch input's buffers hold at most its BB credit of frames for all its
outputs together, and the transmitter at the other end sends only into
free buffers (backpressure: :meth:`fcsim.fabric.switch.Switch.free_input`
returns a credit as a frame crosses); a sending N_Port is a queue that is
never empty, its frames split over its exchanges in turn. Each output's
service per step is also bounded by its line (frame and fill words), its
credit by Little's law (frames in flight times the buffer's cycle) and the
receiving N_Port's processing, as in :func:`fcsim.flow.model.solve`.

The state moves in steps of :data:`STEP_FRAMES` of the shortest frame time
on any line (explicit: a step's arrivals are served from the next step on,
as a store-and-forward switch serves a frame once it is in; the room a
buffer's own departures make counts within the step, found by serving
twice, the second time with the first's departures, so a one-credit hop
is not halved by the steps); within a
queue the frames served are taken from its exchanges in proportion to
their content (first in, first out on average). The rates are the
delivered frames over a window of :data:`WINDOW` steps once two windows in
a row agree to :data:`STEADY`.

This is SimGrid's fluid view made dynamic: the order in which the
switches' buffers fill, which a fixed point of levels does not carry, is
what the steps follow.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from fcsim.fc2.frame import frame_chars
from fcsim.flow.fabric import GAP_CHARS, FlowFabric

STEP_FRAMES = 1.0
"""Length of a step in frame times of the shortest frame on any line (an
assumption of this model: one frame a step at most through the fastest
line, so no buffer of one credit is overrun within a step)."""
WINDOW = 400
"""Steps over which the delivered frames are averaged into rates."""
STEADY = 1e-3
"""Largest relative change of a sender's rate between two windows for the
rates to count as steady."""
WINDOWS = 60
"""Windows the steps may take before the rates count as not steady."""
WORK = 3e7
"""Item-steps (an exchange at one hop, for one step) the steps may take in
all: the windows are cut to fit, and a fabric with room for fewer than
three is not stepped at all (not steady). About 0.5 us of processor time
an item-step on a loaded machine, so at most about 15 s; the 239-domain
bench fabric has 31,960 items, room for two windows: not stepped (after
8,800 steps it was not steady either: docs/model.md)."""
SOURCE = 1e3
"""Content of a sending N_Port's queue (frames, times each exchange's share
of its frames): never empty, as no line passes more than
:data:`STEP_FRAMES` frames a step, and small enough that the sums of
content times seconds per frame over all queues keep the precision a
step's budget needs (with 1e12 a 4GFC output took 0.13 % more than its
line)."""


@dataclass
class FluidRates:
    """Each sender's frame rate (*rates*, frames/s, the senders in the
    order given), whether two windows agreed to :data:`STEADY` (*steady*),
    and the steps taken (*steps*)."""

    rates: np.ndarray
    steady: bool
    steps: int


def _water(group: np.ndarray, offered: np.ndarray, costs: list[np.ndarray],
           budgets: list[np.ndarray], groups: int) -> np.ndarray:
    """Per group (output), the level *rho* (frames a queue a step) such that
    sum over its queues of min(offered, rho) x cost stays within the budget
    for every constraint, inf where everything offered fits."""
    order = np.lexsort((offered, group))
    g = group[order]
    c = offered[order]
    starts = np.searchsorted(g, np.arange(groups))
    ends = np.append(starts[1:], len(g))
    level = np.full(groups, np.inf)
    for cost, budget in zip(costs, budgets, strict=True):
        a = cost[order]
        ca = np.cumsum(c * a)
        ta = np.cumsum(a)
        before = np.concatenate(([0.0], ca))  # sum of c a over entries < p
        total_a = np.concatenate(([0.0], ta))
        first = starts[g]
        prefix = before[np.arange(len(g))] - before[first]
        suffix = total_a[ends[g]] - total_a[np.arange(len(g))]
        filled = prefix + c * suffix
        over = np.flatnonzero(filled > budget[g])
        if not len(over):
            continue
        groups_over, at = np.unique(g[over], return_index=True)
        p = over[at]
        rho = (budget[groups_over] - prefix[p]) / np.maximum(suffix[p], 1e-300)
        level[groups_over] = np.minimum(level[groups_over], np.maximum(rho, 0.0))
    return level


def steady_rates(fabric: FlowFabric, senders: list[str]) -> FluidRates:
    """Step the fluid queues of *fabric* until the senders' rates hold
    still (module docstring); *senders* names the sending N_Ports in the
    order of the rates returned. A fabric with a switch whose central
    router limits its frames (:attr:`FlowFabric.routers`, one limit over
    all its outputs, which the outputs' steps do not share) is not
    stepped (not steady)."""
    if fabric.routers:
        return FluidRates(np.zeros(len(senders)), False, 0)
    index = {name: i for i, name in enumerate(senders)}
    slots: dict[str, float] = defaultdict(float)
    for s in fabric.streams:
        slots[s.source] += s.slots
    voqs: dict[tuple[str, str], int] = {}
    outputs: dict[str, int] = {}
    voq_of, prev, sender, share, line, credit, proc, first = [], [], [], [], [], [], [], []
    buffer_of = []  # per item, the input buffer (direction index) it sits in, -1 for a source
    last: list[int] = []
    for s in fabric.streams:
        payloads = s.frame_payloads
        chars = sum(frame_chars(d) for d in payloads) / len(payloads)
        processing = fabric.processing.get(s.destination)
        for exchange in s.exchanges:
            before = -1
            for k, name in enumerate(exchange.path):
                d = fabric.directions[name]
                outputs.setdefault(name, len(outputs))
                feed = f"<{s.source}" if k == 0 else exchange.path[k - 1]
                v = voqs.setdefault((name, feed), len(voqs))
                frame_time = chars * d.speed.char_time
                voq_of.append(v)
                prev.append(before)
                sender.append(index[s.source])
                share.append(exchange.weight / slots[s.source])
                line.append(frame_time + GAP_CHARS * d.speed.char_time)
                credit.append(frame_time + 2 * d.delay + d.hold + d.speed.word_time)
                proc.append(processing if d.switch is None and processing else 0.0)
                first.append(k == 0)
                buffer_of.append(-1 if k == 0 else outputs[exchange.path[k - 1]])
                before = len(voq_of) - 1
            last.append(before)
    names = list(outputs)
    voq_out = np.zeros(len(voqs), dtype=np.int64)
    for (name, _), v in voqs.items():
        voq_out[v] = outputs[name]
    voq_of_a = np.array(voq_of, dtype=np.int64)
    prev_a = np.array(prev, dtype=np.int64)
    has_prev = prev_a >= 0
    first_a = np.array(first)
    line_a, credit_a, proc_a = np.array(line), np.array(credit), np.array(proc)
    buffer_a = np.array(buffer_of, dtype=np.int64)
    in_buffer = buffer_a >= 0
    last_a = np.array(last, dtype=np.int64)
    sender_last = np.array(sender, dtype=np.int64)[last_a]
    share_a = np.array(share)
    dirs = [fabric.directions[n] for n in names]
    room = np.array([float(d.credit) if d.switch is not None else np.inf for d in dirs])
    credits = np.array([float(d.credit) for d in dirs])
    dt = STEP_FRAMES * float(line_a.min())
    budgets = [np.full(len(names), dt), credits * dt, np.full(len(names), dt)]
    content = np.where(first_a, share_a * SOURCE, 0.0)
    drained = np.zeros(len(names))  # frames leaving each input buffer: last step's, then this one's
    delivered = np.zeros(len(senders))
    previous = np.zeros(len(senders))
    steps = 0
    nv = len(voqs)
    windows = min(WINDOWS, int(WORK // (len(voq_of) * WINDOW)))
    if windows < 3:
        return FluidRates(np.zeros(len(senders)), False, 0)
    for _ in range(windows):
        delivered[:] = 0.0
        for _ in range(WINDOW):
            offered = np.bincount(voq_of_a, content, nv)
            safe = np.where(offered > 0, offered, 1.0)
            costs = [np.bincount(voq_of_a, content * c, nv) / safe
                     for c in (line_a, credit_a, proc_a)]
            held = np.bincount(buffer_a[in_buffer], content[in_buffer], len(names))
            for _ in range(2):  # the room a buffer's own departures make this step
                free = np.maximum(room - held + drained, 0.0)
                level = _water(voq_out, offered, costs + [np.ones(nv)],
                               budgets + [free], len(names))
                served = np.minimum(offered, level[voq_out])
                out = served[voq_of_a] * content / safe[voq_of_a]
                drained = np.bincount(buffer_a[in_buffer], out[in_buffer], len(names))
            arrive = np.where(has_prev, out[np.maximum(prev_a, 0)], 0.0)
            content = np.where(first_a, content, content - out + arrive)
            delivered += np.bincount(sender_last, out[last_a], len(senders))
            steps += 1
        rates = delivered / (WINDOW * dt)
        if steps > WINDOW and np.all(
                np.abs(rates - previous) <= STEADY * np.maximum(previous, 1e-300)):
            return FluidRates(rates, True, steps)
        previous = rates.copy()
    return FluidRates(previous, False, steps)
