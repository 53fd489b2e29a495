"""A saturating stream: back-to-back sequences, a fixed number open at once."""

from __future__ import annotations

from fcsim.engine.simulation import Simulation
from fcsim.fc2.nport import NPort
from fcsim.fc2.sequence import Exchange, Sequence
from fcsim.workload.base import Workload

EXCHANGE_USES = ("per-slot", "per-sequence")
"""How a stream uses exchanges: ``per-slot``, each slot keeps one exchange for
the run and sends its sequences in it one after another (as IP over FC
sends all its packets to a destination in one exchange, RFC 2625, or a
long-lived FC-4 stream does); ``per-sequence``, each sequence opens an
exchange of its own, the last sequence of it, which closes when FC-2 is done
with the sequence (as FCP opens an exchange for each command: all the
information units of one SCSI command share one exchange, FCP-4)."""


class Stream(Workload):
    """Sends sequences of *size* bytes with *outstanding* of them open at once.

    The slots open at *start*, or once the source has logged in (and an alias
    group it sends to is joined: :attr:`Workload.waits`). Each open
    slot is its own exchange; when FC-2 completes a sequence of a
    slot (Class 3: last frame sent; Class 1/2: all ACKs back) the slot sends
    the next one at once, so the sender always has work while credit allows.

    *exchanges* (one of :data:`EXCHANGE_USES`) says whether a slot keeps its
    exchange (``per-slot``) or opens one per sequence (``per-sequence``: a new
    OX_ID from the source's pool each time, freed when the sequence is done,
    or R_A_TOV later when it was aborted or rejected).
    """

    def __init__(
        self,
        sim: Simulation,
        name: str,
        source: NPort,
        d_id: int,
        size: int,
        cls: int = 3,
        max_data_field: int | None = None,
        outstanding: int = 1,
        start: float = 0.0,
        count: int | None = None,
        exchanges: str = "per-slot",
    ) -> None:
        if outstanding < 1:
            raise ValueError(f"{name}: outstanding must be >= 1, got {outstanding}")
        if exchanges not in EXCHANGE_USES:
            raise ValueError(f"{name}: exchanges must be one of {', '.join(EXCHANGE_USES)}, "
                             f"got {exchanges!r}")
        super().__init__(sim, name, source, d_id, cls, max_data_field, start, count)
        self.size = size
        self.outstanding = outstanding
        self.exchanges = exchanges
        self._per_sequence = exchanges == "per-sequence"
        sim.call_later(start, self._begin)

    def _begin(self, _event: object) -> None:
        self.when_ready(self._start_slots)

    def _start_slots(self) -> None:
        for _ in range(self.outstanding):
            if not self._may_offer():  # (no exchange opened that would not be used)
                return
            self._offer(self.source.open_exchange(self.d_id))

    def _offer(self, exchange: Exchange) -> None:
        if not self._may_offer():
            return
        self.offered += 1
        self.source.send(exchange, self.size, self.cls, self.max_data_field,
                         last=self._per_sequence, on_complete=self._next,
                         on_delivered=self._on_delivered, meter=self.stats)

    def _next(self, seq: Sequence) -> None:
        self._on_complete(seq)
        if self._per_sequence:
            self.source.end_exchange(seq)
            if self._may_offer():
                self._offer(self.source.open_exchange(self.d_id))
        else:
            self._offer(seq.exchange)
