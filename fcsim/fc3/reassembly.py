"""The receiving side of striping: stripe units back into IUs, in order.

Units of one IU arrive over different N_Port pairs, each pair in order but
the pairs not in step with one another, so the receiving FC-3 holds what
arrives early: an IU is delivered once all its units have arrived and every
earlier IU has been delivered. The bytes held for IUs that cannot be
delivered yet are the reorder buffer the receiver needs (its maximum is
reported). A unit lost on its way (a Class 3 frame hit by a transmission
error, a sequence aborted) would hold the stream forever; so when the oldest
undelivered IU has had no unit for E_D_TOV while later ones wait, it is
abandoned and counted, and delivery goes on (FC-3 striping defines no
recovery: that is the upper layer's).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fcsim.engine.simulation import Simulation
from fcsim.fc2.sequence import Exchange


class IU:
    """Information unit *index* of a striped stream: *size* bytes offered at
    *created* (s) in the slot whose *exchanges* (one per pair) carry it;
    *units* it is cut into, *done* of them finished at the sender, the worst
    *status* of those."""

    __slots__ = ("index", "size", "created", "exchanges", "units", "done", "status")

    def __init__(self, index: int, size: int, created: float, exchanges: list[Exchange]) -> None:
        self.index = index
        self.size = size
        self.created = created
        self.exchanges = exchanges
        self.units = 0
        self.done = 0
        self.status = "sent"


class StripeUnit:
    """*length* bytes at *offset* of *iu*, sent over N_Port pair *pair*."""

    __slots__ = ("iu", "offset", "length", "pair")

    def __init__(self, iu: IU, offset: int, length: int, pair: int) -> None:
        self.iu = iu
        self.offset = offset
        self.length = length
        self.pair = pair


class _Pending:
    """Units of one IU that have arrived: how many, their bytes, the last one's time."""

    __slots__ = ("iu", "units", "bytes", "last", "pieces")

    def __init__(self, iu: IU, now: float) -> None:
        self.iu = iu
        self.units = 0
        self.bytes = 0
        self.last = now
        self.pieces: list[tuple[int, int]] = []


class Reassembler:
    """Puts a striped stream's units back in order and calls *deliver(iu, time)*
    for each IU, in order; *e_d_tov* (s) bounds the wait for a missing unit.

    Counters: bytes delivered in order, IUs and bytes abandoned, units that
    arrived after their IU was abandoned, bytes held now and at most.
    *log*, if set to a list, receives (IU index, offset, length) of every piece
    delivered, in delivery order.
    """

    def __init__(self, sim: Simulation, e_d_tov: float,
                 deliver: Callable[[IU, float], None]) -> None:
        self.sim = sim
        self.e_d_tov = e_d_tov
        self.deliver = deliver
        self.next = 0
        self.head_since = 0.0
        self.pending: dict[int, _Pending] = {}
        self.held = self.held_max = 0
        self.delivered_bytes = self.abandoned_ius = self.abandoned_bytes = self.late_units = 0
        self.log: list[tuple[int, int, int]] | None = None
        self._checking = False

    def arrived(self, unit: StripeUnit, time: float) -> None:
        """Stripe *unit* arrived whole at the receiving N_Port."""
        index = unit.iu.index
        if index < self.next:
            self.late_units += 1
            return
        pending = self.pending.get(index)
        if pending is None:
            pending = self.pending[index] = _Pending(unit.iu, time)
        pending.units += 1
        pending.bytes += unit.length
        pending.last = time
        pending.pieces.append((unit.offset, unit.length))
        self.held += unit.length
        self.held_max = max(self.held_max, self.held)
        self._release(time)
        if self.pending and not self._checking:
            self._checking = True
            self.sim.call_later(self.e_d_tov, self._check)

    def _release(self, time: float) -> None:
        """Deliver every IU at the head that is complete."""
        while True:
            head = self.pending.get(self.next)
            if head is None or head.units < head.iu.units:
                return
            del self.pending[self.next]
            self.next += 1
            self.head_since = time
            self.held -= head.bytes
            self.delivered_bytes += head.bytes
            if self.log is not None:
                self.log.extend((head.iu.index, off, length) for off, length in
                                sorted(head.pieces))
            self.deliver(head.iu, time)

    def _check(self, _event: object) -> None:
        """Abandon the head IU if later ones wait and it has had nothing for E_D_TOV."""
        now = self.sim.now
        self._checking = False
        if not self.pending:
            return
        head = self.pending.get(self.next)
        since = max(self.head_since, head.last if head is not None else 0.0)
        if now - since >= self.e_d_tov * (1 - 1e-9):
            self.abandoned_ius += 1
            if head is not None:
                del self.pending[self.next]
                self.held -= head.bytes
                self.abandoned_bytes += head.bytes
            self.next += 1
            self.head_since = now
            self._release(now)
            wait = self.e_d_tov
        else:
            wait = since + self.e_d_tov - now
        if self.pending:
            self._checking = True
            self.sim.call_later(wait, self._check)

    def reset_stats(self) -> None:
        """Start a new measurement interval (the bytes held now stay held)."""
        self.held_max = self.held
        self.delivered_bytes = self.abandoned_ius = self.abandoned_bytes = self.late_units = 0

    def results(self) -> dict[str, Any]:
        """The reassembly's counters by name."""
        return {"delivered_bytes": self.delivered_bytes, "abandoned_ius": self.abandoned_ius,
                "abandoned_bytes": self.abandoned_bytes, "late_units": self.late_units,
                "reorder_held_bytes": self.held, "reorder_max_bytes": self.held_max}
