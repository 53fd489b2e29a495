"""The BB credit cycle of a link direction when both directions of the link
are credit-bound: each R_RDY goes out behind a frame the other way, locked
to it.

FC-FS-5's buffer-to-buffer flow control: a port sends a frame only while it
holds a BB credit, and a receiver returns a credit with an R_RDY as it frees
a receive buffer; the R_RDY is a primitive signal, an ordered set sent in the
fill words between frames (FC-PH 17.1), so it waits for the frame in
progress on its line to end (:meth:`fcsim.fc2.port.Port.send_r_rdy`).

Take a link whose two directions A->B and B->A both run out of credit, each
transmitter waiting for an R_RDY with frames to send. An R_RDY that left
behind a frame arrives one word after that frame's EOF. So when A's frame
is in at B (time *e*), the R_RDY behind it gives B the credit it waited for,
and B starts a frame at once, at *e* + one word; A's frames come in a train,
one a frame period *P* (frame time and fill words) apart, and each starts
one of B's, *P* apart too. B frees A's frame's buffer *hold* after its EOF
(the switch's routing latency, or the N_Port's processing) and its R_RDY
then waits for B's frame in progress to end: the one started at *e* + word
+ *k P* with *k* = floor((hold - word) / *P*), if the R_RDY is ready before
its end (a frame of B's *t_back* long), otherwise it goes at once, in the
fill words. That R_RDY in turn leaves behind B's frame, so the lock holds
itself. A hold under one word lets the R_RDY out before B's frame starts:
no lock. The train lasts as many frames as the credits, so *k* stays below
them.

Whether the lock is the only steady state is :func:`forced`. The closed
form (:func:`locked_hold`) replaces the hold in the credit's
cycle (frame time + 2 x propagation + hold + one word,
:mod:`fcsim.flow.model`). Checked against the packet model in
``tests/unit/test_flow_credit.py``: a 5 km 4GFC ISL both ways at 8 credits,
routing latency 0.7 us: the hold becomes one word and a frame time (a
tenth of the rate off), at 6 us the second frame of the train.

Where the trains could also cross (not :func:`forced`), which state the
link settles in is set by how its two directions started: :func:`both_ways`
follows them frame by frame from their first frames (and any credit still
out then) and gives the steady rates and whether they locked. The 20 km
1GFC ISL of 3 credits and 5 us routing latency, 64 KiB sequences each way:
first frames together, the trains cross (the credit's own cycle); 100 us
apart, they lock (the locked cycle); after fabric login, both together but
with the credit of the PLOGI's ACC still out, each train starts as two
frames and one, and a sequence's short last frame then brings the lock;
the packet model settles in each within 2 % (``tests/unit/test_flow_credit.py``).
A forced lock too depends on the start for how long each R_RDY waits: the
5 km 4GFC ISL of 8 credits with first frames together holds each buffer
0.6 us longer than :func:`locked_hold` gives (278.2 MB/s a stream against
281.0 at 0.7 us), as the packet model does.

Where only one direction is credit-bound and the other carries frames back
to back, its R_RDYs wait for the frame in progress on that line
(:func:`behind_line`): two 2GFC N_Ports streaming to a third on one-credit
links, which streams out in turn, at half its line where the credit alone
gives 94 %. With frames of several lengths, or a line the other way that
is not full, no period is fixed: :func:`both_ways` follows the two
directions frame by frame instead, each R_RDY behind the frame then on its
line, each frame as soon as its line, its credit and its supply allow.
Where the frames the other way come from a second N_Port on the same
switch, whose own R_RDYs ride on this direction's frames, neither side's
supply is steady: :func:`facing` follows the two links together.
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from dataclasses import dataclass


def locked_hold(hold: float, word: float, t_back: float, period: float, credits: int) -> float:
    """How long after its EOF a frame's R_RDY leaves, s, when both
    directions of its link are credit-bound (the module's docstring): the
    receiver's *hold* (s) rounded up to the end of the frame the other way
    then on the line, frames of *t_back* s started one *word* (s) after the
    EOF and one *period* (s) apart, at most *credits* of them; the *hold*
    itself when it is under a word or falls between two of those frames."""
    if hold <= word:
        return hold
    k = min(math.floor((hold - word) / period), credits - 1)
    end = word + k * period + t_back
    return end if hold < end else hold


def behind_line(ready: float, t_back: float, period: float) -> float:
    """When an R_RDY leaves, s after the end of a frame the other way, on a
    line that carries frames of *t_back* s back to back, one *period* (s,
    frame and fill words) apart, for a buffer freed *ready* s after that
    end: at once if it is freed in the fill words between two frames,
    otherwise at the end of the frame then on the line (an R_RDY goes
    between frames, FC-PH 17.1).

    A credit-bound direction whose R_RDYs come back on such a line locks
    to it: each R_RDY leaves as a frame the other way ends, its credit is
    back at the transmitter a word and a propagation later and the next
    frame starts at once, so the buffer it takes is freed the credit's
    cycle (frame time + 2 x propagation + hold + one word) after that end,
    and its R_RDY waits in turn: with one credit, a cycle that ends within
    a frame rounds up to a whole number of periods. One that ends in the
    fill words is not kept: that R_RDY goes at once, not at a frame's end,
    so the next cycle ends further in, until one ends within a frame
    (:func:`both_ways` follows it). A buffer freed at a frame's
    end, to within 10^-9 of a period (what ``%`` leaves of a whole number
    of periods in floating point), is freed between two frames."""
    phase = ready % period
    if phase <= period - t_back or phase <= 1e-9 * period:
        return ready
    return ready - phase + period


def forced(credits: int, period: float, frame: float, delay: float, hold: float,
           word: float) -> bool:
    """Whether a credit-bound direction's R_RDYs must lock behind the frames
    the other way (:func:`locked_hold`), its *credits* sent in trains one
    *period* (s) apart, frames of *frame* s, one-way propagation *delay* (s)
    and the receiver's *hold* (s), with a link whose other direction is
    credit-bound alike.

    The two directions can also keep out of each other's way: each sends its
    train, then idles until its credits come back, and every R_RDY goes in
    the idle time the other way. That needs a phase *phi* of one train
    against the other such that the R_RDYs for a train, ready from frame +
    delay + hold after its first frame left, one period apart, fall after the
    other side's train (credits x period) and before its next (a cycle,
    frame + 2 x delay + hold + word, after it), both ways: *phi* within
    +/-(frame + delay + hold - credits x period) and +/-(delay + word -
    (credits - 1) x period). Where either is empty the lock is the only
    steady state (True); otherwise which one the link settles in depends on
    how the two directions started (:func:`both_ways` follows them from a
    given start)."""
    return (credits * period > frame + delay + hold
            or (credits - 1) * period > delay + word)


def behind_output(cycle: float, credits: int, others: int, period: float,
                  hidden: float = 0.0) -> float:
    """The cycle of each of *credits* credits (s) on a credit-bound link into
    a switch whose frames all leave by one output that takes *others* other
    inputs in turn, each always with a frame waiting, frames one *period*
    (s) apart on the output; *cycle* is the credit's cycle without waiting
    there (frame time + round trip + hold + word); *hidden* (s) how long
    before its buffer may be freed a frame may already cross (0 with
    store-and-forward; with cut-through, from the header, or the time the
    output needs to send it, on, :func:`hidden_wait`).

    The switch frees the buffer, and returns the credit, only as the frame
    crosses (FC-FS-5: an R_RDY for each receive buffer freed), and never
    before it could have with no wait; the output, always busy, takes this
    input's frame only at its turn: after a frame of this input crosses,
    the others cross one after another, and this input's next chance comes
    (others + 1) periods later, then every *others* periods while it has
    nothing waiting.

    Store-and-forward: the credits come back in a train, one at each
    chance, so a train takes credits x (others + 1) periods; a train's first
    frame, back a *cycle* after it left, waits for the first chance after
    that: the cycle rounds up to it, credits x (others + 1) x period +
    others x period x ceil((cycle - credits x (others + 1) x period) /
    (others x period)). A cycle within the train's own time needs no
    rounding (the input is then not credit-bound), nor does an output with
    no other input. Cut-through: a frame may cross *hidden* before its
    buffer can be freed, which hides that much of each wait, and the trains
    no longer keep one shape: :func:`_turns` follows each credit from turn
    to turn instead."""
    train = credits * (others + 1) * period
    if cycle <= train or not others:
        return cycle
    if hidden <= 0:
        return train + others * period * math.ceil((cycle - train) / (others * period) - 1e-9)
    return max(cycle, _turns(cycle, credits, others, period, hidden))


TURNS = 240
"""Times :func:`_turns` takes each credit round; the cycle is the mean of
the second half."""


def _turns(cycle: float, credits: int, others: int, period: float, hidden: float) -> float:
    """The mean cycle of a credit (s) when each frame crosses at the first
    turn of its input (:func:`behind_output`) once it may (*hidden* before
    its buffer may be freed, a *cycle* after the buffer it came on was),
    and frees its buffer as it crosses or when it may, whichever is later:
    the credits' turns followed one by one from all credits ready at once,
    over :data:`TURNS` rounds."""
    waiting = [(0.0, hidden)] * credits  # (may cross, may be freed) per credit
    crossed: list[float] = []
    last = None
    for _ in range(credits * TURNS):
        ready, free = heapq.heappop(waiting)
        if last is None:
            turn = ready
        else:
            turn = last + (others + 1) * period
            if ready > turn:
                turn += others * period * math.ceil((ready - turn) / (others * period) - 1e-9)
        freed = max(turn, free)
        heapq.heappush(waiting, (freed + cycle - hidden, freed + cycle))
        last = turn
        crossed.append(turn)
    rounds = TURNS // 2
    return (crossed[-1] - crossed[-1 - credits * rounds]) / rounds


def hidden_wait(frame_in: float, frame_out: float, header: float) -> float:
    """How long before its buffer may be freed a frame may cross a
    cut-through switch, s: it may leave once its header is in and the
    output, taking *frame_out* s to send it, would not overtake its EOF
    (*frame_in* s after the SOF, *header* s for the header;
    :meth:`fcsim.fabric.switch.Switch.arrive`), and its buffer is freed no
    earlier than its EOF, both plus the routing latency."""
    return frame_in - max(header, frame_in - frame_out)


def pipeline_period(frames: list[float], credits: int, rest: float, gap: float) -> float:
    """The time one round of *frames* (their line times, s, in the order a
    transmitter sends them, over and over) takes through a hop of *credits*
    BB credits, s: each frame waits for the line (the frame before it and
    *gap* of fill words) and for a credit (FC-FS-5: a frame goes only while
    the sender holds one), and its credit comes back its frame time and
    *rest* (round trip, the receiver's hold and the R_RDY's word) after it
    started. With frames of one length this is the larger of the line's
    and the credits' bounds; with a short frame at the end of each
    sequence the next one follows it at once and may find no credit, so
    the rate falls below both, by up to a frame a round: the mean of the
    second half of :data:`TURNS` rounds."""
    returns = [0.0] * credits
    clock = 0.0
    ends = []
    for _ in range(TURNS):
        for frame in frames:
            start = max(clock, heapq.heappop(returns))
            heapq.heappush(returns, start + frame + rest)
            clock = start + frame + gap
        ends.append(clock)
    rounds = TURNS // 2
    return (ends[-1] - ends[-1 - rounds]) / rounds


@dataclass(frozen=True)
class Way:
    """One direction of a link as :func:`both_ways` follows it: the *credits*
    its transmitter holds, the line times of its frames in the order it
    sends them, over and over (*frames*, s: a sequence's frames, its last
    one short), how long the receiver at the far end holds a frame's buffer
    after its EOF is in (*hold*, s: the switch's routing latency, or an
    N_Port's frame processing), when its first frame may start on the line
    (*first*, s), *supply*, s between its frames becoming ready to send from
    then on (0: one always ready, back to back), and, for credits still out
    at the start (a login's last frame, say), when each one's R_RDY arrives
    (*out*, s). Where the far end is a switch that sends the frames on by
    one output, *onward* gives their line times there (s) and *onward_gap*
    its fill words after each (s): a frame crosses once it may (its *hold*
    after its EOF is in; *cut_through*, its hold after its header, *header*
    s, is in or after its EOF less its time on the output, if later) and
    the output is free, and its buffer is freed as it crosses, no earlier
    than its hold after its EOF (:meth:`fcsim.fabric.switch.Switch.arrive`):
    a short frame behind a long one waits for the output,
    store-and-forward."""

    credits: int
    frames: tuple[float, ...]
    hold: float
    first: float = 0.0
    out: tuple[float, ...] = ()
    onward: tuple[float, ...] = ()
    onward_gap: float = 0.0
    cut_through: bool = False
    header: float = 0.0
    supply: float = 0.0

    @property
    def frame(self) -> float:
        """The mean line time of its frames, s."""
        return sum(self.frames) / len(self.frames)


@dataclass(frozen=True)
class Crossing:
    """What :func:`both_ways` found in the steady state of a link's two
    directions: each one's frames per second (*rates*), how much longer than
    the receiver's hold each of its buffers is held (*waits*, s: its credits
    over its rate, less the credit's cycle, mean frame time + 2 x
    propagation + hold + one word; 0 where that is not longer) and whether
    R_RDYs wait behind the frames the other way (*locked*) or all go in its
    idle time (the trains cross)."""

    rates: tuple[float, float]
    waits: tuple[float, float]
    locked: bool


FACING = 1200
"""Frames each direction sends at least in :func:`both_ways` (its rates are
means over the second half): a pattern of frames that repeats only every
few hundred frames (an R_RDY drifting through the fill words,
:func:`behind_line`) is then measured to within a frame in 600."""

_SEND, _FREE = 0, 1
""":func:`both_ways`'s events: a transmitter may send; a receiver frees a buffer."""


def _r_rdy(free: list[float], gap: list[float], i: int, now: float, word: float) -> None:
    """An R_RDY on line *i* (*free*: the end of what is on each line, *gap*:
    the earliest each may start a frame, s), in the next fill word after
    *now*: one *word* (s) after the frame in progress."""
    free[i] = max(now, free[i]) + word
    gap[i] = max(gap[i], free[i])


def both_ways(ways: tuple[Way, Way], delay: float, word: float, gap: float) -> Crossing:
    """Follow the two directions of one link frame by frame from their first
    frames on, as the packet model's ports send them
    (:class:`fcsim.fc2.port.Port`): a transmitter starts a frame when it
    holds a credit, the frame is ready (its *first*, then one a *supply*)
    and its line is free: after the frame before, *gap* s of fill words and
    any R_RDY it is sending; the frame's EOF is at the far end *delay* s
    (one way) after it ends, whose receiver frees the buffer its *hold*
    later and sends an R_RDY in the next fill word (one *word*, s): at once
    between frames, else after the frame in progress (FC-PH 17.1,
    :meth:`fcsim.fc2.port.Port.send_r_rdy`), lengthening the fill words if
    it starts in their last word; the R_RDY gives the credit back *delay*
    after its word ends.

    Each direction sends at least :data:`FACING` frames and eight units: a
    unit is a round of both directions' orders of frames and, once the
    direction has waited for a credit, of its trains (it then sends in
    trains of as many frames as its credits), the lcm of those counts. Its
    rate is the mean over the second half of its frames, trimmed to whole
    units, *locked* whether an R_RDY there waited more than a word. A steady
    state that repeats every unit gives the same mean over any whole number
    of them, wherever the window starts; one that repeats only every few
    hundred frames is measured within a frame in :data:`FACING` / 2. A
    direction that never waits for a credit (thousands of credits, or its
    line or supply binding first) is counted in rounds of frames alone, so
    credits it never runs out of do not set how long it is followed.

    The trains of a link credit-bound both ways that is not :func:`forced`
    cross or lock by how the two directions started (*first*, *out*), and
    even a forced lock makes each R_RDY wait as long as the start leads it
    to: this gives which, and how long, for a start the scenario sets. With
    frames of one length, the other line full (always a frame ready, never
    out of credit) and one credit whose cycle ends within a frame the other
    way, the first direction's rate is :func:`behind_line`'s closed form;
    one that ends *p* into the fill words after *m* periods gives k frames
    every k m + 1 periods, k = floor(fill words / p) + 1
    (``tests/unit/test_flow_credit.py``)."""
    line_free = [0.0, 0.0]  # end of the frame or R_RDY last on each line
    gap_end = [w.first for w in ways]  # the earliest each transmitter may start a frame
    credit = [w.credits - len(w.out) for w in ways]
    returns = [sorted(w.out) for w in ways]  # R_RDY arrivals at each transmitter, in order
    returned = [0, 0]  # of them, counted in
    stalled = [False, False]
    bound = [False, False]  # whether each has waited for a credit: it sends in trains
    starts: list[list[float]] = [[], []]
    waits: list[list[float]] = [[], []]  # per direction, its R_RDYs' waits, s
    onward_free = [0.0, 0.0]  # when each far end's output is free for the next frame

    def unit(i: int) -> int:
        """Direction *i*'s frames in a whole round of both directions' frames
        and, once it has waited for a credit, of its trains."""
        return math.lcm(len(ways[0].frames), len(ways[1].frames),
                        ways[i].credits if bound[i] else 1)

    target = [max(FACING, 8 * unit(0)), max(FACING, 8 * unit(1))]  # frames each sends
    events: list[tuple[float, int, int, int]] = []  # (time, order, kind, direction)
    order = 0

    def push(time: float, kind: int, i: int) -> None:
        nonlocal order
        order += 1
        heapq.heappush(events, (time, order, kind, i))

    push(ways[0].first, _SEND, 0)
    push(ways[1].first, _SEND, 1)
    while events and (len(starts[0]) < target[0] or len(starts[1]) < target[1]):
        now, _, kind, i = heapq.heappop(events)
        if kind == _FREE:  # the receiver of direction i frees a buffer: its R_RDY goes back
            j = 1 - i  # the line the R_RDY takes
            waits[i].append(max(line_free[j], now) - now)
            _r_rdy(line_free, gap_end, j, now, word)
            returns[i].append(line_free[j] + delay)
            if stalled[i]:
                stalled[i] = False
                push(line_free[j] + delay, _SEND, i)
            continue
        while returned[i] < len(returns[i]) and returns[i][returned[i]] <= now:
            returned[i] += 1
            credit[i] += 1
        if not credit[i]:
            stalled[i] = True  # woken by the next R_RDY's arrival
            if not bound[i]:  # it sends in trains from now on
                bound[i] = True
                target[i] = max(FACING, 8 * unit(i))
            if returned[i] < len(returns[i]):
                stalled[i] = False
                push(returns[i][returned[i]], _SEND, i)
            continue
        w = ways[i]
        if w.supply and w.first + len(starts[i]) * w.supply > now:  # not ready yet
            push(w.first + len(starts[i]) * w.supply, _SEND, i)
            continue
        credit[i] -= 1
        k = len(starts[i]) % len(w.frames)
        start = max(gap_end[i], line_free[i], now)
        end = line_free[i] = start + w.frames[k]
        gap_end[i] = end + gap
        starts[i].append(start)
        free = end + delay + w.hold
        if w.onward:  # it crosses when the output is free, its buffer freed then
            t_out = w.onward[k]
            ready = (max(start + delay + w.header, end + delay - t_out) + w.hold
                     if w.cut_through else free)
            cross = max(ready, onward_free[i])
            onward_free[i] = cross + t_out + w.onward_gap
            free = max(cross, free)
        push(free, _FREE, i)
        push(gap_end[i], _SEND, i)
    rates = []
    held = []
    locked = False
    for i, w in enumerate(ways):
        u = unit(i)
        a = len(starts[i]) // 2
        b = a + (len(starts[i]) - 1 - a) // u * u
        rates.append((b - a) / (starts[i][b] - starts[i][a]))
        cycle = w.frame + 2 * delay + w.hold + word
        longer = w.credits / rates[i] - cycle
        held.append(longer if longer > 1e-9 * cycle else 0.0)  # not rounding's remainder
        locked = locked or max(waits[i][a:b], default=0.0) > word
    return Crossing((rates[0], rates[1]), (held[0], held[1]), locked)


@dataclass(frozen=True)
class Facing:
    """One of two N_Ports on one switch, of one speed, that stream only to
    each other, as :func:`facing` follows it: the line times of the
    *frames* it sends (s, in that order, over and over: it always has one
    ready), the BB credits it holds for the switch's buffers (*up*) and the
    switch for its own (*down*), its link's one-way *delay*, transmission
    *word* and fill words after each frame (*gap*, s), how long after a
    frame's EOF it frees that frame's buffer (*hold*, s: its frame
    processing), and the frames the switch sends it from other inputs:
    one of *extra* s line time every *every* s (0: none; an assumption, a
    steady supply, as :func:`both_ways` takes a switch's frames)."""

    frames: tuple[float, ...]
    up: int
    down: int
    delay: float
    word: float
    gap: float
    hold: float
    extra: float = 0.0
    every: float = 0.0


_UP, _PULL, _TO_NPORT, _TO_SWITCH, _CREDIT_UP, _CREDIT_DOWN, _IN, _EXTRA = range(8)
""":func:`facing`'s events: an N_Port may send; an output may send; an
R_RDY goes to an N_Port (the switch freed a buffer) or to the switch (the
N_Port freed one); a credit is back at an N_Port or at the switch; a frame
may cross to its output; a frame from another input may cross."""


def facing(ends: tuple[Facing, Facing], latency: float, cut_through: bool,
           header: float) -> tuple[float, float]:
    """The frames per second each of two N_Ports (*ends*) sends when they
    stream to each other through one switch, each link's R_RDYs into the
    N_Port riding its line behind the frames of the other N_Port the switch
    sends on, followed frame by frame from both N_Ports' first frames on, as
    the packet model sends them (:class:`fcsim.fc2.port.Port`,
    :class:`fcsim.fabric.switch.Switch`): an N_Port's frame starts when it
    holds a credit, after the frame before, its fill words and any R_RDY it
    sends; at the switch it may cross *latency* s after its EOF is in
    (*cut_through*: after its header, *header* s, is in, or after its EOF
    less its time on the output, if later) and crosses when the output to
    the other N_Port is free and holds a credit, taking its inputs in turn
    (this one and the other frames that reach it); the switch frees its
    buffer as it crosses, no earlier than *latency* after its EOF, and
    sends the R_RDY on the line to the N_Port in the next fill word: after
    the frame then on it (FC-PH 17.1). Each N_Port frees a frame's buffer
    its *hold* after the EOF is in and sends the R_RDY the same way on its
    own line, ahead of its next frame if that has not started. The rates
    are the mean over the second half of :data:`FACING` frames a side
    (whole rounds of both orders of frames).

    Where :func:`both_ways` takes the frames into an N_Port as coming at
    a steady rate, here they come as the other N_Port's credit, which rides
    on this N_Port's frames, lets them: the phase of one link's frames
    against the other's R_RDYs is set by the loop they make."""
    up_free = [0.0, 0.0]  # end of the frame or R_RDY last on each N_Port's line
    up_gap = [0.0, 0.0]  # the earliest each N_Port may start its next frame
    down_free = [0.0, 0.0]  # the same for the switch's line to each N_Port
    down_gap = [0.0, 0.0]
    up_credit = [e.up for e in ends]
    down_credit = [e.down for e in ends]
    stalled = [False, False]
    sent = [0, 0]
    starts: list[list[float]] = [[], []]
    partner: list[deque[tuple[float, float]]] = [deque(), deque()]  # (frame, freed no earlier)
    ready = [0, 0]  # of them, how many may cross now, per output
    others = [0, 0]  # frames from other inputs waiting at each output
    rest_next = [False, False]  # whether each output takes the other inputs' turn next
    pull_at = [-1.0, -1.0]  # when each output's next look is set for
    events: list[tuple[float, int, int, int]] = []
    order = 0

    def push(time: float, kind: int, i: int) -> None:
        nonlocal order
        order += 1
        heapq.heappush(events, (time, order, kind, i))

    for i, e in enumerate(ends):
        push(0.0, _UP, i)
        if e.every:
            push(e.every, _EXTRA, i)
    while events and min(sent) < FACING:
        now, _, kind, i = heapq.heappop(events)
        e = ends[i]
        if kind == _UP or kind == _CREDIT_UP:
            if kind == _CREDIT_UP:
                up_credit[i] += 1
                if not stalled[i]:
                    continue
                stalled[i] = False
            if not up_credit[i]:
                stalled[i] = True
                continue
            start = max(now, up_gap[i], up_free[i])
            frame = e.frames[sent[i] % len(e.frames)]
            sent[i] += 1
            up_credit[i] -= 1
            end = up_free[i] = start + frame
            up_gap[i] = end + e.gap
            starts[i].append(start)
            eof = end + e.delay
            cross = (max(start + e.delay + header, eof - frame) if cut_through else eof) + latency
            partner[1 - i].append((frame, eof + latency))
            push(cross, _IN, 1 - i)
            push(up_gap[i], _UP, i)
        elif kind == _TO_NPORT or kind == _TO_SWITCH:  # an R_RDY on the line to (from) N_Port i
            free, gap = (down_free, down_gap) if kind == _TO_NPORT else (up_free, up_gap)
            _r_rdy(free, gap, i, now, e.word)
            push(free[i] + e.delay, _CREDIT_UP if kind == _TO_NPORT else _CREDIT_DOWN, i)
        else:  # output i (to N_Port i) may send: a frame in, a credit back, its line free
            if kind == _CREDIT_DOWN:
                down_credit[i] += 1
            elif kind == _EXTRA:
                others[i] += 1
                push(now + e.every, _EXTRA, i)
            elif kind == _IN:
                ready[i] += 1
            line = max(down_gap[i], down_free[i])
            if line > now:
                if pull_at[i] != line:
                    pull_at[i] = line
                    push(line, _PULL, i)
                continue
            if not down_credit[i] or not (ready[i] or others[i]):
                continue
            if ready[i] and not (others[i] and rest_next[i]):
                frame, freed = partner[i].popleft()
                ready[i] -= 1
                rest_next[i] = True
                if freed > now:  # its buffer at the switch: its R_RDY now or then
                    push(freed, _TO_NPORT, 1 - i)
                else:
                    _r_rdy(down_free, down_gap, 1 - i, now, ends[1 - i].word)
                    push(down_free[1 - i] + ends[1 - i].delay, _CREDIT_UP, 1 - i)
            else:
                frame = e.extra
                others[i] -= 1
                rest_next[i] = False
            down_credit[i] -= 1
            end = down_free[i] = now + frame
            down_gap[i] = pull_at[i] = end + e.gap
            push(end + e.delay + e.hold, _TO_SWITCH, i)
            push(down_gap[i], _PULL, i)
    rates = []
    whole = math.lcm(len(ends[0].frames), len(ends[1].frames))
    for times in starts:
        half = len(times) // 2
        span = len(times) - 1 - half
        if span >= whole:
            span -= span % whole
        rates.append(span / (times[half + span] - times[half]))
    return rates[0], rates[1]
