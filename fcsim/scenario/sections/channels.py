"""The ``[[nodes.channels]]`` tables (disk channels on a node, with their disks)
and the ``[nodes.block]`` table (the node's block layer)."""

from __future__ import annotations

from typing import Any

from fcsim.schema.fields import Flag, Name, choice, integer, is_int, size, value_type
from fcsim.schema.section import Section, key
from fcsim.storage.channel_model import load_channel_model
from fcsim.storage.device_model import load_disk_model


def _channel_model(value: Any) -> Any:
    if not (isinstance(value, str) and value.strip()):
        raise ValueError()
    return load_channel_model(value)


def _disks(value: Any) -> tuple[Any, ...]:
    if not (isinstance(value, list) and value
            and all(isinstance(v, str) and v.strip() for v in value)):
        raise ValueError()
    return tuple(load_disk_model(v) for v in value)


def _ids(value: Any) -> tuple[int, ...]:
    if not (isinstance(value, list) and value and all(is_int(v) and 0 <= v <= 15
                                                      for v in value)
            and len(set(value)) == len(value)):
        raise ValueError()
    return tuple(value)


ChannelName = value_type(object, _channel_model, "the name of a disk channel model in "
                         "models/disk-channels/ or a model file ending in .toml",
                         {"type": "string", "minLength": 1})
DiskModels = value_type(tuple, _disks, "a non-empty list of disk model names from "
                        "models/disks/ (or model files ending in .toml), one per disk",
                        {"type": "array", "items": {"type": "string", "minLength": 1},
                         "minItems": 1})
Addresses = value_type(tuple, _ids, "a non-empty list of distinct addresses 0..15, one per "
                       "disk (SCSI IDs; ATA: 0 master, 1 slave)",
                       {"type": "array", "items": {"type": "integer", "minimum": 0,
                                                   "maximum": 15},
                        "minItems": 1, "uniqueItems": True})
AdapterId = integer(0, 15, "a SCSI ID 0..15")
Depth = integer(1, text="an integer >= 1 (commands)")
Largest = size(512, text="a size with a unit such as '128 KiB', >= 512 B")
Order = choice({"elevator": True, "fifo": False})


class ChannelSection(Section):
    """A disk channel of the node (a SCSI bus, an ATA channel) and the disks on
    it. Its disks are named `<channel>.<address>` (`scsi0.0`: SCSI ID 0 on
    `scsi0`); a job on the node addresses them with `to`, and `target_disks`
    serves them over FC. When the node has a host, the channel's adapter moves
    every byte over the host's I/O bus."""

    where = "in [[nodes.channels]]"

    name: Name = key(help="The channel's name, unique on its node; its disks are named "
                     "<name>.<address>.", example="scsi0")
    model: ChannelName = key(help="The channel: a model in models/disk-channels/ "
                             "(ultra-scsi, ultra-wide-scsi, ultra-ata-33) or a model file "
                             "path ending in .toml.", example="ultra-wide-scsi")
    disks: DiskModels = key(help="The disks on the channel, one disk model each, in "
                            "address order.", example=["seagate-medalist-pro-st39140w"])
    ids: Addresses = key(None, "Each disk's address: its SCSI ID (arbitration priority "
                         "7 highest .. 0, then 15 .. 8) or ATA 0 master / 1 slave "
                         "(default: 0, 1, 2, ... skipping the host adapter's ID).", [0, 1])
    adapter_id: AdapterId = key(7, "SCSI only: the host adapter's SCSI ID (7, the highest "
                                "priority, as adapters are usually set).", 7)


class BlockSection(Section):
    """The node's block layer: one request queue per device its jobs (or its
    target) address, merging adjacent requests and cutting large ones (see
    docs/storage.md)."""

    where = "in [nodes.block]"

    queue_depth: Depth = key(None, "Commands the block layer gives each device at once; "
                             "the rest wait in the queue, where they may merge (default: a "
                             "local disk's own queue depth; an FCP target: no limit).", 32)
    max_request: Largest = key(None, "The largest request, bytes: longer ones are cut, merges "
                               "stop there (default: 128 KiB, FreeBSD's MAXPHYS, for local "
                               "disks; no limit for FCP targets).", "128 KiB")
    merge: Flag = key(True, "Merge a request into a waiting one it continues (same "
                      "direction, adjacent).", False)
    order: Order = key("elevator", "The order waiting requests go to the device: 'elevator' "
                       "(one-way, C-LOOK, as FreeBSD's bufqdisksort) or 'fifo'.", "fifo")
