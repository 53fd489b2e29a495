"""Checks across keys for FC-3: N_Port names of nodes with several ports, alias
groups (members known, names unique, classes the group can carry) and striped
streams (over ports both nodes have)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol

from fcsim.fc3.ports import port_names, ports_of
from fcsim.schema.errors import Problem, given, show
from fcsim.schema.rules import unique


class StripedSection(Protocol):
    """A stream's workload table (the only kind with ``stripe_ports``)."""

    source: str
    destination: str
    stripe_ports: int
    stripe_unit: int | None
    exchanges: str


def fc3_problems(doc: Any, raw: dict[str, Any]) -> Iterator[Problem]:
    """Every FC-3 problem of the checked document *doc* read from *raw*."""
    nodes = {n.name: getattr(n, "ports", 1) for n in doc.nodes}
    ports = ports_of(doc.nodes)
    for i, (node, count) in enumerate(nodes.items()):
        taken = [port for port in port_names(node, count)[1:] if port in nodes]
        if taken:
            yield Problem(f"nodes[{i}].ports", given(count),
                          f"ports whose names (NAME.i) are not another node's name: node "
                          f"{taken[0]!r} exists")
    groups = getattr(doc, "alias_groups", [])
    raws = raw.get("alias_groups", [])
    yield from unique(raws, "alias_groups", "name", [g.name for g in groups])
    kinds = {g.name: g.type for g in groups}
    workloads = {w.name or f"workload{i}" for i, w in enumerate(doc.workloads)}
    for i, group in enumerate(groups):
        if group.name in ports or group.name in workloads:  # results name groups too
            yield Problem(f"alias_groups[{i}].name", given(group.name),
                          "a name that is no node's, N_Port's or workload's")
        for j, member in enumerate(group.members):
            if member not in ports:
                yield Problem(f"alias_groups[{i}].members[{j}]", given(member),
                              "an N_Port name: " + ", ".join(map(repr, ports)))
    for i, w in enumerate(doc.workloads):
        path, kind = f"workloads[{i}]", kinds.get(getattr(w, "destination", None))
        cls = getattr(w, "cls", 3)
        if kind == "multicast" and cls != 3:
            yield Problem(f"{path}.class", given(raw["workloads"][i].get("class")),
                          "class 3 to a multicast group (Classes 1 and 2 have no multicast; "
                          "Class 6 is not modelled)")
        if kind == "hunt-group":
            if cls == 1:
                yield Problem(f"{path}.class", given(raw["workloads"][i].get("class")),
                              "class 2 or 3 to a hunt group (a Class 1 connection to a "
                              "free member is not modelled)")
            group = next(g for g in groups if g.name == w.destination)
            if w.source in group.members:
                yield Problem(f"{path}.from", given(w.source),
                              f"a node that is not a member of hunt group {w.destination!r}")
        if hasattr(w, "stripe_ports"):
            yield from _striping(w, raw["workloads"][i], path, nodes, kind is not None)


def _striping(w: StripedSection, raw: dict[str, Any], path: str, nodes: dict[str, int],
              to_group: bool) -> Iterator[Problem]:
    """A striped stream runs between two nodes over ports both have."""
    if w.stripe_ports == 1:
        if "stripe_unit" in raw:
            yield Problem(f"{path}.stripe_unit", given(raw["stripe_unit"]),
                          "no stripe_unit without stripe_ports > 1")
        return
    if to_group:
        yield Problem(f"{path}.stripe_ports", given(w.stripe_ports),
                      "1 to an alias group (striping runs between two nodes)")
        return
    if w.exchanges != "per-slot":
        yield Problem(f"{path}.exchanges", given(w.exchanges),
                      "'per-slot' with stripe_ports > 1 (a striped stream keeps one exchange "
                      "per N_Port pair and slot)")
    have = {end: nodes[end] for end in (w.source, w.destination) if end in nodes}
    if len(have) == 2 and w.stripe_ports > min(have.values()):
        fabric = "" if max(have.values()) > 1 else (
            "; a node has several N_Ports (ports) only in a fabric")
        counts = ", ".join(f"{n} has {k}" for n, k in have.items())
        yield Problem(f"{path}.stripe_ports", given(w.stripe_ports),
                      f"at most the N_Ports of both nodes ({counts}){fabric}")
    if w.stripe_unit is None:
        yield Problem(f"{path}.stripe_unit", "missing",
                      f"a stripe unit such as '64 KiB' for a stream over {show(w.stripe_ports)} "
                      "N_Port pairs")
