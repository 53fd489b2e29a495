"""Disk channel models: parallel SCSI buses and ATA channels, each value with
its source (``models/disk-channels/<name>.toml``).

A SCSI bus is described by the timing of the SCSI-2 / SPI standards (the
delays of arbitration, selection and phase changes) and its synchronous data
rate; an ATA channel by its register cycle and Ultra DMA timing. How the
phases are put together is :mod:`fcsim.storage.channel`'s.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fcsim.catalog import ModelFile, read_model, sourced
from fcsim.schema.fields import Flag, Time, choice, integer, number
from fcsim.schema.section import REQUIRED, key

KINDS = ("scsi", "ata")
"""The kinds of channel: a parallel SCSI bus, an ATA (IDE) channel."""


@dataclass(frozen=True)
class ChannelModel:
    """A disk channel.

    *kind*: ``scsi`` or ``ata``. *data_rate*: bytes/s in a data phase
    (synchronous SCSI transfers, Ultra DMA bursts). *width*: data bus bits;
    on SCSI the bus has as many IDs (8 narrow, 16 wide), one of them the host
    adapter's. *disconnect*: SCSI targets give up the bus while they seek
    (ATA never does: a command holds the channel to its end).

    SCSI timing, s (SCSI-2 section 5.2): *bus_settle_delay*,
    *bus_free_delay*, *arbitration_delay*, *bus_clear_delay*,
    *deskew_delay*; *selection_response*: a device's time to answer its
    selection or reselection with BSY (at most the 200 us selection abort
    time); *async_byte_time*: one byte of the message, command and status
    phases, which SCSI moves asynchronously (REQ/ACK handshake).

    ATA timing, s: *register_cycle*: one PIO access to a command block
    register; *burst_setup*: from the start of an Ultra DMA burst to its
    first data strobe. *sources*: provenance.
    """

    name: str
    kind: str
    data_rate: float
    width: int = 8
    disconnect: bool = True
    bus_settle_delay: float = 0.0
    bus_free_delay: float = 0.0
    arbitration_delay: float = 0.0
    bus_clear_delay: float = 0.0
    deskew_delay: float = 0.0
    selection_response: float = 0.0
    async_byte_time: float = 0.0
    register_cycle: float = 0.0
    burst_setup: float = 0.0
    sources: dict[str, str] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"{self.name}: kind must be one of {', '.join(KINDS)}")
        if self.kind == "scsi" and self.width not in (8, 16):
            raise ValueError(f"{self.name}: a SCSI bus is 8 (narrow) or 16 (wide) bits wide")
        if self.kind == "ata" and self.disconnect:
            raise ValueError(f"{self.name}: ATA devices do not disconnect (disconnect = false)")

    @property
    def devices(self) -> int:
        """Disks the channel can hold: the SCSI IDs less the host adapter's, or
        an ATA channel's master and slave."""
        return self.width - 1 if self.kind == "scsi" else 2

    @property
    def ids(self) -> int:
        """Addresses on the channel: SCSI IDs 0 .. width-1, ATA device 0 and 1."""
        return self.width if self.kind == "scsi" else 2


def _entry(help: str, value: Any, required: bool = False) -> Any:
    return key(REQUIRED if required else None, help,
               {"value": value, "source": "standard"})


Kind = sourced(choice({k: k for k in KINDS}), "ChannelKind")
Rate = sourced(number("a number > 0 (bytes/s)", above=True), "BytesPerSecond")
Width = sourced(integer(8, 16, "8 or 16 (data bus bits)"), "Width")
Delay = sourced(Time, "Time")
Yes = sourced(Flag, "Flag")


class ChannelFile(ModelFile):
    """A disk channel model file (`models/disk-channels/<name>.toml`), read into
    `fcsim.storage.channel_model.ChannelModel`."""

    where = "in a disk channel model file"
    defaults_from = ChannelModel

    kind: Kind = _entry("The kind of channel: scsi (parallel SCSI bus) or ata (IDE).",
                        "scsi", True)
    data_rate: Rate = _entry("Bytes/s in a data phase (synchronous SCSI, Ultra DMA).",
                             40e6, True)
    width: Width = _entry("Data bus bits: 8 (narrow SCSI, 8 IDs) or 16 (wide SCSI, 16 IDs; "
                          "ATA).", 16)
    disconnect: Yes = _entry("SCSI targets give up the bus while they seek.", True)
    bus_settle_delay: Delay = _entry("SCSI bus settle delay, s.", "400 ns")
    bus_free_delay: Delay = _entry("SCSI bus free delay, s.", "800 ns")
    arbitration_delay: Delay = _entry("SCSI arbitration delay, s.", "2.4 us")
    bus_clear_delay: Delay = _entry("SCSI bus clear delay, s.", "800 ns")
    deskew_delay: Delay = _entry("SCSI deskew delay, s.", "45 ns")
    selection_response: Delay = _entry("A device's time to answer (re)selection with BSY, "
                                       "s.", "1 us")
    async_byte_time: Delay = _entry("One asynchronous byte (message, command, status), s.",
                                    "250 ns")
    register_cycle: Delay = _entry("ATA: one PIO command-block register access, s.",
                                   "120 ns")
    burst_setup: Delay = _entry("ATA: start of an Ultra DMA burst to its first strobe, s.",
                                "1.7 us")


def load_channel_model(name: str, directory: Path | None = None) -> ChannelModel:
    """The disk channel model *name* (``models/disk-channels/<name>.toml``)."""
    values, sources = read_model("disk-channels", name, ChannelFile, directory)
    try:
        return ChannelModel(name=name, sources=sources, **values)
    except ValueError as error:
        raise ValueError(f"disk channel model {name!r}: {error}") from None
