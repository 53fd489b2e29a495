"""Disk channels: a parallel SCSI bus or an ATA channel shared by several disks.

A command holds the channel in **tenures**, one device at a time. On a SCSI
bus (SCSI-2 section 5) a tenure begins with ARBITRATION: once the bus is
free (BSY and SEL false for a bus settle delay) a device waits the bus free
delay, asserts BSY and its ID, waits the arbitration delay, and wins if no
higher-priority ID is on the bus; the winner waits a bus clear and a bus
settle delay and SELECTs (or RESELECTs) its peer, which answers with BSY.
Each information phase begins with a phase change (a bus settle delay);
message, command and status bytes move asynchronously, data at the bus's
synchronous rate. A read or write is two tenures when the target may
disconnect:

- the initiator's: arbitration, selection, MESSAGE OUT (IDENTIFY and a
  two-byte SIMPLE QUEUE TAG), COMMAND (a 10-byte READ(10) or WRITE(10)
  CDB), for a write DATA OUT, then MESSAGE IN (SAVE DATA POINTERS after data,
  DISCONNECT): the bus is free while the drive seeks, rotates and moves its
  media;
- the target's: arbitration, reselection, MESSAGE IN (IDENTIFY and the tag),
  for a read DATA IN, STATUS, MESSAGE IN (COMMAND COMPLETE).

Priority in arbitration is by SCSI ID: 7 highest down to 0, then 15 down to
8 on a wide bus (SPI). A device that finds the bus free takes it at once;
devices that wait for it compete at the next BUS FREE. Without disconnect
(SCSI with it off, and every ATA channel) a command is one tenure, held
through the drive's work. An ATA command (ATA/ATAPI-4) writes seven
command-block registers, starts an Ultra DMA burst for its data, and ends
with one status read; master and slave take turns, first come first served.

Data goes from the drive's buffer once the drive has it (a read) or into it
before the drive works (a write): the drive's buffer stands between media
and bus, and a drive does not stream a read onto the bus while its media
moves (a simplification: drives of the period could reconnect early, at a
buffer-full ratio). When the channel's host adapter sits on a host's I/O bus,
every data phase is also a DMA over that bus, running alongside it; the
phase ends when both have.
"""

from __future__ import annotations

from collections.abc import Callable
from heapq import heappop, heappush
from typing import Any

from fcsim.engine.simulation import Simulation
from fcsim.host.bus import IoBus
from fcsim.storage.channel_model import ChannelModel
from fcsim.storage.disk import Disk

ADAPTER_ID = 7
"""The host adapter's SCSI ID, the highest priority (the usual setting)."""
IDENTIFY_AND_TAG = 3
"""MESSAGE bytes after (re)selection: IDENTIFY and a SIMPLE QUEUE TAG message (2 bytes)."""
CDB = 10
"""COMMAND bytes: a READ(10) or WRITE(10) command descriptor block."""
TASKFILE = 7
"""Command-block registers an ATA READ/WRITE DMA command writes."""


def priority(scsi_id: int) -> int:
    """Arbitration priority of *scsi_id*, larger wins: 7 .. 0, then 15 .. 8 (SPI)."""
    return scsi_id if scsi_id < 8 else scsi_id - 16


class Channel:
    """The channel *model* named *name*; its host adapter (SCSI ID *adapter_id*)
    moves data over *dma*, a host's I/O bus (None: no host bus modelled).
    *log*, when a list, receives (start, end, address) of every tenure."""

    def __init__(self, sim: Simulation, name: str, model: ChannelModel,
                 dma: IoBus | None = None, adapter_id: int = ADAPTER_ID) -> None:
        self.sim, self.name, self.model, self.dma = sim, name, model, dma
        self.adapter_id = adapter_id
        self.busy_time = 0.0
        self.log: list[tuple[float, float, int]] | None = None
        self._waiting: list[tuple[int, int, int, Callable[[], None]]] = []
        self._ticket = 0
        self._busy = False
        self._held_since = 0.0
        self._holder = -1
        m = model
        if m.kind == "scsi":
            phase, byte = m.bus_settle_delay, m.async_byte_time
            arbitration = (m.bus_settle_delay + m.bus_free_delay + m.arbitration_delay
                           + m.bus_clear_delay + m.bus_settle_delay)
            selection = 4 * m.deskew_delay + m.bus_settle_delay + m.selection_response
            self.command_time = (arbitration + selection + phase + IDENTIFY_AND_TAG * byte
                                 + phase + CDB * byte)
            self.disconnect_time = phase + byte
            self.saved_pointers_time = byte
            self.reconnect_time = arbitration + selection + phase + IDENTIFY_AND_TAG * byte
            self.data_setup = phase
            self.status_time = 2 * (phase + byte)
        else:
            self.command_time = TASKFILE * m.register_cycle
            self.disconnect_time = self.saved_pointers_time = self.reconnect_time = 0.0
            self.data_setup = m.burst_setup
            self.status_time = m.register_cycle

    # -- holding the channel ---------------------------------------------------------------

    def _request(self, address: int, start: Callable[[], None]) -> None:
        """*start()* once the device at *address* holds the channel."""
        if not self._busy:
            self._grant(address, start)
            return
        rank = priority(address) if self.model.kind == "scsi" else 0
        self._ticket += 1
        heappush(self._waiting, (-rank, self._ticket, address, start))

    def _grant(self, address: int, start: Callable[[], None]) -> None:
        self._busy = True
        self._held_since = self.sim.now
        self._holder = address
        start()

    def _release(self) -> None:
        now = self.sim.now
        self.busy_time += now - self._held_since
        if self.log is not None:
            self.log.append((self._held_since, now, self._holder))
        self._busy = False
        if self._waiting:
            _, _, address, start = heappop(self._waiting)
            self._grant(address, start)

    def _phases(self, before: float, nbytes: int, after: float,
                then: Callable[[], None]) -> None:
        """Hold on for *before* s, a data phase of *nbytes* (with the adapter's
        DMA of them over the host bus alongside), then *after* s; *then()*."""
        data = nbytes / self.model.data_rate if nbytes else 0.0
        call_later = self.sim.call_later
        if not nbytes or self.dma is None:
            call_later(before + data + after, lambda _e: then())
            return
        left = [2]

        def one(_e: object = None) -> None:
            left[0] -= 1
            if left[0] == 0:
                call_later(after, lambda _e: then())
        call_later(before + data, one)
        dma = self.dma
        call_later(before, lambda _e: dma.transfer(nbytes, one))

    # -- commands ------------------------------------------------------------------------------

    def command(self, address: int, disk: Disk, write: bool, offset: int, length: int,
                done: Callable[[float], None]) -> None:
        """Send a read or write of *length* bytes at *offset* to *disk* at
        *address*; *done(channel_s)* at its end, with the time the command
        spent waiting for and holding the channel, less the drive's own."""
        asked = self.sim.now
        device = [0.0]

        def finished() -> None:
            self._release()
            done(self.sim.now - asked - device[0])

        def disk_done(began: float) -> None:
            device[0] = self.sim.now - began
            after = self.status_time
            if self.model.disconnect:
                self._request(address, lambda: self._phases(
                    self.reconnect_time + (0.0 if write else self.data_setup),
                    0 if write else length, after, finished))
            else:
                self._phases(0.0 if write else self.data_setup, 0 if write else length,
                             after, finished)

        def to_disk() -> None:
            began = self.sim.now
            disk.submit(write, offset, length, lambda: disk_done(began))

        def connected() -> None:
            before = self.command_time + (self.data_setup if write else 0.0)
            if self.model.disconnect:
                after = self.disconnect_time + (self.saved_pointers_time if write else 0.0)

                def disconnected() -> None:
                    self._release()
                    to_disk()
                self._phases(before, length if write else 0, after, disconnected)
            else:
                self._phases(before, length if write else 0, 0.0, to_disk)
        self._request(self.adapter_id, connected)

    def overhead(self, write: bool) -> float:
        """Channel time of one uncontended command besides its data, s: the
        phases of its tenures (the bus's own per-command cost)."""
        setup = self.data_setup
        if not self.model.disconnect:
            return self.command_time + setup + self.status_time
        connect = self.command_time + self.disconnect_time + (
            setup + self.saved_pointers_time if write else 0.0)
        return connect + self.reconnect_time + (0.0 if write else setup) + self.status_time

    def results(self, interval: float) -> dict[str, Any]:
        """The channel's figures over *interval* s."""
        return {"model": self.model.name,
                "utilisation": self.busy_time / interval if interval > 0 else 0.0}

    def reset_stats(self) -> None:
        """Start a new measured interval (a tenure under way counts from now)."""
        self.busy_time = 0.0
        if self._busy:
            self._held_since = self.sim.now
