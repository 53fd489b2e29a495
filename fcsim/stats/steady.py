"""Steady-state stopping: end a measurement once its rate is known well enough.

A test that measures a rate (bytes or transactions per second) over a fixed
length spends most of that length repeating a steady state. The method of
batch means (Law and Kelton, *Simulation Modeling and Analysis*, section 9.5.3)
estimates the steady-state rate and a confidence interval for it from
consecutive batches of equal length: the batch rates are treated as
independent, normally distributed samples, so the interval is the batches'
mean plus or minus Student's t quantile times their standard error. The
batches must be long enough to be nearly independent; how long depends on
the test (a smooth stream: tens of milliseconds; one that stalls on a 200 ms
timer: a whole stall cycle). So the rule judges the same counts as several
*views*, batches of one, two, four ... base lengths, each view at an even
share of the error the confidence allows (Bonferroni), and takes the
shortest view that is precise enough.

A test may instead repeat a *cycle*: a stream that loses packets and
recovers on a timer, say, whose counts rise and fall with a period of
0.6 s that no power-of-two batch length divides, so every such view keeps
seeing part of a cycle and the batches stay apart for the whole test. The
steady state of such a test is a cycle parameter (Law and Kelton's
steady-state cycle parameters: the means over whole cycles form a stationary
sequence, to which the method of batch means applies). With
:attr:`SteadyState.cycles` set, the rule also looks for a cycle in the
counts, the lag at which their autocorrelation peaks (:func:`cycle_length`),
and judges batches of one cycle as one more view, once that many whole
cycles are counted.

:class:`SteadyState` is the stopping rule. The first batch of the widest view
after a test starts is left out (connection set-up and slow start), and
after it whatever start-up transient the MSER rule finds (a stall in the
first few hundred milliseconds would otherwise weigh on the interval for
seconds). Once a view has at least :attr:`SteadyState.batches` batches
left, the measurement stops as soon as that view's half-width, plus the
count's resolution (one step of the count in the total), is within
:attr:`SteadyState.precision` of the mean. The figure the full-length test
would have reported is then estimated as what was measured up to that moment
plus the steady rate times the length left: only the part after the stop is
extrapolated, the start-up transient is simulated. A measurement that never
settles runs its whole length, as without the rule.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from statistics import fmean, stdev

import numpy as np

CYCLE_CORRELATION = 0.5
"""The autocorrelation a lag must reach to be taken as a cycle's length. For
counts with no cycle the sample autocorrelation at a lag has a standard
deviation of about 1/sqrt(n) for n counts (Bartlett): 0.5 is three of them
from 36 counts on (1.8 s of 0.05 s batches), fewer before. A lag taken by
chance is still judged as a view like the others, on whole batches of its
length with Student's t at its share of the error, and a test without a
cycle seldom gives such batches a narrow interval."""


def central_t(t: float, df: int) -> float:
    """P(-t <= T <= t) for Student's T with *df* degrees of freedom, t >= 0
    (Abramowitz and Stegun 26.7.3 and 26.7.4, exact for integer *df*)."""
    theta = math.atan(t / math.sqrt(df))
    c2, s = math.cos(theta) ** 2, math.sin(theta)
    if df % 2 == 0:
        term, total = 1.0, 1.0
        for k in range(1, df // 2):
            term *= c2 * (2 * k - 1) / (2 * k)
            total += term
        return min(1.0, s * total)
    if df == 1:
        return 2 * theta / math.pi
    term, total = 1.0, 1.0
    for k in range(1, (df - 1) // 2):
        term *= c2 * (2 * k) / (2 * k + 1)
        total += term
    return min(1.0, 2 / math.pi * (theta + s * math.cos(theta) * total))


@lru_cache(maxsize=256)
def t_quantile(confidence: float, df: int) -> float:
    """The t with P(-t <= T <= t) = *confidence* for *df* degrees of freedom
    (the two-sided interval's quantile), by bisection of :func:`central_t`."""
    if not 0 < confidence < 1 or df < 1:
        raise ValueError("confidence in (0, 1) and df >= 1")
    low, high = 0.0, 1.0
    while central_t(high, df) < confidence:
        low, high = high, high * 2
    for _ in range(100):
        middle = (low + high) / 2
        if central_t(middle, df) < confidence:
            low = middle
        else:
            high = middle
    return (low + high) / 2


def mser_truncation(counts: list[float]) -> int:
    """How many leading *counts* to leave out as start-up transient: the *d*
    (at most half of them) that minimises the marginal standard error
    ``sum((x - mean)^2 for x in counts[d:]) / (n - d)^2`` (White's MSER rule;
    Hoad, Robinson and Davies, *Automating warm-up length estimation*, JORS
    61, 2010, found it the most reliable warm-up rule they compared)."""
    n = len(counts)
    if n < 2:
        return 0
    total = square = 0.0
    best, best_d = math.inf, 0
    tails: list[tuple[float, float]] = []  # (sum, sum of squares) of counts[d:], d from n-1 down
    for x in reversed(counts):
        total += x
        square += x * x
        tails.append((total, square))
    for d in range(n // 2 + 1):
        kept = n - d
        total, square = tails[kept - 1]
        error = (square - total * total / kept) / (kept * kept)
        if error < best:
            best, best_d = error, d
    return best_d


def cycle_length(counts: list[float], cycles: int) -> int | None:
    """The length of the cycle the *counts* repeat, in batches: the lag (from
    2 up to a *cycles*-th of the counts) at which their autocorrelation is
    highest, if it reaches :data:`CYCLE_CORRELATION` and exceeds the
    autocorrelation at lag 1 (a cycle, not a slow drift, whose
    autocorrelation falls from lag 1 on); else None."""
    longest = len(counts) // cycles
    if longest < 2:
        return None
    x = np.asarray(counts, dtype=float)
    x -= x.mean()
    spread = float(np.dot(x, x))
    if spread <= 0:
        return None  # all alike: every view settles on them as they are
    acf = np.correlate(x, x, "full")[len(x):len(x) + longest] / spread  # lags 1..longest
    lag = int(np.argmax(acf[1:])) + 2
    peak = acf[lag - 1]
    return lag if peak >= CYCLE_CORRELATION and peak > acf[0] else None


@dataclass(frozen=True)
class Settled:
    """A settled rate: *rate* (units/s), the *half_width* of its interval
    (relative), the *width* of the batches judged (batches of
    :attr:`SteadyState.batch` s summed) and how many of those were *left_out*
    at the start."""

    rate: float
    half_width: float
    width: int
    left_out: int


@dataclass(frozen=True)
class SteadyState:
    """Stop a rate measurement when its *confidence* interval (e.g. 0.99) is
    within *precision* (relative half-width, e.g. 0.01) of the mean, judged on
    at least *batches* batches of *batch* s, or of 2, 4, ... 2 ** (*views* - 1)
    times that (each view at an even share of the confidence's error), after
    the first widest batch and the start-up transient :func:`mser_truncation`
    finds in each view. With *cycles* (0: off), batches one detected cycle
    long (:func:`cycle_length`) are one more view, judged once at least
    *cycles* of them are counted after their transient."""

    confidence: float = 0.99
    precision: float = 0.01
    batch: float = 0.2
    batches: int = 10
    views: int = 1
    cycles: int = 0

    def __post_init__(self) -> None:
        if not (0 < self.confidence < 1 and 0 < self.precision < 1 and self.batch > 0
                and self.batches >= 2 and self.views >= 1
                and (self.cycles == 0 or self.cycles >= 3)):
            raise ValueError("steady state: confidence and precision in (0, 1), batch > 0 s, "
                             "batches >= 2, views >= 1, cycles 0 or >= 3")

    @property
    def judged_views(self) -> int:
        """The views the confidence's error is shared among: the batch lengths,
        and the cycle if one is looked for."""
        return self.views + (1 if self.cycles else 0)

    @property
    def skip(self) -> int:
        """Batches of *batch* s always left out at the start: one of the widest view."""
        return 2 ** (self.views - 1)

    def interval(self, judged: list[float], step: float = 0.0, width: int = 1,
                 fewest: int | None = None) -> tuple[float, float] | None:
        """The steady rate (units/s) and its relative half-width from the units
        counted in each of the batches *judged*, each *width* x *batch* s long;
        None before *fewest* (default :attr:`batches`) of them. The interval is
        at ``1 - (1 - confidence) / judged_views`` (Bonferroni: the views
        judged together keep the stated confidence).

        *step* is the count's resolution: the most one increment of it adds
        (for bytes, the most one receive delivered; 0 for a count that does not
        move in steps). The half-width is the batch means' interval plus one
        step in the total counted: a count that moves in steps can stay the
        same in every batch (whole transactions, four in each 0.2 s at 19.5 per
        second) while the rate lies up to a step per span away, which no
        spread of the batches shows.
        """
        if len(judged) < (self.batches if fewest is None else fewest):
            return None
        length = self.batch * width
        rates = [n / length for n in judged]
        mean = fmean(rates)
        if mean <= 0:
            return mean, math.inf
        error = stdev(rates) / math.sqrt(len(rates))
        resolution = step / (mean * length * len(rates))
        confidence = 1 - (1 - self.confidence) / self.judged_views
        return mean, t_quantile(confidence, len(rates) - 1) * error / mean + resolution

    def settled(self, counts: list[float], step: float = 0.0) -> Settled | None:
        """The steady rate from the units counted in each batch of *batch* s
        since the test began, if known to the precision, else None. Each view
        sums the counts after the first :attr:`skip` into batches of 1, 2, 4
        ... (an incomplete last one left out) and leaves out the transient
        :func:`mser_truncation` finds among them; the shortest view whose
        half-width (:meth:`interval`) is within the precision gives the rate,
        and failing them, with :attr:`cycles`, batches of one cycle."""
        after = counts[self.skip:]
        for view in range(self.views):
            found = self._view(after, 2 ** view, step, self.batches)
            if found is not None:
                return found
        if self.cycles:
            cycle = cycle_length(after, self.cycles)
            if cycle is not None:
                return self._view(after, cycle, step, self.cycles)
        return None

    def _view(self, after: list[float], width: int, step: float,
              fewest: int) -> Settled | None:
        """The rate from the counts *after* the first skipped ones, summed into
        batches of *width*, if at least *fewest* of them after their transient
        give it to the precision."""
        wide = [sum(after[i:i + width]) for i in range(0, len(after) - width + 1, width)]
        transient = mser_truncation(wide)
        found = self.interval(wide[transient:], step, width, fewest)
        if found is not None and found[1] <= self.precision:
            return Settled(found[0], found[1], width, self.skip + transient * width)
        return None


__all__ = ["CYCLE_CORRELATION", "Settled", "SteadyState", "central_t", "cycle_length",
           "mser_truncation", "t_quantile"]
