"""Striping: one stream over several N_Ports of a node, for bandwidth.

FC-3 striping "allows multiple links simultaneously and transmits a single
information unit across multiple links employing multiple N_Ports in
parallel" (R. H. Thornburgh, *Fibre Channel for Mass Storage*, 1999, sec. 2.5,
after FC-PH). The standard names the function and leaves its protocol open,
so the mechanism here is the model's: a striped stream sends each of its
sequences (an information unit, IU) as stripe units of *stripe_unit* bytes,
unit *j* of the stream on N_Port pair *j* mod *k* (the source's N_Port *i* to
the destination's N_Port *i*), each unit an FC-2 sequence in that pair's
exchange of the IU's slot. The receiving FC-3 puts the units back in order
(:mod:`fcsim.fc3.reassembly`). A unit adds no bytes: it travels with its IU
number, offset and length, what a striping header would carry, as simulated
payload carries its upper-layer unit (an assumption: no header is counted).

The pairs run in parallel, each with its own link, credit and exchanges, so
the stream's rate grows with *k* until something they share binds: an
inter-switch link, a switch's central router, the hosts.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from fcsim.engine.simulation import Simulation
from fcsim.fc2.nport import NPort
from fcsim.fc2.sequence import Exchange, Sequence
from fcsim.fc3.ports import port_names
from fcsim.fc3.reassembly import IU, Reassembler, StripeUnit
from fcsim.workload.base import Workload, WorkloadStats


def stripe_pairs(workloads: Iterable[Any]) -> set[tuple[str, str]]:
    """(source N_Port, destination N_Port) of every pair a striped stream uses."""
    return {pair for w in workloads if getattr(w, "stripe_ports", 1) > 1
            for pair in zip(port_names(w.source, w.stripe_ports),
                            port_names(w.destination, w.stripe_ports), strict=True)}


class StripeStats(WorkloadStats):
    """A striped stream's counters: those of every workload, and per N_Port pair
    the units and payload its source sent."""

    __slots__ = ("units_tx", "payload_tx")

    def __init__(self, ports: int) -> None:
        self.units_tx = [0] * ports
        self.payload_tx = [0] * ports
        super().__init__()

    def reset(self) -> None:
        """Zero every counter."""
        super().reset()
        self.units_tx = [0] * len(self.units_tx)
        self.payload_tx = [0] * len(self.payload_tx)


class StripedStream(Workload):
    """A saturating stream from N_Ports *sources* to the N_Ports *d_ids*, pair by
    pair, striped in units of *unit* bytes; *e_d_tov* (s) bounds how long the
    receiver waits for a missing unit. Other arguments as :class:`Stream`."""

    def __init__(self, sim: Simulation, name: str, sources: list[NPort], d_ids: list[int],
                 size: int, unit: int, cls: int = 3, max_data_field: int | None = None,
                 outstanding: int = 1, start: float = 0.0, count: int | None = None,
                 e_d_tov: float = 2.0) -> None:
        if len(sources) != len(d_ids) or len(sources) < 2:
            raise ValueError(f"{name}: striping needs two or more N_Port pairs")
        if unit < 1 or outstanding < 1:
            raise ValueError(f"{name}: stripe unit and outstanding must be >= 1")
        super().__init__(sim, name, sources[0], d_ids[0], cls, max_data_field, start, count)
        self.sources = sources
        self.d_ids = d_ids
        self.size = size
        self.unit = unit
        self.outstanding = outstanding
        self.stats = StripeStats(len(sources))
        self.waits.extend(source.when_ready for source in sources[1:])
        self.reassembly = Reassembler(sim, e_d_tov, self._deliver)
        self._next_unit = 0
        self._next_iu = 0
        sim.call_later(start, lambda _event: self.when_ready(self._start_slots))

    def reset_stats(self) -> None:
        """Start a new measurement interval, for the reassembly too."""
        super().reset_stats()
        self.reassembly.reset_stats()

    def _start_slots(self) -> None:
        for _ in range(self.outstanding):
            self._offer([src.open_exchange(d) for src, d in zip(self.sources, self.d_ids,
                                                                 strict=True)])

    def _offer(self, exchanges: list[Exchange]) -> None:
        """Send the next IU as stripe units, round robin over the pairs."""
        if not self._may_offer():
            return
        self.offered += 1
        iu = IU(self._next_iu, self.size, self.sim.now, exchanges)
        self._next_iu += 1
        offsets = range(0, max(self.size, 1), self.unit)
        iu.units = len(offsets)
        k = len(self.sources)
        for offset in offsets:
            pair = self._next_unit % k
            self._next_unit += 1
            length = min(self.unit, self.size - offset)
            self.stats.units_tx[pair] += 1
            self.stats.payload_tx[pair] += length
            self.sources[pair].send(exchanges[pair], length, self.cls, self.max_data_field,
                                    ulp=StripeUnit(iu, offset, length, pair),
                                    on_complete=self._unit_done,
                                    on_delivered=self._unit_arrived, meter=self.stats)

    def _unit_done(self, seq: Sequence) -> None:
        """FC-2 is done with a unit at the sender; the IU is done with its last."""
        iu: IU = seq.ulp.iu  # type: ignore[union-attr]
        iu.done += 1
        if seq.status in ("rejected", "aborted"):
            iu.status = seq.status
        if iu.done == iu.units:
            stats = self.stats
            if iu.status == "rejected":
                stats.rejected += 1
            elif iu.status == "aborted":
                stats.aborted += 1
            else:
                stats.sent += 1
            self._offer(iu.exchanges)

    def _unit_arrived(self, seq: Sequence, time: float) -> None:
        self.reassembly.arrived(seq.ulp, time)  # type: ignore[arg-type]

    def _deliver(self, iu: IU, time: float) -> None:
        """The receiver's FC-3 delivered *iu* whole and in order."""
        self.stats.sequences += 1
        self.stats.latency.add(time - iu.created)

    def results(self, interval: float) -> dict[str, Any]:
        """Every workload's figures (sequences: IUs delivered in order after
        reassembly), and per pair and of the reassembly (docs/results.md)."""
        out = super().results(interval)
        stats = self.stats
        out["striping"] = {
            "ports": len(self.sources), "stripe_unit": self.unit,
            "per_pair": [{"source": src.name, "destination": f"{d:06X}", "units": units,
                          "payload_bytes": payload}
                         for src, d, units, payload in zip(self.sources, self.d_ids,
                                                           stats.units_tx, stats.payload_tx,
                                                           strict=True)],
            **self.reassembly.results()}
        return out
