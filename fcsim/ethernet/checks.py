"""Checks across keys of an Ethernet network: each node on one cable, each
switch port used once, a VLAN for each switch-port end, 802.1Q trunks (their
VLANs, a VLAN-aware NIC on a trunk to a host), no VLAN that joins nothing, no
loop within a VLAN (there is no spanning tree), and PAUSE only on a switch
whose model says when to send it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Any

import networkx as nx

from fcsim.schema.errors import Problem, given
from fcsim.schema.rules import ends_once

LinkVlans = tuple[tuple[str, str], tuple[int, ...], tuple[int, ...], int | None]
"""A cable's ends, access VLANs of its switch-port ends, trunk VLANs and native VLAN."""


def ethernet_links(doc: Any, raws: list[dict[str, Any]], nodes: list[str]) -> Iterator[Problem]:
    """Every problem of the links of the Ethernet scenario *doc*."""
    vlans_of: dict[str, frozenset[int]] = {}
    node_vlan = {n.name: n.vlan for n in doc.nodes}
    cabled: set[str] = set()
    for i, link in enumerate(doc.links):
        switch_ends = [end for end in link.ends if ":" in end]
        cabled.update(end for end in link.ends if end in node_vlan and link.trunk)
        if link.trunk is not None:
            yield from _trunk(i, link, raws[i], node_vlan)
            vlans_of.update(dict.fromkeys(switch_ends, _members(link.trunk, link.native_vlan)))
            continue
        if link.native_vlan is not None:
            yield Problem(f"links[{i}].native_vlan", given(raws[i]["native_vlan"]),
                          "a native VLAN only on a trunk (with trunk = [...])")
            continue
        vlans = link.vlan or (1,) * len(switch_ends)
        if link.vlan is not None and len(link.vlan) != len(switch_ends):
            yield Problem(f"links[{i}].vlan", given(raws[i]["vlan"]),
                          f"one VLAN per switch-port end ({len(switch_ends)} here)")
            continue
        vlans_of.update((end, frozenset({vlan})) for end, vlan in zip(switch_ends, vlans,
                                                                       strict=True))
    for j, node in enumerate(doc.nodes):
        if node.vlan is not None and node.name not in cabled:
            yield Problem(f"nodes[{j}].vlan", given(node.vlan), "a VLAN-aware NIC on a trunk: "
                          "its cable in [[links]] with trunk = [...] carrying its VLAN")
    yield from ends_once(doc.links, nodes, "every node cabled (one NIC each)")
    yield from _lonely_vlans(vlans_of)
    index = loop_in_a_vlan(((link.ends, link.vlan or (), link.trunk or (), link.native_vlan)
                            for link in doc.links), node_vlan)
    if index is not None:
        yield Problem(f"links[{index}].ends", given(list(doc.links[index].ends)),
                      "no loop within a VLAN: there is no spanning tree")
    yield from _frame_limits(doc)
    for i, switch in enumerate(doc.switches):
        if switch.pause and switch.model.pause_threshold is None:
            yield Problem(f"switches[{i}].pause", "given true", f"a switch model with a "
                          f"pause_threshold ({switch.model.name} gives none)")


ETHERNET_HEADER_FCS = 18
"""MAC header and FCS around an IP packet, bytes (22 with an 802.1Q tag)."""


def _frame_limits(doc: Any) -> Iterator[Problem]:
    """Each node's longest frame (its MTU, the MAC header and FCS, the tag of
    a VLAN-aware NIC) fits the switch it is cabled to."""
    switches = {s.name: s.model for s in doc.switches}
    index = {n.name: j for j, n in enumerate(doc.nodes)}
    for link in doc.links:
        for node, other in (link.ends, reversed(link.ends)):
            if node not in index or ":" not in other:
                continue
            model = switches.get(other.split(":")[0])
            n = doc.nodes[index[node]]
            frame = n.mtu + ETHERNET_HEADER_FCS + (4 if n.vlan is not None else 0)
            if model is not None and model.max_frame is not None and frame > model.max_frame:
                yield Problem(f"nodes[{index[node]}].mtu", given(n.mtu),
                              f"an MTU whose frames ({frame} bytes with header and FCS) fit "
                              f"switch {other.split(':')[0]}'s largest, {model.max_frame} "
                              f"bytes (model {model.name})")


def _members(trunk: Iterable[int], native: int | None) -> frozenset[int]:
    """The VLANs a trunk port is a member of: those it carries tagged, and its native one."""
    return frozenset(trunk) | (frozenset() if native is None else frozenset({native}))


def _trunk(i: int, link: Any, raw: dict[str, Any], node_vlan: dict[str, int | None]
           ) -> Iterator[Problem]:
    """What is wrong with the 802.1Q trunk *link* (``links[i]``)."""
    if link.vlan is not None:
        yield Problem(f"links[{i}].vlan", given(raw["vlan"]), "no vlan on a trunk: it "
                      "carries the VLANs of trunk, and native_vlan untagged")
    if link.native_vlan is not None and link.native_vlan in link.trunk:
        yield Problem(f"links[{i}].native_vlan", given(link.native_vlan),
                      f"a VLAN not also carried tagged (trunk is {list(link.trunk)})")
    for end in link.ends:
        if end not in node_vlan:
            continue
        if node_vlan[end] is None:
            yield Problem(f"links[{i}].trunk", given(raw["trunk"]), f"a trunk to node {end} "
                          "only if its NIC is VLAN-aware (vlan = ... in its [[nodes]] table)")
        elif node_vlan[end] not in link.trunk:
            yield Problem(f"links[{i}].trunk", given(raw["trunk"]), f"the VLAN of node {end}'s "
                          f"NIC ({node_vlan[end]}) among the VLANs the trunk carries tagged")


def _lonely_vlans(vlans_of: dict[str, frozenset[int]]) -> Iterator[Problem]:
    """A VLAN on one port of a switch joins that port to nothing."""
    count = Counter((end.partition(":")[0], vlan) for end, vlans in vlans_of.items()
                    for vlan in vlans)
    for (switch, vlan), n in sorted(count.items()):
        if n == 1:
            port = next(e for e, v in vlans_of.items() if e.startswith(f"{switch}:") and vlan in v)
            yield Problem("links", f"VLAN {vlan} has only port {port}",
                          "a VLAN on at least two ports of its switch (else it joins nothing)")


def loop_in_a_vlan(links: Iterable[LinkVlans], node_vlan: dict[str, int | None]) -> int | None:
    """The index of the first cable that closes a loop within a VLAN (flooding
    would circle it), or None. A broadcast domain is a switch's VLAN or a NIC;
    a trunk joins each VLAN it carries on its two switches, an access cable the
    VLANs of its two ends (two VLANs of one switch, for a loop-back)."""
    graph = nx.MultiGraph()
    for index, (ends, vlans, trunk, native) in enumerate(links):
        for a, b in _domains(ends, vlans, trunk, native, node_vlan):
            if graph.has_node(a) and graph.has_node(b) and nx.has_path(graph, a, b):
                return index
            graph.add_edge(a, b)
    return None


def _domains(ends: tuple[str, str], vlans: tuple[int, ...], trunk: tuple[int, ...],
             native: int | None, node_vlan: dict[str, int | None]
             ) -> Iterator[tuple[tuple[str, int], tuple[str, int]]]:
    """The pairs of broadcast domains one cable joins."""
    def domain(end: str, vlan: int) -> tuple[str, int]:
        switch, sep, _ = end.partition(":")
        return (switch, vlan) if sep else (end, 0)

    if not trunk:
        access = iter(tuple(vlans) + (1, 1))
        a, b = (domain(end, next(access) if ":" in end else 0) for end in ends)
        yield a, b
        return
    for vlan in sorted(_members(trunk, native)):
        if all(":" in end or node_vlan.get(end) == vlan for end in ends):
            yield domain(ends[0], vlan), domain(ends[1], vlan)
