"""Checks across keys of a Myrinet network: each node on one cable, each switch
port used once, one speed for every link, no loop between switches (routes
are shortest paths), no cable into a switch port longer than its slack
buffer covers, and a route between the ends of every workload."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import networkx as nx

from fcsim.myrinet.slack import reach
from fcsim.schema.errors import Problem, given
from fcsim.schema.rules import ends_once


def myrinet_links(doc: Any, raws: list[dict[str, Any]], nodes: list[str],
                  workloads: list[dict[str, Any]]) -> Iterator[Problem]:
    """Every problem of the links of the Myrinet scenario *doc*, and of its
    workloads (*workloads*: as written) between hosts no route joins."""
    yield from ends_once(doc.links, nodes, "every node cabled (one NIC each)")
    first = doc.links[0].speed if doc.links else None
    for i, link in enumerate(doc.links):
        if link.speed is not first:
            yield Problem(f"links[{i}].speed", given(raws[i]["speed"]),
                          f"{first.name}, the speed of links[0]: a Myrinet network runs "
                          "at one speed")
    yield from _loops(doc, raws)
    yield from _reach(doc, raws)
    yield from _joined(doc, workloads)


def _loops(doc: Any, raws: list[dict[str, Any]]) -> Iterator[Problem]:
    """A cable that closes a loop (shortest-path routes could deadlock on it)."""
    graph = nx.MultiGraph()
    for i, link in enumerate(doc.links):
        a, b = (end.partition(":")[0] for end in link.ends)
        if graph.has_node(a) and graph.has_node(b) and nx.has_path(graph, a, b):
            yield Problem(f"links[{i}].ends", given(raws[i]["ends"]),
                          "no loop: routes are shortest paths, which can deadlock wormhole "
                          "packets on a loop (up*/down* routing is not modelled)")
        graph.add_edge(a, b)


def _joined(doc: Any, workloads: list[dict[str, Any]]) -> Iterator[Problem]:
    """A workload between nodes the cables do not join (no route between them)."""
    graph = nx.Graph()
    graph.add_nodes_from(n.name for n in doc.nodes)
    graph.add_edges_from(tuple(end.partition(":")[0] for end in link.ends)
                         for link in doc.links)
    for i, w in enumerate(doc.workloads):
        starts = w.source if isinstance(w.source, tuple) else (w.source,)
        ends = w.destination if isinstance(w.destination, tuple) else (w.destination,)
        for j, end in enumerate(ends):
            if end in graph and any(s in graph and not nx.has_path(graph, s, end)
                                    for s in starts):
                key = "to" if len(ends) == 1 else f"to[{j}]"
                yield Problem(f"workloads[{i}].{key}", given(workloads[i]["to"] if len(
                    ends) == 1 else end), "a node the links join to every node in from "
                    "(there is no route otherwise)")


def _reach(doc: Any, raws: list[dict[str, Any]]) -> Iterator[Problem]:
    """A cable into a switch port no longer than the port's slack buffer covers."""
    models = {s.name: s.model for s in doc.switches}
    for i, link in enumerate(doc.links):
        for end in link.ends:
            switch, sep, number = end.partition(":")
            model = models.get(switch) if sep else None
            if model is None or not (number.isdigit() and int(number) < model.ports):
                continue
            longest = reach(model.slack, model.stop, link.speed.char_time)
            if link.length * link.propagation > longest:
                metres = longest / link.propagation if link.propagation else float("inf")
                yield Problem(f"links[{i}].length", given(raws[i].get("length", "0 m")),
                              f"at most {metres:.4g} m at this speed and propagation: the "
                              f"slack buffer of {end} ({model.slack} characters, STOP at "
                              f"{model.stop}) must hold what arrives while a STOP reaches "
                              "the sender (1 character and twice the cable delay)")
                break
