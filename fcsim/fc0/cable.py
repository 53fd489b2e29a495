"""Cables: the propagation delay of one link.

Light in glass fibre travels at about c / 1.5, i.e. 5 ns per metre (fact sheet
section 1; Brocade's 100 km = 1 ms round-trip example).
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_PROPAGATION = 5e-9
"""Default one-way propagation delay per metre of fibre, s/m."""


@dataclass(frozen=True, slots=True)
class Cable:
    """A cable of *length* metres with *propagation* seconds per metre."""

    length: float = 0.0
    propagation: float = DEFAULT_PROPAGATION

    def __post_init__(self) -> None:
        if self.length < 0:
            raise ValueError(f"cable length must be >= 0 m, got {self.length!r}")
        if self.propagation < 0:
            raise ValueError(f"propagation must be >= 0 s/m, got {self.propagation!r}")

    @property
    def delay(self) -> float:
        """One-way propagation delay, s."""
        return self.length * self.propagation
