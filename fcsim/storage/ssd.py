"""An NVMe solid-state drive: a controller, a DRAM write buffer and NAND
flash dies on channels.

Every command first takes the controller's latency (commands overlap there,
as firmware pipelines them). The flash is *channels* x *dies_per_channel*
dies, each a parallel unit; logical page *p* (pages of *page_size* bytes)
lives on die *p mod dies*, the dies numbered so that consecutive ones sit on
consecutive channels (die *d* on channel *d mod channels*), as MQSim's CWDP
allocation spreads consecutive pages over channels first. A read takes, for
each page it touches, the page read (*read_latency*) on its die, then the
transfer of its bytes of that page over the die's channel at
*channel_rate*; it completes when every page has. A write is acknowledged
once its bytes are in the write buffer (after the controller latency; its
pages go in while there is room, in arrival order, so a write waits for the
flush to make room, and one larger than the buffer goes in as its first
pages drain); the buffer drains behind: each page crosses its channel, then is programmed on
its die (*program_latency*), and its bytes leave the buffer. A die serves
reads before waiting programs (reads are not held behind the flush).
The die is free again after its page read; the channel transfer that
follows runs on the channel (the page register is not modelled). When the
model has a block geometry, each die's programs go through its flash
translation layer (:mod:`fcsim.storage.flash_translation`), which places
them in erase blocks and collects garbage; planes are not modelled (a die's
blocks are those of all its planes).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from fcsim.engine.server import Server
from fcsim.engine.simulation import Simulation
from fcsim.storage.device_model import SsdModel
from fcsim.storage.disk import Breakdown
from fcsim.storage.flash_translation import PROGRAM_LEVEL, FlashTranslation

_READ, _PROGRAM = 0, PROGRAM_LEVEL
"""Service levels on a die: reads first."""


class Ssd:
    """The SSD *model* as a simulated device named *name*."""

    def __init__(self, sim: Simulation, name: str, model: SsdModel) -> None:
        self.sim, self.name, self.model = sim, name, model
        dies = model.channels * model.dies_per_channel
        self._dies = [Server(sim, f"{name}/die{d}", levels=2) for d in range(dies)]
        self._channels = [Server(sim, f"{name}/channel{c}") for c in range(model.channels)]
        self.ftl = ([FlashTranslation(sim, self._dies[d], self._channels[d % model.channels],
                                      model,
                                      d, dies) for d in range(dies)] if model.collects else [])
        self.buffered = 0  # bytes in the write buffer
        self.most_buffered = 0
        self._room: deque[tuple[deque[tuple[int, int]], Callable[[], None]]] = deque()
        self.stats = Breakdown()

    def pages(self, offset: int, length: int) -> list[tuple[int, int]]:
        """The pages a range touches: (logical page, bytes of the range in it)."""
        size = self.model.page_size
        out = []
        end = offset + length
        while offset < end:
            page, into = divmod(offset, size)
            piece = min(size - into, end - offset)
            out.append((page, piece))
            offset += piece
        return out

    def submit(self, write: bool, offset: int, length: int, done: Callable[[], None]) -> None:
        """Read or write *length* bytes at *offset*; *done()* when a read's
        data are in the controller, or a write's in the buffer."""
        self.stats.command(write, length)
        self.stats.overhead += self.model.controller_latency
        if write:
            self.sim.call_later(self.model.controller_latency,
                                lambda event: self._buffer(offset, length, done))
        else:
            self.sim.call_later(self.model.controller_latency,
                                lambda event: self._read(offset, length, done))

    def _place(self, page: int) -> tuple[Server, Server]:
        die = page % len(self._dies)
        return self._dies[die], self._channels[die % len(self._channels)]

    def _read(self, offset: int, length: int, done: Callable[[], None]) -> None:
        pieces = self.pages(offset, length)
        left = [len(pieces)]

        def one() -> None:
            left[0] -= 1
            if left[0] == 0:
                done()
        for page, piece in pieces:
            die, channel = self._place(page)
            transfer = piece / self.model.channel_rate
            self.stats.transfer += transfer
            die.serve(self.model.read_latency,
                      lambda channel=channel, transfer=transfer: channel.serve(transfer, one),
                      _READ)

    def _buffer(self, offset: int, length: int, done: Callable[[], None]) -> None:
        """Queue the write's pages for the buffer, behind any write waiting."""
        self._room.append((deque(self.pages(offset, length)), done))
        if len(self._room) == 1:
            self._fill()

    def _fill(self) -> None:
        """Move the waiting writes' pages into the buffer, in order, while they
        fit; a write is acknowledged once its last page is in (a write larger
        than the buffer goes in as its first pages drain)."""
        model = self.model
        while self._room:
            pieces, done = self._room[0]
            while pieces and self.buffered + pieces[0][1] <= model.write_buffer:
                page, piece = pieces.popleft()
                self.buffered += piece
                self.most_buffered = max(self.most_buffered, self.buffered)
                die, channel = self._place(page)
                transfer = piece / model.channel_rate
                self.stats.transfer += transfer
                if self.ftl:
                    ftl = self.ftl[page % len(self._dies)]
                    channel.serve(transfer, lambda ftl=ftl, page=page, piece=piece: ftl.program(
                        page, lambda: self._programmed(piece)))
                else:
                    channel.serve(transfer, lambda die=die, piece=piece: die.serve(
                        model.program_latency, lambda: self._programmed(piece), _PROGRAM))
            if pieces:
                return
            self._room.popleft()
            done()

    def _programmed(self, piece: int) -> None:
        self.buffered -= piece
        self._fill()

    def utilisations(self, interval: float) -> dict[str, float]:
        """Mean busy fraction of the dies and of the channels over *interval* s."""
        if interval <= 0:
            return {"flash dies": 0.0, "flash channels": 0.0}
        return {"flash dies": sum(d.busy_time for d in self._dies) / len(self._dies) / interval,
                "flash channels": sum(c.busy_time for c in self._channels)
                / len(self._channels) / interval}

    def results(self, interval: float) -> dict[str, float]:
        """Figures of the measured *interval* (s); utilisation is the dies' mean."""
        self.stats.busy = sum(d.busy_time for d in self._dies) / len(self._dies)
        out = {**self.stats.as_dict(interval), "most_buffered_bytes": self.most_buffered}
        if self.ftl:
            host = sum(f.host_pages for f in self.ftl)
            moved = sum(f.moved_pages for f in self.ftl)
            out.update({"host_pages_programmed": host, "gc_pages_moved": moved,
                        "blocks_erased": sum(f.erases for f in self.ftl),
                        "write_amplification": (host + moved) / host if host else None,
                        "mean_free_blocks": sum(f.mean_free_blocks() for f in self.ftl)
                        / len(self.ftl)})
        return out

    def reset_stats(self) -> None:
        """Start a new measured interval."""
        self.stats = Breakdown()
        self.most_buffered = self.buffered
        for server in (*self._dies, *self._channels):
            server.reset_stats()
        for ftl in self.ftl:
            ftl.reset_stats()
