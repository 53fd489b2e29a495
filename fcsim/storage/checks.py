"""Checks across keys of block storage: each of a node's disk channels holds
no more disks than it has addresses for, addresses are real and distinct,
`target_disks` names disks the node has, and a fio or dd job addresses
targets or its node's disks, in whole blocks, on a volume it fits."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fcsim.fabric.build import fabrics
from fcsim.fc3.ports import port_names
from fcsim.fc4.fcp import BLOCK
from fcsim.host.block import striped_capacity
from fcsim.schema.errors import Problem, count, given
from fcsim.schema.rules import unique
from fcsim.storage.config import (
    MARGINAL_FPIN,
    NON_OPTIMIZED,
    OPTIMIZED,
    DdSection,
    FioSection,
    unit_capacity,
)

_SERVING = (OPTIMIZED, NON_OPTIMIZED)
"""The ANA states in which a path carries I/O."""


def local_disks(node: Any) -> dict[str, Any]:
    """The disks on the channels of node section *node*: name -> disk model
    (addresses as the channel gives them, else 0, 1, 2, ... skipping the
    adapter's SCSI ID; a channel over its capacity names only what fits)."""
    out = {}
    for c in getattr(node, "channels", ()):
        ids = c.ids or [i for i in range(c.model.ids)
                        if c.model.kind == "ata" or i != c.adapter_id]
        for address, model in zip(ids, c.disks, strict=False):
            out[f"{c.name}.{address}"] = model
    return out


def channels(nodes: Any, raws: list[dict[str, Any]]) -> Iterator[Problem]:
    """Every problem of the nodes' channels and served disks."""
    for i, node in enumerate(nodes):
        if not hasattr(node, "channels"):
            continue
        raw = raws[i]
        yield from unique(raw.get("channels", []), f"nodes[{i}].channels", "name",
                          [c.name for c in node.channels])
        for j, c in enumerate(node.channels):
            yield from _channel(c, raw["channels"][j], f"nodes[{i}].channels[{j}]")
        if hasattr(node, "target_disks"):
            yield from _served(node, raw, f"nodes[{i}]")


def _channel(c: Any, raw: dict[str, Any], path: str) -> Iterator[Problem]:
    model = c.model
    if len(c.disks) > model.devices:
        what = (f"at most {model.devices} disks on {model.name} ({model.ids} SCSI IDs, one "
                "the host adapter's)" if model.kind == "scsi" else
                f"at most 2 disks on an ATA channel (master and slave; {model.name})")
        yield Problem(f"{path}.disks", f"given {count(len(c.disks), 'disk')}", what)
    if c.ids is not None:
        if len(c.ids) != len(c.disks):
            yield Problem(f"{path}.ids", given(raw["ids"]),
                          f"one address per disk ({count(len(c.disks), 'disk')})")
        for k, address in enumerate(c.ids):
            if address >= model.ids:
                yield Problem(f"{path}.ids[{k}]", given(address),
                              f"an address 0..{model.ids - 1} on {model.name}")
            elif model.kind == "scsi" and address == c.adapter_id:
                yield Problem(f"{path}.ids[{k}]", given(address),
                              f"an ID other than the host adapter's ({c.adapter_id})")
    if model.kind == "scsi" and c.adapter_id >= model.ids:
        yield Problem(f"{path}.adapter_id", given(raw["adapter_id"]),
                      f"a SCSI ID 0..{model.ids - 1} on {model.name}")


def _served(node: Any, raw: dict[str, Any], path: str) -> Iterator[Problem]:
    if node.target_disks is None:
        for k in ("target_stripe", "target_queue_depth"):
            if k in raw:
                yield Problem(f"{path}.{k}", given(raw[k]), "no target_stripe or "
                              "target_queue_depth without target_disks")
        return
    if node.target is not None:
        yield Problem(f"{path}.target_disks", given(raw["target_disks"]),
                      "either target (a device model) or target_disks (the node's own "
                      "disks), not both")
    disks = local_disks(node)
    for k, name in enumerate(node.target_disks):
        if name not in disks:
            where = (f"{path}.target_disks" if len(node.target_disks) == 1
                     else f"{path}.target_disks[{k}]")
            yield Problem(where, given(name), "a disk of this node's channels: "
                          + (", ".join(map(repr, disks)) or "it has none ([[nodes.channels]])"))
    if len(node.target_disks) > 1 and node.target_stripe is None:
        yield Problem(f"{path}.target_stripe", "missing", "a stripe grain such as '32 KiB' "
                      "for a target over several disks")
    if node.target_stripe is not None and node.target_stripe % BLOCK:
        yield Problem(f"{path}.target_stripe", given(raw["target_stripe"]),
                      f"a whole number of {BLOCK}-byte blocks")


def namespaces(node: Any, raw: dict[str, Any], path: str) -> Iterator[Problem]:
    """A node with several logical units is a target, each unit at least a block."""
    if node.namespaces == 1:
        return
    target = node.target if node.target is not None else getattr(node, "target_disks", None)
    if target is None:
        yield Problem(f"{path}.namespaces", given(raw["namespaces"]), "1 on a node that is "
                      "not a target (namespaces go with target or target_disks)")
    elif node.target is not None and unit_capacity(node.target.capacity,
                                                   node.namespaces) < BLOCK:
        yield Problem(f"{path}.namespaces", given(raw["namespaces"]),
                      f"at most {node.target.capacity // BLOCK} (each namespace at least "
                      f"one {BLOCK}-byte block of {node.target.name})")


def _unit(w: FioSection, raw: dict[str, Any], path: str,
          units: dict[str, int]) -> Iterator[Problem]:
    """lun goes with FCP, namespace with NVMe, each naming a unit every
    target of the job has."""
    nvme = w.protocol == "nvme"
    key, other = ("namespace", "lun") if nvme else ("lun", "namespace")
    if other in raw:
        yield Problem(f"{path}.{other}", given(raw[other]),
                      f"no {other} with protocol = '{w.protocol}' (use {key})")
    fewest = min((units.get(t, 1) for t in w.destination), default=1)
    unit = w.namespace if nvme else w.lun
    if unit > fewest - (not nvme):
        name = min(w.destination, key=lambda t: units.get(t, 1))
        allowed = f"1..{fewest}" if nvme else f"0..{fewest - 1}"
        yield Problem(f"{path}.{key}", given(raw[key]),
                      f"{'an NSID' if nvme else 'a LUN'} {allowed} ({name} has "
                      f"{count(fewest, 'namespace')}: key namespaces in [[nodes]])")


def block_job(w: FioSection | DdSection, raw: dict[str, Any], path: str,
              targets: dict[str, Any], own: dict[str, Any],
              units: dict[str, int] | None = None) -> Iterator[Problem]:
    """Every problem of the fio or dd job *w* at *path* (*raw* its table): it
    addresses FCP targets (*targets*: node name -> device model; *units*:
    node name -> its logical units, 1 if not given) or its node's own disks
    (*own*: disk name -> disk model), a volume over several has a stripe,
    the logical unit it names exists, and a job fits the targets' queues and
    capacity (a unit's share of it)."""
    units = units or {}
    if isinstance(w, FioSection):
        yield from _unit(w, raw, path, units)
    devices, remote = [], []
    for j, end in enumerate(w.destination):
        where = f"{path}.to" if len(w.destination) == 1 else f"{path}.to[{j}]"
        if end in own:
            devices.append(own[end])
        elif end not in targets:
            mine = f", or a disk of {w.source}'s channels ({', '.join(own)})" if own else ""
            yield Problem(where, given(end), "an FCP target node (key 'target' or "
                          f"'target_disks' in [[nodes]]){mine}")
        else:
            devices.append(_Unit(targets[end], units.get(end, 1)))
            remote.append(targets[end])
    if len(devices) < len(w.destination):
        return
    if w.bs % BLOCK:
        yield Problem(f"{path}.bs", given(raw["bs"]),
                      f"a whole number of {BLOCK}-byte blocks (READ(10)/WRITE(10) count them)")
    if len(devices) > 1 and w.stripe is None:
        yield Problem(f"{path}.stripe", "missing", "a stripe grain such as '32 KiB' for a "
                      "volume over several targets")
    if w.stripe is not None and w.stripe % BLOCK:
        yield Problem(f"{path}.stripe", given(raw["stripe"]),
                      f"a whole number of {BLOCK}-byte blocks")
    if isinstance(w, DdSection):
        yield from _dd(w, raw, path, devices)
        return
    if isinstance(w, FioSection) and w.protocol == "nvme":
        yield from _nvme(w, raw, path, remote, devices)
        return
    for name in ("queues", "queue_size", "first_burst"):
        if isinstance(w, FioSection) and name in raw:
            yield Problem(f"{path}.{name}", given(raw[name]), "no such key with protocol = "
                          "'fcp' (it is an NVMe setting: set protocol = 'nvme')")
    deepest = max(w.iodepth)
    depth = min((d.queue_depth for d in remote), default=deepest)
    if deepest > depth:
        yield Problem(f"{path}.iodepth", given(deepest),
                      f"at most the target's queue depth ({depth}, "
                      f"{min(remote, key=lambda d: d.queue_depth).name})")
    capacity = striped_capacity([d.capacity for d in devices], w.stripe or BLOCK)
    end = w.offset + (w.size if w.size is not None else capacity - w.offset)
    if end > capacity or end - w.offset < w.bs:
        key = "size" if "size" in raw else "offset"
        yield Problem(f"{path}.{key}", given(raw.get(key, 0)),
                      f"a region of at least bs that fits the device's {capacity} "
                      f"bytes ({', '.join(d.name for d in devices)})")


class _Unit:
    """A logical unit of a target's device: its name, queue depth and share of
    its capacity."""

    def __init__(self, device: Any, units: int) -> None:
        self.name, self.queue_depth = device.name, device.queue_depth
        self.capacity = unit_capacity(device.capacity, units)


def _dd(w: DdSection, raw: dict[str, Any], path: str, devices: list[Any]) -> Iterator[Problem]:
    """skip goes with reading the device (dd's input), seek with writing it
    (dd's output), and every block dd moves lies on the device."""
    key, wrong = ("seek", "skip") if w.direction == "write" else ("skip", "seek")
    if wrong in raw:
        yield Problem(f"{path}.{wrong}", given(raw[wrong]),
                      f"no {wrong} with direction = '{w.direction}': the device is dd's "
                      f"{'output' if w.direction == 'write' else 'input'}, offset by {key}")
        return
    capacity = striped_capacity([d.capacity for d in devices], w.stripe or BLOCK)
    if w.offset + w.count * w.bs > capacity:
        where = key if key in raw else "count"
        yield Problem(f"{path}.{where}", given(raw[where]),
                      f"a dd that ends on the device: ({key} + count) x bs <= its "
                      f"{capacity} bytes ({', '.join(d.name for d in devices)})")


def _nvme(w: FioSection, raw: dict[str, Any], path: str, remote: list[Any],
          devices: list[Any]) -> Iterator[Problem]:
    """The problems of an NVMe job: it runs in Class 3 to FC targets."""
    if len(remote) < len(devices):
        yield Problem(f"{path}.to", given(raw.get("to")), "FC target nodes (key 'target' "
                      "in [[nodes]]): NVMe over FC does not reach a node's own disks")
    if w.cls != 3:
        yield Problem(f"{path}.class", given(raw.get("class")), "3 (this model runs FC-NVMe "
                      "in Class 3 only)")


def multipath(nodes: Any, raws: list[dict[str, Any]], links: Any,
              workloads: Any, fpin: Any = None) -> Iterator[Problem]:
    """Every problem of the fabric's multipath hosts and ALUA targets: a
    target's non-optimised ports and ANA states name its own N_Ports, a
    host's job has a path (one of its N_Ports and one of the target's on one
    fabric) to each target, over FC-NVMe one whose target port is optimized
    or non-optimized (else its commands would wait for an ANA change that
    never comes), an NVMe job from a host without multipath does not go to a
    target with a port in another ANA state (it would ignore the state), and
    ``marginal_pathgroups = "fpin"`` is asked only of a fabric
    that sends Link Integrity FPINs (``[fpin] link_integrity = true``, *fpin*):
    without them it could never act, a setting that silently does nothing."""
    by_name = {n.name: n for n in nodes}
    for i, node in enumerate(nodes):
        mp = node.multipath
        if (mp is not None and mp.marginal_pathgroups == MARGINAL_FPIN
                and (fpin is None or not fpin.link_integrity)):
            yield Problem(f"nodes[{i}].multipath.marginal_pathgroups", given("fpin"),
                          "'off' in a fabric that sends no Link Integrity FPIN (or "
                          "[fpin] link_integrity = true)")
        names = port_names(node.name, node.ports)
        for j, port in enumerate(node.non_optimized_ports or ()):
            if node.target is None and node.target_disks is None:
                yield Problem(f"nodes[{i}].non_optimized_ports", given(raws[i][
                    "non_optimized_ports"]), "given only for an FCP target (key target or "
                    "target_disks)")
                break
            if port not in names:
                yield Problem(f"nodes[{i}].non_optimized_ports[{j}]", given(port),
                              f"one of the node's N_Ports ({', '.join(names)})")
        for port, _state in getattr(node, "ana_states", None) or ():
            if node.target is None:
                yield Problem(f"nodes[{i}].ana_states", given(raws[i]["ana_states"]),
                              "given only for a target (key target)")
                break
            if port not in names:
                yield Problem(f"nodes[{i}].ana_states.{port}", given(port),
                              f"one of the node's N_Ports ({', '.join(names)})")
    fabric_of = fabrics(links)
    for i, w in enumerate(workloads):
        host = by_name.get(getattr(w, "source", None))  # type: ignore[arg-type]
        if not isinstance(w, FioSection | DdSection) or host is None:
            continue
        nvme = getattr(w, "protocol", "fcp") == "nvme"
        for j, end in enumerate(w.destination):
            target = by_name.get(end)
            if target is None:
                continue
            where = f"workloads[{i}].to" if len(w.destination) == 1 else f"workloads[{i}].to[{j}]"
            ana = dict(getattr(target, "ana_states", None) or ())
            if host.multipath is None:
                if nvme and any(state not in _SERVING for state in ana.values()):
                    yield Problem(where, given(end), f"a target whose ana_states are all "
                                  f"optimized or non-optimized, or a host with "
                                  f"[nodes.multipath] ({host.name} has none: it would ignore "
                                  "the ANA state)")
                continue
            found = [(a, b) for a in port_names(host.name, host.ports)
                     for b in port_names(end, target.ports)
                     if a in fabric_of and fabric_of[a] == fabric_of.get(b)]
            if not found:
                yield Problem(where, given(end), f"a target with an N_Port on a fabric of one "
                              f"of {host.name}'s N_Ports (its multipath device needs a path)")
            elif nvme and not any(ana.get(b, OPTIMIZED) in _SERVING for _a, b in found):
                yield Problem(where, given(end), f"a target with an optimized or non-optimized "
                              f"N_Port (ana_states) on a fabric of one of {host.name}'s "
                              "N_Ports (its NVMe multipath namespace needs a path that "
                              "carries I/O)")
