"""Checks across keys of a fabric's ``[[zones]]``: names unique, every member
an N_Port (by name or port World Wide Name), every workload between N_Ports
that share a zone (unless ``[zoning]`` enforces them in hardware, when the
switches drop such a workload's frames), and ``[zoning]`` only with zones;
virtual N_Ports (NPIV) only with fabric login, without faults, never a link
end; a switch's ``drop_latency`` only with its ``in_order_delivery``. The
scenario's checks (:mod:`fcsim.scenario.checks`) call
them with the N_Ports the nodes have."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import pairwise
from typing import Any

from fcsim.fabric.npiv import virtual_ports_of
from fcsim.fc2.els_payload import port_wwn
from fcsim.schema.errors import Problem, given
from fcsim.schema.rules import unique


def member_ports(members: tuple[str, ...], ports: list[str]) -> list[str | None]:
    """The N_Port each of *members* names (its name or port WWN), None if none."""
    by_wwn = {port_wwn(port): port for port in ports}
    return [m if m in ports else by_wwn.get(m.lower()) for m in members]


def zone_problems(doc: Any, raw: dict[str, Any], ports: list[str]) -> Iterator[Problem]:
    """Every problem of the ``[[zones]]`` of the checked fabric *doc* read from
    *raw*, whose nodes have the N_Ports named *ports*."""
    zones = getattr(doc, "zones", [])
    enforcement = getattr(getattr(doc, "zoning", None), "enforcement", None)
    if not zones:
        if enforcement is not None:
            yield Problem("zoning", f"enforcement = {enforcement!r} with no [[zones]]",
                          "[zoning] in a fabric with [[zones]] to enforce")
        return
    raws = raw["zones"]
    yield from unique(raws, "zones", "name", [z.name for z in zones])
    sets = []
    for i, zone in enumerate(zones):
        resolved = member_ports(zone.members, ports)
        for j, (member, port) in enumerate(zip(zone.members, resolved, strict=True)):
            if port is None:
                yield Problem(f"zones[{i}].members[{j}]", given(member),
                              "an N_Port name or its port WWN: " + ", ".join(
                                  f"{p!r} ({port_wwn(p)})" for p in ports[:4])
                              + (", ..." if len(ports) > 4 else ""))
        sets.append({p for p in resolved if p is not None})
    if enforcement == "hard":
        return  # the switches drop the frames of a workload between unzoned N_Ports
    for i, w in enumerate(doc.workloads):
        for s, d in _pairs(w):
            if s in ports and d in ports and not any({s, d} <= zone for zone in sets):
                yield Problem(f"workloads[{i}]", f"from {s!r} to {d!r}",
                              "two N_Ports that share a zone (the name server shows an "
                              "N_Port only those)")


def _pairs(w: Any) -> list[tuple[str, str]]:
    """The (sender, receiver) names of workload section *w*."""
    if hasattr(w, "path"):
        return list(pairwise(w.path))
    sources = w.source if isinstance(w.source, tuple) else (w.source,)
    targets = w.destination if isinstance(w.destination, tuple) else (w.destination,)
    return [(s, d) for s in sources for d in targets]


def npiv_problems(doc: Any, raw: dict[str, Any]) -> Iterator[Problem]:
    """Every problem of the ``virtual_ports`` of the checked fabric *doc*'s nodes."""
    nodes = getattr(doc, "nodes", [])
    virtual = set(virtual_ports_of(nodes))
    for i, node in enumerate(nodes):
        count = getattr(node, "virtual_ports", 0)
        if not count:
            continue
        if not doc.run.login:
            yield Problem(f"nodes[{i}].virtual_ports", given(count),
                          "virtual N_Ports with run.login = true: they log in with FDISC")
        if getattr(doc, "faults", []):
            yield Problem(f"nodes[{i}].virtual_ports", given(count),
                          "no virtual N_Ports in a run with faults (their logging in again "
                          "is not modelled)")
        taken = [n.name for n in nodes if n.name in virtual]
        if taken:
            yield Problem(f"nodes[{i}].virtual_ports", given(count),
                          f"virtual N_Ports whose names (NAME.vk) are not another node's "
                          f"name: node {taken[0]!r} exists")
    for i, link in enumerate(getattr(doc, "links", [])):
        for j, end in enumerate(link.ends):
            if end in virtual:
                yield Problem(f"links[{i}].ends[{j}]", given(end),
                              "a node or switch port: a virtual N_Port shares its node's link")


def in_order_problems(doc: Any, raw: dict[str, Any]) -> Iterator[Problem]:
    """A ``drop_latency`` given to a switch of the checked fabric *doc* (read
    from *raw*) without ``in_order_delivery = true``: it would do nothing."""
    raws = raw.get("switches", [])
    for i, switch in enumerate(getattr(doc, "switches", [])):
        if (i < len(raws) and isinstance(raws[i], dict) and "drop_latency" in raws[i]
                and not getattr(switch, "in_order_delivery", True)):
            yield Problem(f"switches[{i}].drop_latency", given(raws[i]["drop_latency"]),
                          "drop_latency only with in_order_delivery = true (it is the "
                          "pause of in-order delivery after a route change)")
