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
delivered frames over a window of :data:`WINDOW` steps once every window
over :data:`HELD` steps has agreed with the one before to :data:`STEADY`.

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
HELD = 4000
"""Steps over which every window's rates must agree with the window's
before to :data:`STEADY` for the rates to count as steady (ten windows).
The fluid's dynamics are piecewise linear: between events (a queue
emptying, a buffer filling) every step delivers the same frames and the
contents drift at constant rates, so the rates hold still until the next
event and then jump. On the 239-domain bench fabric, while its buffers
fill, up to seven windows in a row agree (2,800 steps, most of them to
10^-15) between two events that move a rate by more than :data:`STEADY`,
the last at 18,400 steps (docs/model.md, "Flow model"): two windows took
such a pause for the steady state. Measured, not derived: a drift slower
than those seen would need a longer span."""
WINDOWS = 100
"""Windows the steps may take before the rates count as not steady."""
WORK = 7.5e8
"""Item-steps (an exchange at one hop, for one step) the steps may take in
all: the windows are cut to fit, and a fabric with room for no more than
:data:`HELD` steps is not stepped at all (not steady). About 0.04 us of
processor time an item-step on a loaded machine (:meth:`FluidQueues.step`,
where every output carries one frame size; 0.07 us where one does not),
so at most about 30 s (50 s); the 239-domain bench fabric (31,960 items)
becomes steady after 22,400 steps, 7.2 x 10^8 item-steps (docs/model.md,
docs/performance.md)."""
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
    order given), whether the windows agreed to :data:`STEADY` over
    :data:`HELD` steps (*steady*), and the steps taken (*steps*)."""

    rates: np.ndarray
    steady: bool
    steps: int


class FluidQueues:
    """The fluid state of *fabric*'s queues and the rule of one step
    (module docstring), over arrays of its exchange-hops (*items*: an
    exchange at one hop, in the order of the streams, their exchanges and
    the hops of each path) and of its virtual output queues (*voqs*: one
    per (output, input) pair). *senders* names the sending N_Ports, in the
    order of the frames :meth:`step` returns.

    A step's index arrays are computed once: each item's queue
    (:attr:`voq_of`), the item before it on its path (:attr:`prev`, -1 at
    the first hop), each queue's output (:attr:`voq_out`), each item's
    input buffer (:attr:`buffer_of`, -1 for a sending N_Port's own queue),
    and the queues in the order of their outputs (the ranks and sums a
    step's water-filling reads). Per step the queues are sorted by content
    within each output once (:meth:`_order`), and what does not depend on
    the buffers' room (the line's, the credit's and the processing's
    levels, and the room each queue's content would take) is computed once
    for the two serves of the step. Where every item at an output costs
    the same per frame (:meth:`_frame_budget`), the line's, the credit's
    and the processing's levels are not water-filled apart: their budgets
    in frames join the buffers' room in the serves' one water-filling."""

    def __init__(self, fabric: FlowFabric, senders: list[str]) -> None:
        index = {name: i for i, name in enumerate(senders)}
        slots: dict[str, float] = defaultdict(float)
        for s in fabric.streams:
            slots[s.source] += s.slots
        voqs: dict[tuple[str, str], int] = {}
        outputs: dict[str, int] = {}
        char = {name: d.speed.char_time for name, d in fabric.directions.items()}
        word = {name: d.speed.word_time for name, d in fabric.directions.items()}
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
                    frame_time = chars * char[name]
                    voq_of.append(v)
                    prev.append(before)
                    sender.append(index[s.source])
                    share.append(exchange.weight / slots[s.source])
                    line.append(frame_time + GAP_CHARS * char[name])
                    credit.append(frame_time + 2 * d.delay + d.hold + word[name])
                    proc.append(processing if d.switch is None and processing else 0.0)
                    first.append(k == 0)
                    buffer_of.append(-1 if k == 0 else outputs[exchange.path[k - 1]])
                    before = len(voq_of) - 1
                last.append(before)
        names = list(outputs)
        self.outputs = len(names)
        self.voqs = len(voqs)
        self.senders = len(senders)
        self.voq_out = np.zeros(len(voqs), dtype=np.int64)
        for (name, _), v in voqs.items():
            self.voq_out[v] = outputs[name]
        self.voq_of = np.array(voq_of, dtype=np.int64)
        self.prev = np.array(prev, dtype=np.int64)
        self.first = np.array(first)
        self.line, self.credit, self.proc = np.array(line), np.array(credit), np.array(proc)
        self.buffer_of = np.array(buffer_of, dtype=np.int64)
        self.last = np.array(last, dtype=np.int64)
        self.sender_last = np.array(sender, dtype=np.int64)[self.last]
        dirs = [fabric.directions[n] for n in names]
        self.room = np.array([float(d.credit) if d.switch is not None else np.inf for d in dirs])
        credits = np.array([float(d.credit) for d in dirs])
        self.dt = STEP_FRAMES * float(self.line.min())
        """Length of a step, s."""
        self.budgets = [np.full(len(names), self.dt), credits * self.dt,
                        np.full(len(names), self.dt)]
        """Per output, the line's, the credit's and the processing's seconds a step."""
        self.content = np.where(self.first, np.array(share) * SOURCE, 0.0)
        """Per item, its frames in its queue (a source's never changes)."""
        self.drained = np.zeros(len(names))
        """Per input buffer, the frames that left it in the last step."""
        # what a step reads, computed once
        self._moving = np.flatnonzero(~self.first)
        self._from = self.prev[self._moving]
        self._in = np.flatnonzero(self.buffer_of >= 0)
        self._buffer_in = self.buffer_of[self._in]
        # the queues by output, as a stable sort by (output, content) ranks them
        self._narrow = (self.voq_out.astype(np.uint16) if self.outputs <= 1 << 16
                        else self.voq_out)  # radix-sorted when it fits 16 bits
        g = np.sort(self.voq_out)
        starts = np.searchsorted(g, np.arange(self.outputs))
        ends = np.append(starts[1:], len(g))
        self._group = g
        self._starts, self._ends = starts, ends
        self._neighbours = g[1:] == g[:-1]  # next to each other in the order, one output
        self._ordered: np.ndarray | None = None  # the last step's order
        self._first_of = starts[g]
        self._end_of = ends[g]
        ones = np.cumsum(np.ones(len(g)))
        count = np.concatenate(([0.0], ones))
        self._after_ones = count[self._end_of] - count[:-1]  # queues from here to the group's end
        self._sums = np.zeros((2, len(g) + 1))  # running sums of a step's water-filling
        kinds = [self.line, self.credit, self.proc]
        # the constraints a step water-fills, each cost per item with its
        # budget per queue in the step's order (no N_Port's processing: no
        # budget to fill, left out)
        self._frames = self._frame_budget(kinds)
        self._bounds = [] if self._frames is not None else [
            (cost, budget[g]) for cost, budget in zip(kinds, self.budgets, strict=True)
            if np.any(cost != 0)]

    def _frame_budget(self, kinds: list[np.ndarray]) -> np.ndarray | None:
        """Per output, the frames a step (a real number) its line, credit and processing
        let through together, where every item at an output costs the same
        per frame for each of them (one frame size at the output): a
        constraint costing k a frame with budget B is then the frames'
        budget B / k, and the water level under the smallest of those
        budgets is the smallest of their levels (the level rises with the
        budget), so one water-filling in frames stands for all of them.
        None where an output's items cost differently (the step water-fills
        each constraint's mean cost per queue instead)."""
        out = self.voq_out[self.voq_of]
        frames = np.full(self.outputs, np.inf)
        for cost, budget in zip(kinds, self.budgets, strict=True):
            per_output = np.zeros(self.outputs)
            per_output[out] = cost
            if np.any(per_output[out] != cost):
                return None
            no_cost = np.full(self.outputs, np.inf)  # a constraint costing nothing: no bound
            frames = np.minimum(frames, np.divide(budget, per_output, out=no_cost,
                                                  where=per_output > 0))
        return frames

    def _order(self, offered: np.ndarray) -> np.ndarray:
        """The queues sorted by output, then by *offered* content, then by
        index: ``np.lexsort((offered, voq_out))``. That order is unique, so
        it is the last step's with the outputs whose queues it no longer
        sorts (contents move little from step to step, but queues of equal
        content trade places by rounding) sorted again; the first step's
        is two stable sorts (the second by radix where the outputs fit 16
        bits), the same order as ``np.lexsort``."""
        last = self._ordered
        if last is None:
            by_content = np.argsort(offered, kind="stable")
            self._ordered = by_content[np.argsort(self._narrow[by_content], kind="stable")]
            return self._ordered
        c = offered[last]
        kept = (c[:-1] < c[1:]) | ((c[:-1] == c[1:]) & (last[:-1] < last[1:]))
        broken = np.unique(self._group[:-1][~kept & self._neighbours])
        if not len(broken):
            return last
        lengths = self._ends[broken] - self._starts[broken]
        at = np.repeat(self._starts[broken] - np.cumsum(lengths) + lengths,
                       lengths) + np.arange(lengths.sum())  # those outputs' places
        queues = last[at]
        order = last.copy()
        order[at] = queues[np.lexsort((queues, offered[queues], self._group[at]))]
        self._ordered = order
        return order

    def _filled(self, c: np.ndarray, a: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        """For each queue, in the step's order with contents *c*, each frame
        costing *a* (None: 1): what its output's queues cost before it
        (*prefix*) and the frames' cost from it to the output's last queue
        (*after*), so that a level rho at it fills prefix + rho x after."""
        sums = self._sums
        if a is None:
            np.cumsum(c, out=sums[0, 1:])
            after = self._after_ones
        else:
            np.cumsum(c * a, out=sums[0, 1:])
            np.cumsum(a, out=sums[1, 1:])
            after = sums[1, self._end_of] - sums[1, :-1]
        return sums[0, :-1] - sums[0, self._first_of], after

    def _lower(self, level: np.ndarray, filled: np.ndarray, prefix: np.ndarray,
               after: np.ndarray, budget: np.ndarray) -> None:
        """Lower *level* (per output, frames a queue a step) to the largest
        rho at which the output's queues, each min(its content, rho) frames,
        cost within *budget* (per queue in the step's order, its output's):
        at the first queue whose own content would go over (*filled*, the
        cost with every queue from it on at its content), rho = (budget -
        prefix) / after (:meth:`_filled`)."""
        over = np.flatnonzero(filled > budget)
        if not len(over):
            return
        groups = self._group[over]
        keep = np.ones(len(over), dtype=bool)
        keep[1:] = groups[1:] != groups[:-1]  # the first queue over, per output
        p = over[keep]
        groups_over = groups[keep]
        rho = (budget[p] - prefix[p]) / np.maximum(after[p], 1e-300)
        level[groups_over] = np.minimum(level[groups_over], np.maximum(rho, 0.0))

    def step(self) -> np.ndarray:
        """Move the state one step; the frames each sender delivered in it."""
        content = self.content
        offered = np.bincount(self.voq_of, content, self.voqs)
        safe = np.where(offered > 0, offered, 1.0)
        held = np.bincount(self._buffer_in, content[self._in], self.outputs)
        order = self._order(offered)
        c = offered[order]
        fixed = np.full(self.outputs, np.inf)  # the levels the buffers' room does not move
        if self._frames is None:
            for cost, budget in self._bounds:  # per queue, its content's mean cost
                mean = np.bincount(self.voq_of, content * cost, self.voqs) / safe
                prefix, after = self._filled(c, mean[order])
                self._lower(fixed, prefix + c * after, prefix, after, budget)
        prefix, after = self._filled(c, None)  # a frame of the buffers' room each
        filled = prefix + c * after
        drained = self.drained
        share = safe[self.voq_of]
        for _ in range(2):  # the room a buffer's own departures make this step
            free = np.maximum(self.room - held + drained, 0.0)
            level = fixed.copy()
            if self._frames is not None:  # one budget in frames for every constraint
                free = np.minimum(free, self._frames)
            self._lower(level, filled, prefix, after, free[self._group])
            served = np.minimum(offered, level[self.voq_out])
            out = served[self.voq_of] * content / share
            drained = np.bincount(self._buffer_in, out[self._in], self.outputs)
        self.drained = drained
        moved = content.copy()
        moved[self._moving] = content[self._moving] - out[self._moving] + out[self._from]
        self.content = moved
        return np.bincount(self.sender_last, out[self.last], self.senders)


def steady_rates(fabric: FlowFabric, senders: list[str]) -> FluidRates:
    """Step the fluid queues of *fabric* until the senders' rates hold
    still (module docstring); *senders* names the sending N_Ports in the
    order of the rates returned. A fabric with a switch whose central
    router limits its frames (:attr:`FlowFabric.routers`, one limit over
    all its outputs, which the outputs' steps do not share) is not
    stepped (not steady)."""
    if fabric.routers:
        return FluidRates(np.zeros(len(senders)), False, 0)
    queues = FluidQueues(fabric, senders)
    delivered = np.zeros(len(senders))
    previous = np.zeros(len(senders))
    steps = agreed = 0
    windows = min(WINDOWS, int(WORK // (len(queues.voq_of) * WINDOW)))
    if windows <= HELD // WINDOW:
        return FluidRates(np.zeros(len(senders)), False, 0)
    for _ in range(windows):
        delivered[:] = 0.0
        for _ in range(WINDOW):
            delivered += queues.step()
        steps += WINDOW
        rates = delivered / (WINDOW * queues.dt)
        close = np.all(np.abs(rates - previous) <= STEADY * np.maximum(previous, 1e-300))
        agreed = agreed + 1 if steps > WINDOW and close else 0
        if agreed * WINDOW >= HELD:
            return FluidRates(rates, True, steps)
        previous = rates.copy()
    return FluidRates(previous, False, steps)
