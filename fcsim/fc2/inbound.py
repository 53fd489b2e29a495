"""The reassembly state of one sequence an N_Port is receiving."""

from __future__ import annotations

from typing import Any


class Inbound:
    """Reassembly state of one sequence being received (*last*: last frame time,
    s). *frames* counts the frames received, *earlier* those of them counted in
    an earlier measurement interval, *payload* the payload of the others
    (bytes): what abandoning the sequence takes back from its meter."""

    __slots__ = ("attempt", "frames", "earlier", "payload", "last")

    def __init__(self, attempt: int, now: float) -> None:
        self.attempt = attempt
        self.frames = 0
        self.earlier = 0
        self.payload = 0
        self.last = now

    def new_interval(self) -> None:
        """A new measurement interval starts: what was counted so far stays in
        the interval before."""
        self.earlier = self.frames
        self.payload = 0

    def unmeter(self, meter: Any) -> None:
        """Take back from *meter* (the sequence's, with ``frames``, ``payload``
        and ``taken_back`` counters; None: nothing) the frames of this attempt,
        abandoned, that it counted in this measurement interval."""
        if meter is not None:
            meter.frames -= self.frames - self.earlier
            meter.payload -= self.payload
            meter.taken_back += self.payload
