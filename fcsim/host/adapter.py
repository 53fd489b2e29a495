"""A Fibre Channel host adapter (HBA) between the link and host memory.

Receiving, the adapter holds each frame in one of its on-card buffers (the
BB credit it offers), spends its per-frame processing time on it, and moves
it to host memory by DMA over the I/O bus; only then is the buffer free and
an R_RDY returned, so a slow bus or card pushes back on the link. Sending, a
packet is moved from host memory by DMA (one transfer per packet) and the card
spends its per-frame time on each of its frames before FC-2 sends them. The
data of a SCSI write (an FCP_DATA sequence from host memory) is fetched frame
by frame, one DMA after the other, each frame then given the card's time and
sent once fetched, so the bus and the link work on different frames at once
and the slower of the two sets the pace; the card is taken to have room for
a whole burst. Each SCSI or NVMe command (an FCP_CMND or NVMe_CMND sequence
it fetches) costs the card's processor its *command_time* besides, on the same timeline: the
firmware's work on the I/O control block, the exchange and the response it
posts, which is what bounds an adapter's I/O-per-second rating with small
blocks. So a card serves at most 1 / *command_time* commands a second.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from fcsim.engine.simulation import Simulation
from fcsim.fc2.frame import Frame
from fcsim.fc2.header import R_CTL_UNSOLICITED_COMMAND, TYPE_FCP
from fcsim.fc2.nport import NPort
from fcsim.fc2.sequence import Sequence
from fcsim.fc4.nvme import TYPE_NVME
from fcsim.host.bus import IoBus

ADAPTER_COMMAND_TIME = 1 / 35180
"""Default card time per SCSI command, s: HP's A6826A 2 Gb/s FC adapter reads
35,180 1 KB blocks a second on one port, "limited by the processor used on the
A6826A adapter" (HP, A6826A PCI-X Dual Channel 2Gb/s Fibre Channel Adapter
Performance Paper for Integrity Servers, 2003, p. 3); the same card writes
20,619 a second, so writes are costed low."""


@dataclass(frozen=True)
class AdapterModel:
    """Per-frame processing time on the card, s (receive and send), and per
    SCSI command sent, s."""

    name: str
    frame_time: float = 0.0
    command_time: float = 0.0

    def __post_init__(self) -> None:
        if self.frame_time < 0 or self.command_time < 0:
            raise ValueError(f"{self.name}: frame_time and command_time must be >= 0 s")


def _call(then: Callable[[], None]) -> None:
    """A scheduled entry's callback that calls its value, *then()*."""
    then()


class HostAdapter:
    """The adapter of *nport*, on *bus*, built as *model*."""

    def __init__(self, sim: Simulation, nport: NPort, bus: IoBus, model: AdapterModel) -> None:
        self.sim = sim
        self.nport = nport
        self.bus = bus
        self.model = model
        self._card_free = 0.0
        self._fetching: deque[Sequence] = deque()
        nport.rx_stage = self._receive
        nport.tx_stage = self._fetch

    def _card(self, frames: int, extra: float = 0.0) -> float:
        """Delay until the card has processed *frames* more frames and spent
        *extra* s besides, s."""
        now = self.sim.now
        self._card_free = max(now, self._card_free) + frames * self.model.frame_time + extra
        return self._card_free - now

    def _receive(self, frame: Frame, done: Callable[[], None]) -> None:
        """A frame is in one of the card's buffers: the card's time on it, then its
        DMA to host memory, then *done()*."""
        delay = self._card(1)
        if delay > 0:
            self.sim.call_later(delay, self._dma, (frame.data_len, done))
        else:
            self.bus.transfer(frame.data_len, done)

    def _dma(self, job: tuple[int, Callable[[], None]]) -> None:
        """Move a received frame's *job* = (bytes, then) to host memory."""
        nbytes, done = job
        self.bus.transfer(nbytes, done)

    def transmit(self, nbytes: int, frames: int, ready: Callable[[], None]) -> None:
        """Fetch a packet of *nbytes* in *frames* frames from host memory, then *ready()*."""
        def processed() -> None:
            delay = self._card(frames)
            if delay > 0:
                self.sim.call_later(delay, _call, ready)
            else:
                ready()

        self.bus.transfer(nbytes, processed)

    def _fetch(self, seq: Sequence) -> None:
        """Fetch the frames of *seq* from host memory after those already queued."""
        self._fetching.append(seq)
        if len(self._fetching) == 1:
            self._fetch_frame()

    def _fetch_frame(self) -> None:
        """DMA the next frame of the first sequence being fetched, then the card's
        time on it; it may then be sent."""
        seq = self._fetching[0]
        last = seq.fetched + 1 == seq.n_frames
        nbytes = seq.size - seq.data_field * seq.fetched if last else seq.data_field

        def on_card(_event: object = None) -> None:
            seq.fetched += 1
            self.nport.port.kick()
            if seq.fetched == seq.n_frames:
                self._fetching.popleft()
            if self._fetching:
                self._fetch_frame()

        def fetched() -> None:
            command = seq.r_ctl == R_CTL_UNSOLICITED_COMMAND and seq.type in (TYPE_FCP, TYPE_NVME)
            delay = self._card(1, self.model.command_time if command else 0.0)
            if delay > 0:
                self.sim.call_later(delay, on_card)
            else:
                on_card()

        self.bus.transfer(nbytes, fetched)
