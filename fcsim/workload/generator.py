"""An open-loop generator: sequences arrive at random, whatever the backlog."""

from __future__ import annotations

from fcsim.engine.simulation import Simulation
from fcsim.fc2.nport import NPort
from fcsim.fc2.sequence import Sequence
from fcsim.workload.base import Workload
from fcsim.workload.distributions import Distribution


class Generator(Workload):
    """Offers a sequence every *interarrival* seconds of *size* bytes, each drawn.

    Arrivals begin at *start* (or once the source has logged in). Every
    sequence is its own exchange, which ends (freeing its OX_ID) when FC-2 is
    done with the sequence. Arrivals do not wait for earlier
    sequences, so an offered load above what the link carries builds a
    backlog at the sender without bound (as in an M/G/1 queue).
    """

    def __init__(
        self,
        sim: Simulation,
        name: str,
        source: NPort,
        d_id: int,
        interarrival: Distribution,
        size: Distribution,
        cls: int = 3,
        max_data_field: int | None = None,
        start: float = 0.0,
        count: int | None = None,
    ) -> None:
        if not interarrival.mean > 0:
            raise ValueError(f"{name}: mean inter-arrival time must be > 0 s")
        super().__init__(sim, name, source, d_id, cls, max_data_field, start, count)
        self.interarrival = interarrival
        self.size = size
        self._rng = sim.rng(f"workload/{name}")
        sim.call_later(start, lambda _e: self.when_ready(self._first))

    def _first(self) -> None:
        self.sim.call_later(self.interarrival.sample(self._rng), self._arrive)

    def _done(self, seq: Sequence) -> None:
        self._on_complete(seq)
        self.source.end_exchange(seq)

    def _arrive(self, _event: object) -> None:
        if not self._may_offer():
            return
        self.offered += 1
        size = max(0, round(self.size.sample(self._rng)))
        self.source.send(self.source.open_exchange(self.d_id), size, self.cls,
                         self.max_data_field, last=True, on_complete=self._done,
                         on_delivered=self._on_delivered, meter=self.stats)
        self.sim.call_later(self.interarrival.sample(self._rng), self._arrive)
