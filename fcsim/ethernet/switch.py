"""An Ethernet switch: store-and-forward or cut-through, VLANs, output FIFOs
with tail drop, 802.3x PAUSE.

A frame is looked at once it has arrived whole (store-and-forward: its FCS
is checked and a bad one dropped) or, with the model's ``cut_through``, once
its header is in (it goes on before its FCS is seen, bad or not; to a faster
output it waits until whole, so that it cannot run dry); after the model's
forwarding latency
it joins the FIFO of the port its destination was learned on, within its
VLAN. IEEE 802.1Q: a port is an access port of one VLAN (its frames
untagged) or a trunk port carrying a set of VLANs tagged and at most one,
its native VLAN, untagged. On arrival an untagged frame is in the port's
VLAN (its PVID; dropped on a trunk without a native VLAN) and a tagged frame
in the VLAN of its tag, dropped if the port is not a member of it (ingress
filtering, 802.1Q-2005 clause 8.6.2); it leaves a trunk port tagged unless
in the native VLAN, so the 4-byte tag costs line time on trunks only. The
switch learns each source MAC on the port and VLAN it arrives from (one
table per VLAN); a frame to a MAC not yet learned is flooded to every other
member port of its VLAN. An output FIFO holds at most the model's
buffer per port, in bytes; a frame that does not fit is dropped (tail drop)
and counted. With 802.3x flow control on, an output holding more than the
model's threshold sends PAUSE to the ports feeding it, and lets them go
(PAUSE 0) once it holds half as much. Two ports of different VLANs joined by
a cable (a loop-back) bridge the two VLANs, as seed 003's Force10 set-up does. There is no
spanning tree: the topology builder refuses a loop within a VLAN.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fcsim.catalog import ModelFile, read_model, sourced
from fcsim.engine.simulation import Simulation
from fcsim.ethernet.frame import MAX_QUANTA, PAUSE_QUANTUM_BITS, EthernetFrame
from fcsim.ethernet.port import HEADER_CHARS, EthernetPort
from fcsim.schema.fields import Flag, Time, integer
from fcsim.schema.section import REQUIRED, key


@dataclass(frozen=True)
class EthernetSwitchModel:
    """One kind of Ethernet switch: *ports*, output *buffer* per port (bytes),
    forwarding *latency* once a frame is in (s); with 802.3x flow control on,
    an output holding more than *pause_threshold* bytes pauses the ports that
    feed it (None: the switch sends no PAUSE); *cut_through*: a frame is
    forwarded once its header is in, not once it is whole; *max_frame*: the
    longest frame a port takes, MAC header to FCS, bytes (None: no limit; a
    scenario whose NICs could send longer frames is refused)."""

    name: str
    ports: int
    buffer: int
    latency: float = 0.0
    pause_threshold: int | None = None
    cut_through: bool = False
    max_frame: int | None = None
    sources: dict[str, str] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        if self.ports < 2 or self.buffer < 64 or self.latency < 0:
            raise ValueError(f"{self.name}: need ports >= 2, buffer >= 64 B, latency >= 0")
        if self.max_frame is not None and self.max_frame < 64:
            raise ValueError(f"{self.name}: max_frame must be >= 64 bytes")


Ports = sourced(integer(2, text="an integer >= 2"), "Ports")
Buffer = sourced(integer(64, text="an integer >= 64 (bytes)"), "BufferBytes")
Delay = sourced(Time, "Time")
Yes = sourced(Flag, "Flag")
Frame = sourced(integer(64, text="an integer >= 64 (bytes)"), "FrameBytes")


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
    pause_threshold: Buffer = key(None, "With 802.3x flow control on: bytes in an output "
                                  "FIFO above which the switch sends PAUSE to the ports "
                                  "feeding it (XON below half of it).",
                                  {"value": 65536, "source": "assumption"})
    cut_through: Yes = key(None, "Forward a frame once its header is in (cut-through) rather "
                           "than once it is whole (store-and-forward).",
                           {"value": False, "source": "data sheet"})
    max_frame: Frame = key(None, "The longest frame a port takes, MAC header to FCS, bytes "
                           "(jumbo limit); NICs whose MTU gives longer frames are refused.",
                           {"value": 9252, "source": "configuration guide"})


def load_ethernet_switch_model(name: str, directory: Path | None = None) -> EthernetSwitchModel:
    """The Ethernet switch model *name* (``models/ethernet-switches/<name>.toml``)."""
    values, sources = read_model("ethernet-switches", name, EthernetSwitchFile, directory)
    return EthernetSwitchModel(name=name, sources=sources, **values)


SWITCH_MAC = 0x02FF00000000
"""The source MAC of the PAUSE frames a switch sends (locally administered)."""


class EthernetSwitchStats:
    """Frames forwarded, flooded, dropped at a full output, for a bad FCS, and
    by 802.1Q ingress rules (a VLAN the port is not a member of)."""

    __slots__ = ("forwarded", "flooded", "tail_drops", "fcs_errors", "ingress_drops")

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Zero every counter."""
        self.forwarded = self.flooded = self.tail_drops = self.fcs_errors = 0
        self.ingress_drops = 0


Trunk = tuple[int | None, frozenset[int]]
"""A trunk port's native VLAN (None: none) and the VLANs it carries tagged."""


class EthernetSwitch:
    """Switch *name* built as *model*; port *i* is ``name:i``, an access port of
    VLAN ``vlans[i]`` (default 1) or, if in *trunks*, a trunk port."""

    def __init__(self, sim: Simulation, name: str, model: EthernetSwitchModel,
                 vlans: dict[int, int] | None = None, pause: bool = False,
                 trunks: dict[int, Trunk] | None = None) -> None:
        if pause and model.pause_threshold is None:
            raise ValueError(f"{name}: model {model.name} gives no pause_threshold")
        self.sim, self.name, self.model = sim, name, model
        self.ports = [EthernetPort(sim, f"{name}:{i}", self) for i in range(model.ports)]
        for port in self.ports:
            port.cut_through = model.cut_through
        trunks = trunks or {}
        self.vlans: list[int | None] = [trunks[i][0] if i in trunks else (vlans or {}).get(i, 1)
                                        for i in range(model.ports)]
        """Each port's VLAN for untagged frames (PVID); None: a trunk with no native VLAN."""
        self.tagged = [trunks[i][1] if i in trunks else frozenset() for i in range(model.ports)]
        """The VLANs each port carries tagged (empty on an access port)."""
        self._members: dict[int, list[int]] = {}
        for i in range(model.ports):
            native = self.vlans[i]
            for vlan in sorted(self.tagged[i] | ({native} if native is not None else set())):
                self._members.setdefault(vlan, []).append(i)
        self._index = {port: i for i, port in enumerate(self.ports)}
        self._queues: list[deque[tuple[EthernetFrame, int]]] = [deque() for _ in self.ports]
        self.pause = pause
        self._paused: dict[int, set[int]] = {}  # ingress -> the outputs it is paused for
        self._paused_at: dict[int, float] = {}
        self.pauses_tx = 0
        self._queued = [0] * model.ports
        self._table: dict[tuple[int, int], int] = {}
        self.max_queued = [0] * model.ports
        self.stats = EthernetSwitchStats()
        self.link_down_drops = 0
        """Frames dropped for an output whose link was down (from the start of the run)."""

    def frame_received(self, port: EthernetPort, frame: EthernetFrame) -> None:
        """Classify by VLAN (802.1Q ingress rules), learn the source, forward or
        flood within the VLAN."""
        if frame.corrupt and not self.model.cut_through:  # cut-through cannot see the FCS
            self.stats.fcs_errors += 1
            return
        into = self._index[port]
        vlan = frame.vlan if frame.tagged else self.vlans[into]
        if frame.tagged and vlan != self.vlans[into] and vlan not in self.tagged[into] \
                or vlan is None:  # not a member of the tag's VLAN; untagged on a bare trunk
            self.stats.ingress_drops += 1
            return
        self._table[(vlan, frame.src)] = into
        out = self._table.get((vlan, frame.dst))
        if out is not None and out != into:
            outs = [out]
        elif out is None:
            outs = [i for i in self._members[vlan] if i != into
                    and self.ports[i].peer is not None and self.ports[i].up]
            self.stats.flooded += 1
        else:
            return  # to where it came from: filtered
        wait = self.model.latency
        if self.model.cut_through and any(self.ports[o].char_time < port.char_time
                                          for o in outs):  # a faster output would run dry
            wait += (frame.chars - HEADER_CHARS) * port.char_time
        if wait > 0:
            self.sim.call_later(wait, lambda _e: self._enqueue(outs, frame, into, vlan))
        else:
            self._enqueue(outs, frame, into, vlan)

    def _enqueue(self, outs: list[int], frame: EthernetFrame, into: int, vlan: int) -> None:
        for out in outs:
            if not self.ports[out].up:  # its link went down while the frame was looked up
                self.link_down_drops += 1
                continue
            tag = vlan in self.tagged[out]
            if tag != frame.tagged:  # leaves a trunk tagged, an access port untagged
                copy = _copy(frame, vlan, tag)
            else:
                copy = frame if len(outs) == 1 else _copy(frame, frame.vlan, frame.tagged)
            size = copy.size
            if self._queued[out] + size > self.model.buffer:
                self.stats.tail_drops += 1
                continue
            self._queues[out].append((copy, into))
            self._queued[out] += size
            self.max_queued[out] = max(self.max_queued[out], self._queued[out])
            self.stats.forwarded += 1
            if self.pause and self._queued[out] > self.model.pause_threshold:  # type: ignore[operator]
                self._hold(into, out)
            self.ports[out].kick()

    def _hold(self, into: int, out: int) -> None:
        """Pause ingress *into* for output *out*; refresh a pause half gone."""
        paused = self._paused.setdefault(into, set())
        port = self.ports[into]
        longest = MAX_QUANTA * PAUSE_QUANTUM_BITS * port.char_time / 8
        if not paused or self.sim.now - self._paused_at[into] > longest / 2:
            port.send_pause(MAX_QUANTA, SWITCH_MAC)
            self._paused_at[into] = self.sim.now
            self.pauses_tx += 1
        paused.add(out)

    def _release(self, out: int) -> None:
        """Output *out* has drained below half its threshold: let go the ingress
        ports paused for it alone."""
        for into, outs in list(self._paused.items()):
            outs.discard(out)
            if not outs:
                del self._paused[into]
                self.ports[into].send_pause(0, SWITCH_MAC)
                self.pauses_tx += 1

    def link_changed(self, port: EthernetPort, up: bool) -> None:
        """A port's link went down: the frames queued for it are dropped and the
        addresses learnt on it forgotten (IEEE 802.1D: a port that is not
        operational is disabled and its dynamic filtering entries removed), so
        frames for them are flooded until learnt again."""
        if up:
            return
        out = self._index[port]
        queue = self._queues[out]
        self.link_down_drops += len(queue)
        queue.clear()
        self._queued[out] = 0
        if self._paused:
            self._release(out)
        for entry in [entry for entry, at in self._table.items() if at == out]:
            del self._table[entry]

    def power_off(self) -> None:
        """The switch fails: the frames queued in it are lost and its filtering
        database is empty when it powers on again."""
        for out, queue in enumerate(self._queues):
            self.link_down_drops += len(queue)
            queue.clear()
            self._queued[out] = 0
        self._paused.clear()
        self._table.clear()

    def next_frame(self, port: EthernetPort) -> EthernetFrame | None:
        """The head of *port*'s output FIFO."""
        out = self._index[port]
        queue = self._queues[out]
        if not queue:
            return None
        frame, _ = queue.popleft()
        self._queued[out] -= frame.size
        if self._paused and self._queued[out] <= self.model.pause_threshold / 2:  # type: ignore[operator]
            self._release(out)
        return frame

    def queue_lengths(self) -> dict[int, int]:
        """Frames waiting in each output FIFO now, by port index."""
        return {i: len(queue) for i, queue in enumerate(self._queues)}

    def results(self) -> dict[str, Any]:
        """Counters and the fullest each output FIFO has been, bytes."""
        out = {"model": self.model.name, "forwarded": self.stats.forwarded,
               "pauses_sent": self.pauses_tx,
               "flooded": self.stats.flooded, "tail_drops": self.stats.tail_drops,
               "fcs_errors": self.stats.fcs_errors,
               "max_queued_bytes": {self.ports[i].name: q for i, q in
                                    enumerate(self.max_queued) if q}}
        if any(self.tagged) or self.stats.ingress_drops:  # a switch with 802.1Q trunks
            out["ingress_drops"] = self.stats.ingress_drops
        if self.link_down_drops:
            out["link_down_drops"] = self.link_down_drops
        return out

    def reset_stats(self) -> None:
        """Start a new measured interval."""
        self.stats.reset()
        self.max_queued = list(self._queued)
        self.pauses_tx = 0


def _copy(frame: EthernetFrame, vlan: int, tagged: bool) -> EthernetFrame:
    """A copy of *frame* in *vlan*, *tagged* or not on its way out (a flooded frame:
    each output gets its own; a frame entering or leaving a trunk)."""
    return EthernetFrame(frame.src, frame.dst, frame.payload, frame.ulp, vlan, tagged)
