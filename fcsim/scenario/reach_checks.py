"""Checks that a workload's nodes reach each other: over a network they share, of
the technology its traffic needs (FC-2 and SCSI traffic need Fibre Channel;
netperf and iperf run over any network; Slice jobs are Myrinet's own), and
the chain of a transfer: hosts between, a host or an FCP target at each end,
each step over a network."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fcsim.fc4.fcp import BLOCK
from fcsim.host.routes import FIBRE_CHANNEL
from fcsim.scenario.internetwork import shared
from fcsim.scenario.sections.apps import IperfSection, NetperfSection
from fcsim.scenario.sections.transfer import TransferSection
from fcsim.schema.errors import Problem, given, show
from fcsim.storage.checks import local_disks
from fcsim.trapeze.config import FaultSection, SliceDdSection


def reach(doc: Any, w: Any, raw: dict[str, Any], path: str) -> Iterator[Problem]:
    """Every problem of workload *w* (at key *path*, *raw* its table) reaching
    its nodes in scenario *doc* (its names already known to be nodes)."""
    if isinstance(w, TransferSection):
        yield from _chain(doc, w, raw, path)
        return
    if isinstance(w, SliceDdSection | FaultSection):
        return  # only in a Myrinet file, whose links join every node (fcsim.myrinet.checks)
    any_network = isinstance(w, NetperfSection | IperfSection)
    starts = w.source if isinstance(w.source, tuple) else (w.source,)
    ends = w.destination if isinstance(w.destination, tuple) else (w.destination,)
    for a in starts:
        for j, b in enumerate(ends):
            kinds = shared(doc, a, b)
            if not any(any_network or kind in FIBRE_CHANNEL for kind in kinds):
                where = f"{path}.to" if len(ends) == 1 else f"{path}.to[{j}]"
                need = "a network" if any_network else "a Fibre Channel network"
                yield Problem(where, given(b), f"a node on {need} that {a!r} is on too"
                              + (f" (its route to {b!r} is over {kinds[0]})" if kinds else ""))


def _chain(doc: Any, w: TransferSection, raw: dict[str, Any], path: str) -> Iterator[Problem]:
    nodes = {n.name: n for n in doc.nodes}
    known = [name for name in w.path if name in nodes]
    for j, name in enumerate(w.path):
        if name not in nodes:
            yield Problem(f"{path}.path[{j}]", given(name),
                          "the name of a node: " + ", ".join(map(show, nodes)))
    if len(known) < len(w.path):
        return
    if len(w.path) < 2:
        yield Problem(f"{path}.path", given(raw["path"]), "at least two nodes")
        return
    last = len(w.path) - 1
    for j, name in enumerate(w.path):
        node = nodes[name]
        target = getattr(node, "target", None)
        if node.host is None and not (target is not None and j in (0, last)):
            yield Problem(f"{path}.path[{j}]", given(name),
                          "a node with a host model" if 0 < j < last else
                          "a node with a host model or an FCP target (key 'target')")
            return
        if target is not None and j in (0, last):
            yield from _target_end(w, raw, path, j, target)
    for j in range(last):
        a, b = w.path[j], w.path[j + 1]
        block = getattr(nodes[a], "target", None) or getattr(nodes[b], "target", None)
        kinds = shared(doc, a, b)
        if not any(kind in FIBRE_CHANNEL or not block for kind in kinds):
            yield Problem(f"{path}.path[{j + 1}]", given(b),
                          f"a node on {'a Fibre Channel network' if block else 'a network'} "
                          f"that {a!r} is on too")
    if all(nodes[name].host is None for name in w.path):
        yield Problem(f"{path}.path", given(raw["path"]), "a host on the path")
    for key, j in (("read_disk", 0), ("write_disk", last)):
        disk = getattr(w, key)
        if disk is None:
            continue
        node = nodes[w.path[j]]
        own = local_disks(node)
        if node.host is None or disk not in own:
            yield Problem(f"{path}.{key}", given(disk), f"a disk on the channels of host "
                          f"path[{j}] ({', '.join(own) or 'it has none'})")
            continue
        yield from _target_end(w, raw, path, j, own[disk])


def _target_end(w: TransferSection, raw: dict[str, Any], path: str, j: int,
                device: Any) -> Iterator[Problem]:
    """A target or disk at an end is read or written in whole blocks within its
    capacity."""
    if w.block % BLOCK:
        yield Problem(f"{path}.block", given(raw["block"]), f"a whole number of {BLOCK}-byte "
                      "blocks when an end is a disk or an FCP target (READ(10)/WRITE(10) "
                      "count them)")
    if w.size > device.capacity:
        yield Problem(f"{path}.size", given(raw["size"]),
                      f"at most the capacity of path[{j}] ({device.capacity} bytes, "
                      f"{device.name})")
