"""Disks on a node's own channels: a host's local disks (a dd on the host reads
them through its block layer, no Fibre Channel in between) and a storage
server whose FCP target serves them, striped, as one logical unit (a JBOD on
a SCSI bus, the Slice block servers' disks).

A disk on a channel is named ``<channel>.<address>``: ``scsi0.0`` is SCSI ID
0 on channel ``scsi0``, ``ide0.1`` the slave of channel ``ide0``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fcsim.engine.simulation import Simulation
from fcsim.fc4.fcp import GOOD
from fcsim.host.block import Volume
from fcsim.host.bus import IoBus
from fcsim.host.request_queue import Status
from fcsim.storage.channel import Channel
from fcsim.storage.channel_model import ChannelModel
from fcsim.storage.device_model import DiskModel
from fcsim.storage.disk import Breakdown, Disk

MAXPHYS = 128 * 1024
"""FreeBSD 4's largest raw transfer, bytes (``sys/i386/include/param.h``): the
default largest request of a local disk."""


@dataclass(frozen=True)
class ChannelConfig:
    """A channel *name* of *model* on a node, with *disks* at addresses *ids*
    (SCSI IDs; ATA 0 master, 1 slave) and its host adapter at SCSI ID
    *adapter_id*."""

    name: str
    model: ChannelModel
    disks: tuple[DiskModel, ...]
    ids: tuple[int, ...]
    adapter_id: int = 7

    @property
    def disk_names(self) -> tuple[str, ...]:
        """The names of its disks, ``<channel>.<address>``."""
        return tuple(f"{self.name}.{i}" for i in self.ids)


@dataclass(frozen=True)
class BlockConfig:
    """A node's block layer: the *queue_depth* it gives each device, its
    largest request *max_request* (bytes), request merging (*merge*) and
    C-LOOK ordering (*elevator*). None: a local disk's own queue depth and
    :data:`MAXPHYS`; for an FCP target, no limit (every request goes to the
    initiator at once, whole)."""

    queue_depth: int | None = None
    max_request: int | None = None
    merge: bool = True
    elevator: bool = True


@dataclass(frozen=True)
class LocalTarget:
    """An FCP target's logical unit made of its node's local *disks*, striped in
    grains of *stripe* bytes when more than one; *capacity* bytes; at most
    *queue_depth* commands in its task set."""

    name: str
    disks: tuple[str, ...]
    stripe: int | None
    capacity: int
    queue_depth: int = 256


class ChannelDisk:
    """*disk* at *address* on *channel*, named *name*: a block device of its node."""

    def __init__(self, name: str, disk: Disk, channel: Channel, address: int) -> None:
        self.name, self.disk, self.channel, self.address = name, disk, channel, address
        self.channel_time = 0.0
        self.commands = 0

    @property
    def model(self) -> DiskModel:
        """The drive's model."""
        return self.disk.model

    def login(self, then: Callable[[], None]) -> None:
        """Nothing to log in to: *then()*."""
        then()

    def submit(self, write: bool, offset: int, length: int, done: Status) -> None:
        """Read or write over the channel; *done(GOOD)* at the command's end."""
        def finished(channel_s: float) -> None:
            self.channel_time += channel_s
            self.commands += 1
            done(GOOD)
        self.channel.command(self.address, self.disk, write, offset, length, finished)

    def results(self, interval: float) -> dict[str, Any]:
        """The drive's breakdown over *interval* s, with its channel and the mean
        channel time per command (waiting for and holding it, less the drive)."""
        out = self.disk.stats.as_dict(interval)
        out.update({"model": self.model.name, "channel": self.channel.name,
                    "mean_channel_s": self.channel_time / max(self.commands, 1)})
        return out

    def reset_stats(self) -> None:
        """Start a new measured interval."""
        self.disk.reset_stats()
        self.channel_time = 0.0
        self.commands = 0


class LocalDisks:
    """The *channels* of node *node* and their disks; the adapters move data
    over *dma* (the node's host bus; None without a host)."""

    def __init__(self, sim: Simulation, node: str, channels: tuple[ChannelConfig, ...],
                 dma: IoBus | None) -> None:
        self.channels: dict[str, Channel] = {}
        self.disks: dict[str, ChannelDisk] = {}
        for c in channels:
            channel = self.channels[c.name] = Channel(sim, f"{node}.{c.name}", c.model, dma,
                                                      c.adapter_id)
            for name, address, model in zip(c.disk_names, c.ids, c.disks, strict=True):
                self.disks[name] = ChannelDisk(name, Disk(sim, f"{node}.{name}", model),
                                               channel, address)

    def results(self, interval: float) -> dict[str, Any]:
        """Every disk's and channel's figures over *interval* s."""
        return {"disks": {n: d.results(interval) for n, d in self.disks.items()},
                "channels": {n: c.results(interval) for n, c in self.channels.items()}}

    def reset_stats(self) -> None:
        """Start a new measured interval."""
        for disk in self.disks.values():
            disk.reset_stats()
        for channel in self.channels.values():
            channel.reset_stats()


class DiskServer:
    """The logical unit *model* of an FCP target, served by *volume* over the
    node's local *disks* (through its block layer)."""

    def __init__(self, model: LocalTarget, volume: Volume, disks: list[ChannelDisk]) -> None:
        self.model, self.volume, self.disks = model, volume, disks
        self._open = 0
        self.stats = Breakdown()

    @property
    def queued(self) -> int:
        """Commands in service."""
        return self._open

    def submit(self, write: bool, offset: int, length: int, done: Callable[[], None]) -> None:
        """Read or write the logical unit; *done()* when every disk's piece is."""
        self._open += 1
        stats = self.stats
        stats.command(write, length)

        def through(_request: object) -> None:
            self._open -= 1
            done()
        self.volume.submit(write, offset, length, through)

    def utilisations(self, interval: float) -> dict[str, float]:
        """Busy fraction of each disk and each of their channels over *interval* s."""
        def share(busy: float) -> float:
            return busy / interval if interval > 0 else 0.0
        used = {f"disk {d.name}": share(d.disk.stats.busy) for d in self.disks}
        for channel in {id(d.channel): d.channel for d in self.disks}.values():
            used[f"channel {channel.name}"] = share(channel.busy_time)
        return used

    def results(self, interval: float) -> dict[str, Any]:
        """The disks' mean breakdown per disk command, each disk's utilisation and
        the mean channel time per disk command, over *interval* s."""
        member = Breakdown()
        for d in self.disks:
            for name in ("overhead", "seek", "rotation", "transfer", "busy", "commands",
                         "buffer_hits"):
                setattr(member, name, getattr(member, name) + getattr(d.disk.stats, name))
        out = member.as_dict(interval)
        used = self.utilisations(interval)
        commands = sum(d.commands for d in self.disks)
        out.update({"commands": self.stats.commands, "bytes": self.stats.bytes,
                    "bytes_written": self.stats.written, "member_commands": commands,
                    "utilisation": max(used.values()), "utilisations": used,
                    "disk_utilisations": {d.name: used[f"disk {d.name}"] for d in self.disks},
                    "mean_channel_s": sum(d.channel_time for d in self.disks)
                    / max(commands, 1)})
        return out

    def reset_stats(self) -> None:
        """Start a new measured interval (the disks are reset with their node's)."""
        self.stats = Breakdown()
