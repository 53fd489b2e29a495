"""Steady-state stopping: end a measurement once its rate is known well enough.

A test that measures a rate (bytes or transactions per second) over a fixed
length spends most of that length repeating a steady state. The method of
batch means (Law and Kelton, *Simulation Modeling and Analysis*, section 9.5.3)
estimates the steady-state rate and a confidence interval for it from
consecutive batches of equal length: the batch rates are treated as
independent, normally distributed samples, so the interval is the batches'
mean plus or minus Student's t quantile times their standard error.

:class:`SteadyState` is the stopping rule. The first batch after a test starts
is left out (connection set-up and slow start). After at least
:attr:`SteadyState.batches` further batches, the measurement stops as soon as
the interval's half-width at :attr:`SteadyState.confidence`, plus the
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


@dataclass(frozen=True)
class SteadyState:
    """Stop a rate measurement when its *confidence* interval (e.g. 0.99) is
    within *precision* (relative half-width, e.g. 0.01) of the mean, judged on
    batches of *batch* s, at least *batches* of them after the first."""

    confidence: float = 0.99
    precision: float = 0.01
    batch: float = 0.2
    batches: int = 10

    def __post_init__(self) -> None:
        if not (0 < self.confidence < 1 and 0 < self.precision < 1 and self.batch > 0
                and self.batches >= 2):
            raise ValueError("steady state: confidence and precision in (0, 1), batch > 0 s, "
                             "batches >= 2")

    def interval(self, counts: list[float], step: float = 0.0) -> tuple[float, float] | None:
        """The steady rate (units/s) and its relative half-width from the units
        counted in each batch, the first left out; None before enough batches.

        *step* is the count's resolution: the most one increment of it adds
        (1 for transactions; for bytes, the most one receive delivered). The
        half-width is the batch means' interval plus one step in the total
        counted: a count that moves in steps can stay the same in every batch
        (four transactions in each 0.2 s at 19.5 per second) while the rate
        lies up to a step per span away, which no spread of the batches shows.
        """
        rates = [n / self.batch for n in counts[1:]]
        if len(rates) < self.batches:
            return None
        mean = fmean(rates)
        if mean <= 0:
            return mean, math.inf
        error = stdev(rates) / math.sqrt(len(rates))
        resolution = step / (mean * self.batch * len(rates))
        return mean, t_quantile(self.confidence, len(rates) - 1) * error / mean + resolution

    def settled(self, counts: list[float], step: float = 0.0) -> tuple[float, float] | None:
        """The steady rate and its relative half-width (:meth:`interval`) if the
        half-width is within the precision, else None."""
        found = self.interval(counts, step)
        if found is None or found[1] > self.precision:
            return None
        return found


__all__ = ["SteadyState", "central_t", "t_quantile"]
