"""Checks across keys of an Ethernet network: each node on one cable, each
switch port used once, a VLAN for each switch-port end, no VLAN that joins
nothing, no loop within a VLAN (there is no spanning tree), and PAUSE only
on a switch whose model says when to send it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import networkx as nx

from fcsim.scenario.rules import ends_once
from fcsim.schema.errors import Problem, given


def ethernet_links(doc: Any, raws: list[dict[str, Any]], nodes: list[str]) -> Iterator[Problem]:
    """Every problem of the links of the Ethernet scenario *doc*."""
    vlan_of: dict[str, int] = {}
    for i, link in enumerate(doc.links):
        switch_ends = [end for end in link.ends if ":" in end]
        vlans = link.vlan or (1,) * len(switch_ends)
        if link.vlan is not None and len(link.vlan) != len(switch_ends):
            yield Problem(f"links[{i}].vlan", given(raws[i]["vlan"]),
                          f"one VLAN per switch-port end ({len(switch_ends)} here)")
            continue
        vlan_of.update(zip(switch_ends, vlans, strict=True))
    yield from ends_once(doc.links, nodes, "every node cabled (one NIC each)")
    yield from _lonely_vlans(vlan_of)
    yield from _loops(doc, vlan_of)
    for i, switch in enumerate(doc.switches):
        if switch.pause and switch.model.pause_threshold is None:
            yield Problem(f"switches[{i}].pause", "given true", f"a switch model with a "
                          f"pause_threshold ({switch.model.name} gives none)")


def _lonely_vlans(vlan_of: dict[str, int]) -> Iterator[Problem]:
    """A VLAN on one port of a switch joins that port to nothing."""
    count = Counter((end.partition(":")[0], vlan) for end, vlan in vlan_of.items())
    for (switch, vlan), n in sorted(count.items()):
        if n == 1:
            port = next(e for e, v in vlan_of.items() if e.startswith(f"{switch}:") and v == vlan)
            yield Problem("links", f"VLAN {vlan} has only port {port}",
                          "a VLAN on at least two ports of its switch (else it joins nothing)")


def _loops(doc: Any, vlan_of: dict[str, int]) -> Iterator[Problem]:
    """A cable that closes a loop within a VLAN (flooding would circle it)."""
    graph = nx.MultiGraph()
    for i, link in enumerate(doc.links):
        a, b = (_segment(end, vlan_of) for end in link.ends)
        if graph.has_node(a) and graph.has_node(b) and nx.has_path(graph, a, b):
            yield Problem(f"links[{i}].ends", given(list(link.ends)),
                          "no loop within a VLAN: there is no spanning tree")
        graph.add_edge(a, b)


def _segment(end: str, vlan_of: dict[str, int]) -> tuple[str, int]:
    switch, sep, _ = end.partition(":")
    return (switch, vlan_of.get(end, 1)) if sep else (end, 0)
