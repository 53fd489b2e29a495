"""Storage device models: mechanical disks, RAM disks, disk arrays and NVMe
SSDs, each value with its source (``models/disks/<name>.toml``,
``models/ramdisks/<name>.toml``, ``models/arrays/<name>.toml``,
``models/ssds/<name>.toml``)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fcsim.catalog import MODELS_DIR, ModelFile, model_type, read_model, sourced
from fcsim.schema.fields import (
    Count,
    Flag,
    Name,
    PositiveTime,
    Time,
    fraction,
    integer,
    number,
)
from fcsim.schema.section import REQUIRED, key


@dataclass(frozen=True)
class DiskModel:
    """A mechanical disk drive.

    *capacity*: bytes. *rpm*: spindle speed, revolutions per minute.
    *outer_rate* / *inner_rate*: media transfer rate at the outermost and
    innermost zone, bytes/s (sustained, after servo and ECC overhead), over
    *zones* zones of equal width, each holding data in proportion to its rate.
    *track_to_track*, *average_seek*, *full_stroke*: seek times, s, for one
    cylinder, the mean over random pairs of positions, and the whole stroke
    (settling included, as data sheets give them). *command_overhead*: the
    controller's time per command, s. *buffer*: the track buffer, bytes; with
    *read_ahead* the drive keeps reading on after a read, into the buffer, so a
    following sequential read finds its data there. *write_cache*: writes are
    acknowledged once in the buffer and written to the media behind.
    *queue_depth*: commands the drive accepts at once (tagged queueing);
    *reorder*: it serves them shortest positioning time first (else in arrival
    order). *sources*: provenance.
    """

    name: str
    capacity: int
    rpm: float
    outer_rate: float
    inner_rate: float
    track_to_track: float
    average_seek: float
    full_stroke: float
    command_overhead: float = 0.0
    zones: int = 1
    buffer: int = 512 * 1024
    read_ahead: bool = True
    write_cache: bool = False
    queue_depth: int = 32
    reorder: bool = False
    sources: dict[str, str] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        if not 0 < self.inner_rate <= self.outer_rate:
            raise ValueError(f"{self.name}: need 0 < inner_rate <= outer_rate")
        if not 0 <= self.track_to_track <= self.average_seek <= self.full_stroke:
            raise ValueError(f"{self.name}: need track_to_track <= average_seek <= full_stroke")

    @property
    def revolution(self) -> float:
        """Time of one revolution, s."""
        return 60.0 / self.rpm


@dataclass(frozen=True)
class RamDiskModel:
    """A solid-state (RAM) target: every access takes *access_latency* (s) and
    moves its data through the device at *internal_rate* (bytes/s, shared by
    all commands); *capacity* in bytes; *queue_depth* commands at once."""

    name: str
    capacity: int
    access_latency: float
    internal_rate: float
    queue_depth: int = 256
    sources: dict[str, str] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class ArrayModel:
    """A disk array: *disks* drives of model *disk* behind a controller, as RAID
    level *raid* (0: striping; 5: striping with rotating parity) in stripe units
    of *stripe_unit* bytes. The controller takes *controller_overhead* s per
    host command; its write-back *cache* holds that many bytes of writes not
    yet on the disks (0: writes go through); every byte between the
    controller and the drives crosses the shared back-end *channel_rate*
    (bytes/s; an FC-AL loop or SCSI bus). *queue_depth*: host commands at once.

    *cache_block*: the cache block, bytes, the unit in which the controller
    manages its cache: a read's data go out to the host a cache block at a
    time, each as soon as it has crossed the back-end channel (cut-through;
    0: store-and-forward, the data go out once the whole command is in the
    cache). *prefetch*: the read-ahead multiplier: a read that continues the
    one before it (a sequential stream) makes the controller read that many
    times its length ahead into the cache, at most *cache* bytes held
    (0: no read-ahead).
    """

    name: str
    disk: DiskModel
    disks: int
    raid: int
    stripe_unit: int
    controller_overhead: float = 0.0
    cache: int = 0
    channel_rate: float = 100e6
    queue_depth: int = 256
    cache_block: int = 0
    prefetch: int = 0
    sources: dict[str, str] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        if self.raid not in (0, 5):
            raise ValueError(f"{self.name}: raid must be 0 or 5")
        if self.disks < (3 if self.raid == 5 else 1):
            raise ValueError(f"{self.name}: RAID {self.raid} needs at least "
                             f"{3 if self.raid == 5 else 1} disks, got {self.disks}")
        if self.stripe_unit < 512 or self.stripe_unit % 512:
            raise ValueError(f"{self.name}: stripe_unit must be whole 512-byte blocks")
        if self.cache_block and (self.cache_block % 512 or self.stripe_unit % self.cache_block):
            raise ValueError(f"{self.name}: cache_block must be whole 512-byte blocks that "
                             f"divide the stripe_unit ({self.stripe_unit}), got "
                             f"{self.cache_block}")
        if self.prefetch and not self.cache:
            raise ValueError(f"{self.name}: prefetch needs a cache to read ahead into "
                             f"(cache = 0)")

    @property
    def data_disks(self) -> int:
        """Disks' worth of data per stripe (RAID 5 gives one to parity)."""
        return self.disks - (self.raid == 5)

    @property
    def capacity(self) -> int:
        """Bytes the array offers: whole stripes over the data disks."""
        per_disk = self.disk.capacity // self.stripe_unit * self.stripe_unit
        return per_disk * self.data_disks


@dataclass(frozen=True)
class SsdModel:
    """An NVMe solid-state drive (:mod:`fcsim.storage.ssd`): *capacity* in
    bytes; the controller's *controller_latency* per command, s; *channels*
    flash channels of *dies_per_channel* dies each, every die a parallel
    unit; *page_size* bytes per flash page; *read_latency* and
    *program_latency* of one page on a die, s; *channel_rate*, bytes/s, of
    each channel; a DRAM *write_buffer* of that many bytes; *queue_depth*:
    the entries it grants an I/O queue at most (MQES).

    Garbage collection (:mod:`fcsim.storage.flash_translation`) is modelled
    when *pages_per_block* and *blocks_per_die* are set (0: not modelled):
    each die holds *blocks_per_die* erase blocks of *pages_per_block* pages;
    the flash beyond *capacity* is its over-provisioning. A die collects
    (greedy: the closed block with the fewest valid pages) while its free
    blocks are fewer than *gc_threshold* of its blocks; host writes wait
    while they are at most *gc_hard_threshold* of them (at least one block
    is kept for the collector); an erase takes *erase_latency*, s. With
    *preconditioned* the drive starts with every logical page written once,
    in order (else empty)."""

    name: str
    capacity: int
    controller_latency: float
    read_latency: float
    program_latency: float
    channels: int
    dies_per_channel: int
    page_size: int
    channel_rate: float
    write_buffer: int
    queue_depth: int = 1024
    pages_per_block: int = 0
    blocks_per_die: int = 0
    gc_threshold: float = 0.05
    gc_hard_threshold: float = 0.005
    erase_latency: float = 0.0
    preconditioned: bool = False
    sources: dict[str, str] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        if self.write_buffer < self.page_size:
            raise ValueError(f"{self.name}: write_buffer must hold at least one page")
        if bool(self.pages_per_block) != bool(self.blocks_per_die):
            raise ValueError(f"{self.name}: pages_per_block and blocks_per_die go together "
                             "(both 0: no garbage collection)")
        if self.collects and self.gc_blocks <= self.reserve_blocks:
            raise ValueError(f"{self.name}: gc_threshold x blocks_per_die must exceed the "
                             f"blocks host writes leave to the collector "
                             f"({self.reserve_blocks}): give more blocks or a higher "
                             "gc_threshold")
        if self.collects and self.logical_pages_per_die > (
                self.blocks_per_die - self.gc_blocks - 1) * self.pages_per_block:
            raise ValueError(
                f"{self.name}: capacity {self.capacity} B needs {self.logical_pages_per_die} "
                f"pages a die, more than the {self.blocks_per_die - self.gc_blocks - 1} blocks "
                f"of {self.pages_per_block} pages a die holds outside the collector's "
                "free blocks and the open block")

    @property
    def collects(self) -> bool:
        """Whether garbage collection is modelled."""
        return self.pages_per_block > 0

    @property
    def logical_pages(self) -> int:
        """Logical pages of the capacity (a part page counts whole)."""
        return -(-self.capacity // self.page_size)

    @property
    def logical_pages_per_die(self) -> int:
        """Logical pages on the busiest die (page *p* on die *p* mod dies)."""
        return -(-self.logical_pages // self.dies)

    @property
    def gc_blocks(self) -> int:
        """Free blocks of a die below which it collects: the fewest it keeps
        once collection runs (MQSim: GC while free blocks < threshold x blocks)."""
        return math.ceil(self.gc_threshold * self.blocks_per_die)

    @property
    def reserve_blocks(self) -> int:
        """Free blocks of a die host writes leave to the collector."""
        return max(1, math.ceil(self.gc_hard_threshold * self.blocks_per_die))

    @property
    def dies(self) -> int:
        """Parallel units: channels x dies per channel."""
        return self.channels * self.dies_per_channel


@dataclass(frozen=True)
class FlashArrayModel:
    """An all-flash array (:mod:`fcsim.storage.flash_array`): *ssds* drives
    of model *ssd* behind a controller, host data striped over them in
    *stripe_unit* bytes (no parity). Each host command takes the
    controller's *controller_latency* (s, overlapping, its pipeline) and
    *controller_time* of its processor (s, one command at a time: its I/O
    rate limit). Its write-back *cache* holds that many bytes of writes not
    yet on the drives (0: writes go through to them); with *mirrored* each
    write's data also cross to the partner controller's cache over an
    interconnect of *mirror_rate* bytes/s, then its acknowledgement comes
    back after *mirror_latency* s, before the host's write is acknowledged.
    *queue_depth*: host commands at once."""

    name: str
    ssd: SsdModel
    ssds: int
    stripe_unit: int
    controller_latency: float
    controller_time: float
    cache: int = 0
    mirrored: bool = True
    mirror_rate: float = 7.88e9
    mirror_latency: float = 0.0
    queue_depth: int = 2048
    sources: dict[str, str] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        if self.stripe_unit < 512 or self.stripe_unit % 512:
            raise ValueError(f"{self.name}: stripe_unit must be whole 512-byte blocks")

    @property
    def capacity(self) -> int:
        """Bytes the array offers: whole stripe units of every drive."""
        return self.ssd.capacity // self.stripe_unit * self.stripe_unit * self.ssds


def _entry(help: str, value: Any, required: bool = False) -> Any:
    return key(REQUIRED if required else None, help,
               {"value": value, "source": "data sheet"})


Bytes = sourced(integer(1, text="an integer >= 1 (bytes)"), "Bytes")
Rpm = sourced(number("a number > 0 (revolutions per minute)", above=True), "Rpm")
Rate = sourced(number("a number > 0 (bytes/s)", above=True), "BytesPerSecond")
Delay = sourced(Time, "Time")
Latency = sourced(PositiveTime, "PositiveTime")
Commands = sourced(Count, "Count")
Yes = sourced(Flag, "Flag")
Pages = sourced(integer(0, text="an integer >= 0"), "Integer")
SsdName = sourced(Name, "Name")
Share = sourced(fraction("a fraction 0 <= x < 1"), "Fraction")


class DiskFile(ModelFile):
    """A mechanical disk model file (`models/disks/<name>.toml`), read into
    `fcsim.storage.device_model.DiskModel`."""

    where = "in a disk model file"
    defaults_from = DiskModel

    capacity: Bytes = _entry("Formatted capacity, bytes.", 22_000_000_000, True)
    rpm: Rpm = _entry("Spindle speed, revolutions per minute.", 7200, True)
    outer_rate: Rate = _entry("Sustained media rate in the outermost zone, bytes/s.",
                              18e6, True)
    inner_rate: Rate = _entry("Sustained media rate in the innermost zone, bytes/s.",
                              10.5e6, True)
    zones: Commands = _entry("Recording zones, of equal width.", 16)
    track_to_track: Delay = _entry("Seek to the next cylinder, settling included, s.",
                                   "1 ms", True)
    average_seek: Delay = _entry("Mean seek over random pairs of positions, s.", "9 ms", True)
    full_stroke: Delay = _entry("Seek over the whole stroke, s.", "16 ms", True)
    command_overhead: Delay = _entry("Controller time per command, s.", "0.5 ms")
    buffer: Bytes = _entry("Track buffer, bytes.", 524288)
    read_ahead: Yes = _entry("Keep reading on into the buffer after a read.", True)
    write_cache: Yes = _entry("Acknowledge writes once in the buffer.", False)
    queue_depth: Commands = _entry("Commands accepted at once (tagged queueing).", 32)
    reorder: Yes = _entry("Serve queued commands shortest positioning time first.", True)


class RamDiskFile(ModelFile):
    """A RAM disk model file (`models/ramdisks/<name>.toml`), read into
    `fcsim.storage.device_model.RamDiskModel`."""

    where = "in a RAM disk model file"
    defaults_from = RamDiskModel

    capacity: Bytes = _entry("Capacity, bytes.", 64_000_000_000, True)
    access_latency: Latency = _entry("Time from command to data, s.", "15 us", True)
    internal_rate: Rate = _entry("Rate data moves through the device, bytes/s.", 1.6e9, True)
    queue_depth: Commands = _entry("Commands accepted at once.", 256)


Raid = sourced(integer(0, 5, "0 or 5 (RAID level)"), "Raid")
CacheBytes = sourced(integer(0, text="an integer >= 0 (bytes; 0: write-through)"),
                     "CacheBytes")
DiskName = sourced(Name, "Name")
CacheBlockBytes = sourced(integer(0, text="an integer >= 0 (bytes; 0: store-and-forward)"),
                          "CacheBlockBytes")
Multiplier = sourced(integer(0, text="an integer >= 0 (times a read's length; 0: none)"),
                     "Multiplier")


class ArrayFile(ModelFile):
    """A disk array model file (`models/arrays/<name>.toml`), read into
    `fcsim.storage.device_model.ArrayModel`; `disk` names a model in
    `models/disks/`."""

    where = "in an array model file"
    defaults_from = ArrayModel

    disk: DiskName = _entry("The member drives' model in models/disks/.", "fc-disk-10k", True)
    disks: Commands = _entry("Member drives.", 8, True)
    raid: Raid = _entry("RAID level: 0 (striping) or 5 (striping, rotating parity).", 5, True)
    stripe_unit: Bytes = _entry("Bytes per drive per stripe, whole 512-byte blocks.", 65536,
                                True)
    controller_overhead: Delay = _entry("Controller time per host command, s.", "0.1 ms")
    cache: CacheBytes = _entry("Write-back cache for writes not yet on the drives, bytes "
                               "(0: write-through).", 268435456)
    channel_rate: Rate = _entry("Back-end channel between controller and drives, bytes/s.",
                                100e6)
    queue_depth: Commands = _entry("Host commands accepted at once.", 256)
    cache_block: CacheBlockBytes = _entry(
        "Cache block, bytes: a read's data go to the host a cache block at a time as each "
        "crosses the back-end channel (cut-through); whole 512-byte blocks dividing the "
        "stripe unit (0: store-and-forward, once the whole command is in the cache).", 16384)
    prefetch: Multiplier = _entry(
        "Read-ahead multiplier: a read continuing the one before makes the controller read "
        "that many times its length ahead into the cache (0: no read-ahead; needs a cache).",
        1)


class SsdFile(ModelFile):
    """An NVMe SSD model file (`models/ssds/<name>.toml`), read into
    `fcsim.storage.device_model.SsdModel`."""

    where = "in an SSD model file"
    defaults_from = SsdModel

    capacity: Bytes = _entry("Capacity, bytes.", 960_000_000_000, True)
    controller_latency: Delay = _entry("Controller time per command, s.", "10 us", True)
    read_latency: Latency = _entry("Reading one flash page on a die, s.", "75 us", True)
    program_latency: Latency = _entry("Programming one flash page on a die, s.", "750 us",
                                      True)
    channels: Commands = _entry("Flash channels.", 8, True)
    dies_per_channel: Commands = _entry("Dies on each channel (each a parallel unit).", 8,
                                        True)
    page_size: Bytes = _entry("Bytes per flash page.", 8192, True)
    channel_rate: Rate = _entry("Transfer rate of one flash channel, bytes/s.", 333e6, True)
    write_buffer: Bytes = _entry("DRAM write buffer, bytes.", 268435456, True)
    queue_depth: Commands = _entry("Entries granted an I/O queue at most (MQES).", 1024)
    pages_per_block: Pages = _entry("Pages per erase block (0: garbage collection not "
                                    "modelled).", 256)
    blocks_per_die: Pages = _entry("Erase blocks per die, all its planes (0: garbage "
                                   "collection not modelled).", 4096)
    gc_threshold: Share = _entry("A die collects garbage while its free blocks are fewer "
                                 "than this fraction of its blocks.", 0.05)
    gc_hard_threshold: Share = _entry("Host writes to a die wait while its free blocks are "
                                      "at most this fraction of its blocks (at least one).",
                                      0.005)
    erase_latency: Delay = _entry("Erasing one block on a die, s.", "3.8 ms")
    preconditioned: Yes = _entry("The drive starts with every logical page written once, "
                                 "in order (else empty).", True)


class FlashArrayFile(ModelFile):
    """An all-flash array model file (`models/flash-arrays/<name>.toml`), read
    into `fcsim.storage.device_model.FlashArrayModel`; its drives a model of
    `models/ssds/`."""

    where = "in a flash array model file"
    defaults_from = FlashArrayModel

    ssd: SsdName = _entry("The drive model, from models/ssds/.", "mqsim-mlc-8ch", True)
    ssds: Commands = _entry("Drives.", 24, True)
    stripe_unit: Bytes = _entry("Bytes of host data on one drive before the next.", 65536,
                                True)
    controller_latency: Delay = _entry("Controller pipeline time per command, s "
                                       "(commands overlap).", "50 us", True)
    controller_time: Delay = _entry("Controller processor time per command, s (one at a "
                                    "time: its I/O rate limit).", "1 us", True)
    cache: CacheBytes = _entry("Write-back cache, bytes (0: write-through).", 17179869184)
    mirrored: Yes = _entry("Each write is copied to the partner controller's cache before "
                           "it is acknowledged.", True)
    mirror_rate: Rate = _entry("Interconnect to the partner controller, bytes/s.", 7.88e9)
    mirror_latency: Delay = _entry("The partner's acknowledgement of a mirrored write, s.",
                                   "5 us")
    queue_depth: Commands = _entry("Host commands accepted at once.", 2048)


DEVICE_KINDS = ("disks", "ramdisks", "arrays", "ssds", "flash-arrays")
"""The catalog folders of storage devices."""


def load_disk_model(name: str, directory: Path | None = None) -> DiskModel:
    """The disk model *name* (``models/disks/<name>.toml``)."""
    values, sources = read_model("disks", name, DiskFile, directory)
    return DiskModel(name=name, sources=sources, **values)


def load_ramdisk_model(name: str, directory: Path | None = None) -> RamDiskModel:
    """The RAM disk model *name* (``models/ramdisks/<name>.toml``)."""
    values, sources = read_model("ramdisks", name, RamDiskFile, directory)
    return RamDiskModel(name=name, sources=sources, **values)


def load_ssd_model(name: str, directory: Path | None = None) -> SsdModel:
    """The SSD model *name* (``models/ssds/<name>.toml``)."""
    values, sources = read_model("ssds", name, SsdFile, directory)
    return SsdModel(name=name, sources=sources, **values)


def load_flash_array_model(name: str, directory: Path | None = None) -> FlashArrayModel:
    """The all-flash array model *name* (``models/flash-arrays/<name>.toml``),
    its drive model from ``models/ssds/`` (or beside *directory*)."""
    values, sources = read_model("flash-arrays", name, FlashArrayFile, directory)
    folder = directory.parent / "ssds" if directory is not None else None
    try:
        ssd = load_ssd_model(values.pop("ssd"), folder)
        return FlashArrayModel(name=name, ssd=ssd, sources=sources, **values)
    except ValueError as error:
        raise ValueError(f"flash array model {name!r}: {error}") from None


def load_array_model(name: str, directory: Path | None = None) -> ArrayModel:
    """The array model *name* (``models/arrays/<name>.toml``), its member disk
    model from ``models/disks/`` (or beside *directory*)."""
    values, sources = read_model("arrays", name, ArrayFile, directory)
    folder = directory.parent / "disks" if directory is not None else None
    try:
        disk = load_disk_model(values.pop("disk"), folder)
        return ArrayModel(name=name, disk=disk, sources=sources, **values)
    except ValueError as error:
        raise ValueError(f"array model {name!r}: {error}") from None


Device = DiskModel | RamDiskModel | ArrayModel | SsdModel | FlashArrayModel
"""A storage device model."""
_LOADERS = {"disks": load_disk_model, "ramdisks": load_ramdisk_model,
            "arrays": load_array_model, "ssds": load_ssd_model,
            "flash-arrays": load_flash_array_model}
_SCHEMAS: dict[str, type[ModelFile]] = {"disks": DiskFile, "ramdisks": RamDiskFile,
                                        "arrays": ArrayFile, "ssds": SsdFile,
                                        "flash-arrays": FlashArrayFile}


def load_device_model(name: str) -> Device:
    """A storage device model by catalog name, from ``models/disks/``,
    ``models/ramdisks/``, ``models/arrays/``, ``models/ssds/`` or
    ``models/flash-arrays/``; a model file path (ending in
    .toml) is read as the type it declares (``type``), or else as the type its
    keys belong to, or on a tie as the type its folder names
    (:func:`fcsim.catalog.model_type`)."""
    if name.endswith(".toml"):
        return _LOADERS[model_type(name, _SCHEMAS)](name)
    for kind, load in _LOADERS.items():
        if (MODELS_DIR / kind / f"{name}.toml").is_file():
            return load(name)
    if "/" in name:
        return load_disk_model(name)  # the catalog's own message
    known = sorted(p.stem for kind in DEVICE_KINDS for p in (MODELS_DIR / kind).glob("*.toml"))
    raise ValueError(f"no disk, RAM disk, array, SSD or flash array model {name!r}; "
                     f"known: {', '.join(known)}")
