"""Random distributions for sizes and inter-arrival times.

Each distribution draws from a :class:`random.Random` stream handed in by the
caller (one per workload, from :meth:`fcsim.engine.Simulation.rng`), so runs
are reproducible for a given seed.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from dataclasses import dataclass


class Distribution(ABC):
    """A distribution of non-negative values (seconds or bytes)."""

    @abstractmethod
    def sample(self, rng: random.Random) -> float:
        """One value drawn with *rng*."""

    @property
    @abstractmethod
    def mean(self) -> float:
        """The mean of the distribution."""


@dataclass(frozen=True)
class Constant(Distribution):
    """Always *value*."""

    value: float

    def sample(self, rng: random.Random) -> float:
        return self.value

    @property
    def mean(self) -> float:
        return self.value


@dataclass(frozen=True)
class Exponential(Distribution):
    """Exponential with mean *mean_value* (Poisson arrivals when used for gaps)."""

    mean_value: float

    def sample(self, rng: random.Random) -> float:
        return rng.expovariate(1.0 / self.mean_value)

    @property
    def mean(self) -> float:
        return self.mean_value


@dataclass(frozen=True)
class Uniform(Distribution):
    """Uniform on [*low*, *high*]."""

    low: float
    high: float

    def sample(self, rng: random.Random) -> float:
        return rng.uniform(self.low, self.high)

    @property
    def mean(self) -> float:
        return (self.low + self.high) / 2
