"""A RAM disk: every access waits the device's fixed access latency (accesses
overlap), then its data crosses the device's internal path, one transfer at a
time at the internal rate."""

from __future__ import annotations

from collections.abc import Callable

from fcsim.engine.server import Server
from fcsim.engine.simulation import Simulation
from fcsim.storage.device_model import RamDiskModel
from fcsim.storage.disk import Breakdown


class RamDisk:
    """The RAM disk *model* as a simulated device named *name*."""

    def __init__(self, sim: Simulation, name: str, model: RamDiskModel) -> None:
        self.sim, self.name, self.model = sim, name, model
        self._path = Server(sim, f"{name}/internal")
        self._open = 0
        self.stats = Breakdown()

    @property
    def queued(self) -> int:
        """Commands in service."""
        return self._open

    def submit(self, write: bool, offset: int, length: int, done: Callable[[], None]) -> None:
        """Read or write *length* bytes at *offset*; *done()* when through."""
        self._open += 1
        stats = self.stats
        stats.command(write, length)
        stats.overhead += self.model.access_latency
        transfer = length / self.model.internal_rate
        stats.transfer += transfer

        def moved() -> None:
            self._open -= 1
            done()
        self.sim.call_later(self.model.access_latency,
                            lambda event: self._path.serve(transfer, moved))

    def utilisations(self, interval: float) -> dict[str, float]:
        """Busy fraction of the internal path over *interval* s."""
        return {"internal path": self._path.busy_time / interval if interval > 0 else 0.0}

    def results(self, interval: float) -> dict[str, float]:
        """Figures of the measured *interval* (s); utilisation is the internal path's."""
        self.stats.busy = self._path.busy_time
        return self.stats.as_dict(interval)

    def reset_stats(self) -> None:
        """Start a new measured interval."""
        self.stats = Breakdown()
        self._path.reset_stats()
