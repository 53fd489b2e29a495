"""A Myrinet switch: a source-routed, cut-through crossbar.

Each input port's slack buffer holds the packets coming in, first in first
out. When the front packet's first character, its route byte, is in, the
switch reads it and, after the model's routing latency, asks for the output
port it names; the output is granted to one input at a time, round robin
among the inputs waiting for it (Myrinet's arbitration: Garcia et al.,
"Evaluation of alternative arbitration policies for Myrinet switches"). Once
granted, the packet streams through without its route byte, character by
character as it arrives (cut-through), and the output is free again once its
GAP has gone. A packet waiting for a busy output stays where it is: its
characters fill the input's slack buffer, which stops the sender behind it
(STOP), and so on back to its source NIC (wormhole). Nothing is dropped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fcsim.catalog import ModelFile, read_model, sourced
from fcsim.engine.simulation import Simulation
from fcsim.myrinet.port import MyrinetPort
from fcsim.myrinet.slack import Buffer, Segment
from fcsim.schema.fields import Time, integer
from fcsim.schema.section import REQUIRED, key


@dataclass(frozen=True)
class MyrinetSwitchModel:
    """One kind of Myrinet switch: *ports*; routing *latency* from a packet's
    route byte in to its request for the output (s); each input's *slack*
    buffer (characters) with its *stop* and *go* marks."""

    name: str
    ports: int
    latency: float
    slack: int
    stop: int
    go: int
    sources: dict[str, str] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        if self.ports < 2 or self.latency < 0:
            raise ValueError(f"{self.name}: need ports >= 2 and latency >= 0")
        if not 0 <= self.go < self.stop < self.slack:
            raise ValueError(f"{self.name}: need 0 <= go < stop < slack, got go {self.go}, "
                             f"stop {self.stop}, slack {self.slack}")


Ports = sourced(integer(2, text="an integer >= 2"), "Ports")
Characters = sourced(integer(0, text="an integer >= 0 (characters)"), "Characters")
Delay = sourced(Time, "Time")


class MyrinetSwitchFile(ModelFile):
    """A Myrinet switch model file (`models/myrinet-switches/<name>.toml`), read
    into `fcsim.myrinet.switch.MyrinetSwitchModel`. The marks must satisfy
    go < stop < slack."""

    where = "in a Myrinet switch model file"
    defaults_from = MyrinetSwitchModel

    ports: Ports = key(REQUIRED, "Ports of the crossbar.", {"value": 8, "source": "data sheet"})
    latency: Delay = key(REQUIRED, "From a packet's route byte in to its request for the "
                         "output port, s.", {"value": "150 ns", "source": "paper"})
    slack: Characters = key(REQUIRED, "Each input port's slack buffer, characters (bytes).",
                            {"value": 80, "source": "paper"})
    stop: Characters = key(REQUIRED, "Slack level at which the input sends STOP, characters.",
                           {"value": 56, "source": "paper"})
    go: Characters = key(REQUIRED, "Slack level at which the input sends GO again, "
                         "characters.", {"value": 40, "source": "paper"})


def load_myrinet_switch_model(name: str, directory: Path | None = None) -> MyrinetSwitchModel:
    """The Myrinet switch model *name* (``models/myrinet-switches/<name>.toml``)."""
    values, sources = read_model("myrinet-switches", name, MyrinetSwitchFile, directory)
    return MyrinetSwitchModel(name=name, sources=sources, **values)


class MyrinetSwitchStats:
    """Packets forwarded."""

    __slots__ = ("forwarded",)

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Zero every counter."""
        self.forwarded = 0


class MyrinetSwitch:
    """Switch *name* built as *model*; port *i* is ``name:i``."""

    def __init__(self, sim: Simulation, name: str, model: MyrinetSwitchModel) -> None:
        self.sim, self.name, self.model = sim, name, model
        self.ports = [MyrinetPort(sim, f"{name}:{i}", self, model.slack, model.stop, model.go,
                                  self) for i in range(model.ports)]
        self._index = {port.buffer: i for i, port in enumerate(self.ports)}
        self._out = {port: i for i, port in enumerate(self.ports)}
        self._waiting: list[list[int]] = [[] for _ in self.ports]  # inputs, per output
        self._last = [-1] * model.ports  # the input each output was granted to last
        self.stats = MyrinetSwitchStats()
        self.link_down_drops = 0
        """Packets lost inside it when it was powered off (from the start of the run)."""
        self._epoch = 0

    def route(self, buffer: Buffer, segment: Segment) -> None:
        """*segment*'s route byte is in at *buffer*: ask for its output after the
        routing latency."""
        packet = segment.packet
        out = packet.route[len(packet.route) - segment.route_left]
        self.sim.call_later(self.model.latency, self._request,
                            (self._index[buffer], out, self._epoch))

    def _request(self, value: tuple[int, int, int]) -> None:
        into, out, epoch = value
        if epoch != self._epoch:
            return  # routed before the switch was powered off
        if self.ports[out].source is None:
            self._grant(into, out)
        else:
            self._waiting[out].append(into)

    def _grant(self, into: int, out: int) -> None:
        port = self.ports[out]
        source = self.ports[into].buffer
        port.source = source
        self._last[out] = into
        source.attach(port, strip=1)

    def sent(self, port: MyrinetPort, segment: Segment) -> None:
        """*port* has sent *segment*'s packet on: free the output, grant it to the
        next waiting input after the last one served."""
        source = port.source
        source.consumer = None  # type: ignore[union-attr]
        port.source = None
        self.stats.forwarded += 1
        out = self._out[port]
        waiting = self._waiting[out]
        if waiting:
            n, last = len(self.ports), self._last[out]
            into = min(waiting, key=lambda i: (i - last - 1) % n)
            waiting.remove(into)
            self._grant(into, out)

    def power_off(self) -> None:
        """The switch fails: every packet in it is lost, every path through it
        released."""
        self._epoch += 1
        for port in self.ports:
            port.halt()
            self.link_down_drops += port.buffer.clear()
        self._waiting = [[] for _ in self.ports]
        self._last = [-1] * len(self.ports)

    def queue_lengths(self) -> dict[int, int]:
        """Packets waiting for each output now, by port index."""
        return {i: len(waiting) for i, waiting in enumerate(self._waiting)}

    def results(self) -> dict[str, Any]:
        """Packets forwarded; per input port the STOPs and GOs it sent and the
        fullest its slack buffer has been, characters."""
        inputs = {port.name: {"stops_sent": port.buffer.stops, "gos_sent": port.buffer.gos,
                              "max_slack_chars": round(port.buffer.max_level, 6)}
                  for port in self.ports if port.peer is not None}
        return {"model": self.model.name, "forwarded": self.stats.forwarded,
                "slack_chars": self.model.slack, "inputs": inputs,
                **({"link_down_drops": self.link_down_drops} if self.link_down_drops else {})}

    def reset_stats(self) -> None:
        """Start a new measured interval."""
        self.stats.reset()
