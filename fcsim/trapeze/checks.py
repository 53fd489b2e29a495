"""Checks across keys of the Slice block I/O service on a Myrinet network: a
block server serves disks it has, striped when several; a dd or page-fault
job runs against block servers, striped when several, in whole 512-byte
blocks, with clusters of whole stripe grains, a write-behind of at least a
cluster, and faults that fit a stripe grain and the file."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fcsim.fc4.fcp import BLOCK
from fcsim.host.block import striped_capacity
from fcsim.schema.errors import Problem, given, show
from fcsim.storage.checks import local_disks
from fcsim.trapeze.config import FaultSection, SliceDdSection


def block_servers(nodes: Any, raws: list[dict[str, Any]]) -> Iterator[Problem]:
    """Every problem of the nodes' ``[nodes.block_server]`` tables."""
    for i, node in enumerate(nodes):
        served = node.block_server
        if served is None:
            continue
        path, raw = f"nodes[{i}].block_server", raws[i]["block_server"]
        disks = local_disks(node)
        for k, name in enumerate(served.disks):
            if name not in disks:
                where = f"{path}.disks" if len(served.disks) == 1 else f"{path}.disks[{k}]"
                yield Problem(where, given(name), "a disk of this node's channels: " + (
                    ", ".join(map(repr, disks)) or "it has none ([[nodes.channels]])"))
        yield from _stripe(served.stripe, len(served.disks), raw, path, "disks")


def _capacity(node: Any) -> int | None:
    """Bytes of a block server's volume (None if it names disks it has not)."""
    disks, served = local_disks(node), node.block_server
    if not all(d in disks for d in served.disks):
        return None
    return striped_capacity([disks[d].capacity for d in served.disks], served.stripe or BLOCK)


def _stripe(stripe: int | None, count: int, raw: dict[str, Any], path: str,
            what: str) -> Iterator[Problem]:
    if count > 1 and stripe is None:
        yield Problem(f"{path}.stripe", "missing", f"a stripe grain such as '32 KiB' over "
                      f"several {what}")
    if stripe is not None and stripe % BLOCK:
        yield Problem(f"{path}.stripe", given(raw["stripe"]),
                      f"a whole number of {BLOCK}-byte blocks")


def slice_job(w: SliceDdSection | FaultSection, raw: dict[str, Any], path: str,
              nodes: dict[str, Any]) -> Iterator[Problem]:
    """Every problem of the dd or fault job *w* at *path* (*raw* its table) in
    a file whose nodes are *nodes* by name (its names known to be nodes)."""
    servers = []
    for j, end in enumerate(w.destination):
        config = nodes[end].block_server
        if config is None:
            where = f"{path}.to" if len(w.destination) == 1 else f"{path}.to[{j}]"
            yield Problem(where, given(end), "a block server (a node with "
                          "[nodes.block_server])")
        else:
            servers.append(_capacity(nodes[end]))
    yield from _stripe(w.stripe, len(w.destination), raw, path, "servers")
    size, key = (w.bs, "bs") if isinstance(w, SliceDdSection) else (w.page, "page")
    if size % BLOCK:
        yield Problem(f"{path}.{key}", given(raw[key]), f"a whole number of {BLOCK}-byte "
                      "blocks")
    if isinstance(w, SliceDdSection):
        if w.write_behind < w.cluster:
            yield Problem(f"{path}.write_behind", given(raw["write_behind"]),
                          f"at least cluster ({show(raw.get('cluster', '128 KiB'))})")
        if len(w.destination) > 1 and w.stripe is not None and w.cluster % w.stripe:
            yield Problem(f"{path}.cluster", given(raw.get("cluster", "128 KiB")),
                          f"a whole number of stripe grains ({show(raw['stripe'])}): a "
                          "cluster is cut into whole grains, one request per server")
        return
    if len(w.destination) > 1 and w.stripe is not None and w.stripe % w.page:
        yield Problem(f"{path}.page", given(raw.get("page", "8 KiB")),
                      f"a size that divides the stripe grain ({show(raw['stripe'])}): a "
                      "fault fetches its page from one server")
    if len(servers) == len(w.destination) and None not in servers:
        capacity = striped_capacity(servers, w.stripe or BLOCK)
        if not w.page <= w.region <= capacity:
            yield Problem(f"{path}.region", given(raw.get("region", "1 MiB")),
                          f"at least page and at most the file's {capacity} bytes")
