"""Lasting faults that overlap on one target.

Two faults of a kind that lasts (a cable out, a port or switch failed, a bit
error rate) may strike the same port at overlapping times: two periods of
a flapping cable and a link-down, a port failure within a switch failure, a
burst of bit errors over a link made noisy. Each holds the port for its own
time: the port comes back when the last one holding it ends, not when the
first one does (:class:`Holds`); of the bit error rates lasting on one
direction, the one begun last is the direction's rate, and when none lasts
the link's own rate comes back (:class:`ErrorRates`).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any


class Holds:
    """How many lasting faults hold each target (a port's cable out, a port
    powered off) now."""

    def __init__(self) -> None:
        self._count: dict[Hashable, int] = {}

    def take(self, targets: Iterable[Hashable]) -> list[Any]:
        """One more fault holds each of *targets*; those it is the first to hold
        (the ones to strike now)."""
        first = []
        for target in targets:
            count = self._count.get(target, 0)
            self._count[target] = count + 1
            if count == 0:
                first.append(target)
        return first

    def release(self, targets: Iterable[Hashable]) -> list[Any]:
        """A fault holding each of *targets* ends; those no fault holds any more
        (the ones that come back now)."""
        free = []
        for target in targets:
            count = self._count.get(target, 0) - 1
            self._count[target] = max(count, 0)
            if count == 0:
                free.append(target)
        return free


class ErrorRates:
    """The bit error rate of the frames each port sends under
    ``bit-error-rate`` faults: while faults last on it, the rate of the one
    begun last (equal times: the later in the file); when none lasts, the
    rate its link gave it."""

    def __init__(self) -> None:
        self._own: dict[Any, float] = {}
        self._lasting: dict[Any, list[tuple[int, float]]] = {}
        self._begun = 0

    def begin(self, ports: Iterable[Any], rate: float) -> int:
        """A fault sets *rate* on the frames *ports* send, from now; its token,
        for :meth:`end`."""
        self._begun += 1
        for port in ports:
            self._own.setdefault(port, port.bit_error_rate)
            self._lasting.setdefault(port, []).append((self._begun, rate))
            port.bit_error_rate = rate
        return self._begun

    def end(self, ports: Iterable[Any], token: int) -> None:
        """The fault *token* on *ports* ends now: each port's rate is that of its
        latest fault still lasting, or its link's own."""
        for port in ports:
            lasting = [held for held in self._lasting[port] if held[0] != token]
            self._lasting[port] = lasting
            port.bit_error_rate = lasting[-1][1] if lasting else self._own[port]
