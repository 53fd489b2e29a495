"""The batches a netperf test's steady-state rule judges
(:mod:`fcsim.stats.steady`).

A stream counts the bytes its receiver got at each batch's end. A TCP_RR
test counts a batch when the transaction in progress at its end completes,
that transaction counted in proportion to the part of its time before the
end: counted whole, a few transactions per batch would move in steps and
could agree from batch to batch while the rate lies between them.
"""

from __future__ import annotations

from typing import Any

from fcsim.stats.steady import Settled, SteadyState


class Batches:
    """The counts of one test's batches under *rule*, and what it made of them."""

    def __init__(self, rule: SteadyState) -> None:
        self.rule = rule
        self.counts: list[float] = []
        """Units counted in each batch so far."""
        self.found: Settled | None = None
        """How the rule settled the rate (None: not yet)."""
        self._counted = 0.0  # the count at the end of the last batch
        self._step = 0.0  # the count's resolution (streams: the most one receive delivered)
        self._ends: list[float] = []  # TCP_RR: batch ends awaiting the next completion, s
        self._done_at = 0.0  # TCP_RR: when the last transaction (or the connection) completed

    def start(self, now: float) -> None:
        """The test began at *now*, s."""
        self._done_at = now

    def received(self, n: int) -> None:
        """A stream's receive delivered *n* bytes: one step of the count."""
        if n > self._step:
            self._step = n

    def ended(self, units: float) -> Settled | None:
        """A stream's batch ended with *units* counted since the start: the
        settled rate if this settles it."""
        self.counts.append(units - self._counted)
        self._counted = units
        return self._judge()

    def ended_in_transaction(self, now: float) -> None:
        """A TCP_RR batch ended at *now*, s; it is counted at the next completion."""
        self._ends.append(now)

    def completed(self, now: float, before: int) -> Settled | None:
        """A transaction completed at *now*, s, *before* having completed before
        it: count the batches that ended during it, then the settled rate if
        they settle it."""
        began, self._done_at = self._done_at, now
        if not self._ends:
            return None
        for end in self._ends:
            counted = before + (end - began) / (now - began)
            self.counts.append(counted - self._counted)
            self._counted = counted
        self._ends.clear()
        return self._judge()

    def _judge(self) -> Settled | None:
        if self.found is not None:
            return None
        self.found = self.rule.settled(self.counts, self._step)
        return self.found

    def report(self, measured: float) -> dict[str, Any]:
        """The ``steady_state`` entry of a settled test's results, *measured* s
        from its start to the moment it settled."""
        found: Settled = self.found  # type: ignore[assignment]
        batch = self.rule.batch
        return {"settled_after_s": measured,
                "left_out_s": found.left_out * batch,
                "batch_s": found.width * batch,
                "batches": (len(self.counts) - found.left_out) // found.width,
                "confidence": self.rule.confidence,
                "relative_half_width": found.half_width}
