"""An Ethernet switch: store-and-forward, VLANs, output FIFOs with tail drop.

A frame is looked at once it has arrived whole (store-and-forward: its FCS
must be checked; a bad one is dropped); after the model's forwarding latency
it joins the FIFO of the port its destination was learned on, within the
VLAN of the port it came in on (every port is an access port of one VLAN, so
frames on the line carry no tag). The switch learns each source MAC on the
port and VLAN it arrives from; a frame to a MAC not yet learned is flooded
to every other port of its VLAN. An output FIFO holds at most the model's
buffer per port, in bytes; a frame that does not fit is dropped (tail drop)
and counted. Two ports of different VLANs joined by a cable (a loop-back)
bridge the two VLANs, as seed 003's Force10 set-up does. There is no
spanning tree: the topology builder refuses a loop within a VLAN.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fcsim.catalog import ModelFile, read_model, sourced
from fcsim.engine.simulation import Simulation
from fcsim.ethernet.frame import EthernetFrame
from fcsim.ethernet.port import EthernetPort
from fcsim.schema.fields import Time, integer
from fcsim.schema.section import REQUIRED, key


@dataclass(frozen=True)
class EthernetSwitchModel:
    """One kind of Ethernet switch: *ports*, output *buffer* per port (bytes),
    forwarding *latency* once a frame is in (s)."""

    name: str
    ports: int
    buffer: int
    latency: float = 0.0
    sources: dict[str, str] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        if self.ports < 2 or self.buffer < 64 or self.latency < 0:
            raise ValueError(f"{self.name}: need ports >= 2, buffer >= 64 B, latency >= 0")


Ports = sourced(integer(2, text="an integer >= 2"), "Ports")
Buffer = sourced(integer(64, text="an integer >= 64 (bytes)"), "BufferBytes")
Delay = sourced(Time, "Time")


class EthernetSwitchFile(ModelFile):
    """An Ethernet switch model file (`models/ethernet-switches/<name>.toml`),
    read into `fcsim.ethernet.switch.EthernetSwitchModel`."""

    where = "in an Ethernet switch model file"
    defaults_from = EthernetSwitchModel

    ports: Ports = key(REQUIRED, "Ports of the switch (or of the line card modelled).",
                       {"value": 48, "source": "data sheet"})
    buffer: Buffer = key(REQUIRED, "Output buffer per port, bytes.",
                         {"value": 1048576, "source": "data sheet"})
    latency: Delay = key(None, "From a frame's arrival to its entering the output FIFO, s.",
                         {"value": "5 us", "source": "data sheet"})


def load_ethernet_switch_model(name: str, directory: Path | None = None) -> EthernetSwitchModel:
    """The Ethernet switch model *name* (``models/ethernet-switches/<name>.toml``)."""
    values, sources = read_model("ethernet-switches", name, EthernetSwitchFile, directory)
    return EthernetSwitchModel(name=name, sources=sources, **values)


class EthernetSwitchStats:
    """Frames forwarded, flooded, dropped at a full output and for a bad FCS."""

    __slots__ = ("forwarded", "flooded", "tail_drops", "fcs_errors")

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Zero every counter."""
        self.forwarded = self.flooded = self.tail_drops = self.fcs_errors = 0


class EthernetSwitch:
    """Switch *name* built as *model*; port *i* is ``name:i`` in VLAN ``vlans[i]``."""

    def __init__(self, sim: Simulation, name: str, model: EthernetSwitchModel,
                 vlans: dict[int, int] | None = None) -> None:
        self.sim, self.name, self.model = sim, name, model
        self.ports = [EthernetPort(sim, f"{name}:{i}", self) for i in range(model.ports)]
        self.vlans = [(vlans or {}).get(i, 1) for i in range(model.ports)]
        self._index = {port: i for i, port in enumerate(self.ports)}
        self._queues: list[deque[EthernetFrame]] = [deque() for _ in self.ports]
        self._queued = [0] * model.ports
        self._table: dict[tuple[int, int], int] = {}
        self.max_queued = [0] * model.ports
        self.stats = EthernetSwitchStats()

    def vlan_of(self, port: EthernetPort) -> int | None:
        """The VLAN of *port* if it is one of this switch's, else None."""
        index = self._index.get(port)
        return None if index is None else self.vlans[index]

    def frame_received(self, port: EthernetPort, frame: EthernetFrame) -> None:
        """Learn the source; forward or flood within the ingress port's VLAN."""
        if frame.corrupt:
            self.stats.fcs_errors += 1
            return
        into = self._index[port]
        vlan = self.vlans[into]
        self._table[(vlan, frame.src)] = into
        out = self._table.get((vlan, frame.dst))
        if out is not None and out != into:
            outs = [out]
        elif out is None:
            outs = [i for i, v in enumerate(self.vlans) if v == vlan and i != into
                    and self.ports[i].peer is not None]
            self.stats.flooded += 1
        else:
            return  # to where it came from: filtered
        if self.model.latency > 0:
            self.sim.call_later(self.model.latency, lambda _e: self._enqueue(outs, frame))
        else:
            self._enqueue(outs, frame)

    def _enqueue(self, outs: list[int], frame: EthernetFrame) -> None:
        size = frame.size
        for out in outs:
            if self._queued[out] + size > self.model.buffer:
                self.stats.tail_drops += 1
                continue
            copy = frame if len(outs) == 1 else _copy(frame)
            self._queues[out].append(copy)
            self._queued[out] += size
            self.max_queued[out] = max(self.max_queued[out], self._queued[out])
            self.stats.forwarded += 1
            self.ports[out].kick()

    def next_frame(self, port: EthernetPort) -> EthernetFrame | None:
        """The head of *port*'s output FIFO."""
        out = self._index[port]
        queue = self._queues[out]
        if not queue:
            return None
        frame = queue.popleft()
        self._queued[out] -= frame.size
        return frame

    def results(self) -> dict[str, Any]:
        """Counters and the fullest each output FIFO has been, bytes."""
        return {"model": self.model.name, "forwarded": self.stats.forwarded,
                "flooded": self.stats.flooded, "tail_drops": self.stats.tail_drops,
                "fcs_errors": self.stats.fcs_errors,
                "max_queued_bytes": {self.ports[i].name: q for i, q in
                                     enumerate(self.max_queued) if q}}

    def reset_stats(self) -> None:
        """Start a new measured interval."""
        self.stats.reset()
        self.max_queued = list(self._queued)


def _copy(frame: EthernetFrame) -> EthernetFrame:
    """A flooded copy of *frame* (each output gets its own)."""
    return EthernetFrame(frame.src, frame.dst, frame.payload, frame.ulp, frame.vlan)
