"""A saturating stream: back-to-back sequences, a fixed number open at once."""

from __future__ import annotations

from fcsim.engine.simulation import Simulation
from fcsim.fc2.nport import NPort
from fcsim.fc2.sequence import Exchange, Sequence
from fcsim.workload.base import Workload


class Stream(Workload):
    """Sends sequences of *size* bytes with *outstanding* of them open at once.

    The slots open at *start*, or once the source has logged in (and an alias
    group it sends to is joined: :attr:`Workload.waits`). Each open
    slot is its own exchange; when FC-2 completes a sequence of a
    slot (Class 3: last frame sent; Class 1/2: all ACKs back) the slot sends
    the next one at once, so the sender always has work while credit allows.
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
    ) -> None:
        if outstanding < 1:
            raise ValueError(f"{name}: outstanding must be >= 1, got {outstanding}")
        super().__init__(sim, name, source, d_id, cls, max_data_field, start, count)
        self.size = size
        self.outstanding = outstanding
        sim.call_later(start, self._begin)

    def _begin(self, _event: object) -> None:
        self.when_ready(self._start_slots)

    def _start_slots(self) -> None:
        for _ in range(self.outstanding):
            self._offer(self.source.open_exchange(self.d_id))

    def _offer(self, exchange: Exchange) -> None:
        if not self._may_offer():
            return
        self.offered += 1
        self.source.send(exchange, self.size, self.cls, self.max_data_field,
                         on_complete=self._next, on_delivered=self._on_delivered,
                         meter=self.stats)

    def _next(self, seq: Sequence) -> None:
        self._on_complete(seq)
        self._offer(seq.exchange)
