"""Routing between switches: FSPF-style link-state shortest paths.

Each inter-switch link (ISL) costs what FSPF derives from its speed: a cost of
1000 at 1 Gbit/s, halving as the speed doubles (FC-SW-2 FSPF default metric,
``S x 1.0625e12 / baud``-style; Brocade FOS uses 1000 at 1G and 500 at 2G and
above, which a scenario can reproduce by setting ``cost`` per link). Paths are
computed with networkx over the switch graph; equal-cost next hops (several
ISLs, or several paths) are all kept, and a frame picks one by its exchange
(S_ID, D_ID, OX_ID), so an exchange keeps one path and stays in order.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable

import networkx as nx

REFERENCE_BAUD = 1.0625e9
"""Line rate whose FSPF cost is :data:`REFERENCE_COST`."""
REFERENCE_COST = 1000.0


def fspf_cost(baud: float) -> float:
    """FSPF link cost of an ISL at *baud* (1000 at 1.0625 Gbaud, inversely proportional)."""
    return REFERENCE_COST * REFERENCE_BAUD / baud


def next_hops(
    switches: Iterable[Hashable],
    isls: Iterable[tuple[Hashable, Hashable, Hashable, float]],
) -> dict[Hashable, dict[Hashable, list[Hashable]]]:
    """For each switch and each other switch, the ISL keys of its equal-cost next hops.

    *isls* are (switch a, switch b, key, cost); links are full duplex. Switches
    that cannot reach each other are left out of each other's tables.
    """
    graph = nx.MultiGraph()
    graph.add_nodes_from(switches)
    for a, b, key, cost in isls:
        graph.add_edge(a, b, key=key, cost=cost)
    simple = nx.Graph()
    simple.add_nodes_from(graph.nodes)
    for a, b, data in graph.edges(data=True):
        if not simple.has_edge(a, b) or data["cost"] < simple[a][b]["cost"]:
            simple.add_edge(a, b, cost=data["cost"])
    lengths = dict(nx.all_pairs_dijkstra_path_length(simple, weight="cost"))
    table: dict[Hashable, dict[Hashable, list[Hashable]]] = {}
    for source in graph.nodes:
        table[source] = {}
        for target, total in lengths[source].items():
            if target == source:
                continue
            hops = [key for neighbour in graph.neighbors(source)
                    for key, data in graph[source][neighbour].items()
                    if abs(data["cost"] + lengths[neighbour].get(target, float("inf"))
                           - total) < 1e-9]
            table[source][target] = sorted(hops, key=str)
    return table


def pick(hops: list[Hashable], s_id: int, d_id: int, ox_id: int) -> Hashable:
    """The next hop of exchange (*s_id*, *d_id*, *ox_id*) among equal-cost *hops*.

    Symmetric in *s_id* and *d_id*, so both directions of an exchange (frames
    and their ACKs) take the same ISLs.
    """
    if len(hops) == 1:
        return hops[0]
    low, high = (s_id, d_id) if s_id <= d_id else (d_id, s_id)
    return hops[(low * 31 + high * 17 + ox_id) % len(hops)]
