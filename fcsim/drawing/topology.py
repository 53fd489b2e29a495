"""Drawings of a scenario's topology (``fcsim topology FILE``).

Nodes (N_Ports) are drawn as circles, switches as squares; each link is an
edge labelled with its speed, and at each switch end with the port number; a
loop is drawn as its ring. The layout is networkx's spring layout with a fixed
seed (a circle for a loop), so the same scenario always gives the same
picture. A fabric of more than :data:`DETAILED_VERTICES` nodes and switches
is drawn as its overview instead (:mod:`fcsim.drawing.overview`). PNG or
SVG, chosen by the output file's suffix.
"""

from __future__ import annotations

from typing import BinaryIO

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import networkx as nx  # noqa: E402

from fcsim.drawing import FORMATS  # noqa: E402
from fcsim.drawing.overview import draw_overview  # noqa: E402
from fcsim.fc3.ports import ports_of  # noqa: E402
from fcsim.scenario.model import LoopConfig, Scenario  # noqa: E402

DETAILED_VERTICES = 64
"""Nodes and switches a fabric may have to be drawn vertex by vertex, every link
labelled; a larger one is drawn as its overview (:mod:`fcsim.drawing.overview`:
switch tiers as rings, N_Ports counted per switch), which a reader can still
read at that size."""


def topology_graph(scenario: Scenario) -> nx.MultiGraph:
    """The scenario as a graph: a vertex per node and switch, an edge per link.

    Vertices carry ``kind`` ("node" or "switch"); edges carry ``label`` (the
    link speed) and ``ports`` (vertex -> port number at a switch end). The
    links of a node's N_Ports (NAME.i) all end at the node.
    """
    owner = ports_of(scenario.nodes)
    graph = nx.MultiGraph()
    for node in scenario.nodes:
        graph.add_node(node.name, kind="node")
    for switch in scenario.switches:
        graph.add_node(switch.name, kind="switch")
    for link in scenario.links:
        if isinstance(link, LoopConfig):  # a ring: each port to the next
            ring = link.order
            for a, b in zip(ring, ring[1:] + ring[:1], strict=True):
                graph.add_edge(a, b, key=f"{link.name}:{a}", label=link.speed.name, ports={})
            continue
        ends = [end.partition(":") for end in link.ends]
        names = [owner.get(name, name) for name, _, _ in ends]
        ports = {name: int(port) for name, sep, port in ends if sep}
        graph.add_edge(*names, key=link.name, label=link.speed.name, ports=ports)
    return graph


def draw_topology(scenario: Scenario, out: BinaryIO, suffix: str) -> None:
    """Draw *scenario*'s topology into the binary file *out* as *suffix* (.png/.svg)."""
    if suffix not in FORMATS:
        raise ValueError(f"the drawing is PNG or SVG ({', '.join(FORMATS)}), not {suffix!r}")
    graph = topology_graph(scenario)
    if scenario.topology == "fabric" and len(graph) > DETAILED_VERTICES:
        draw_overview(graph, f"{scenario.name} ({scenario.topology})", out, suffix)
        return
    simple = nx.Graph(graph)
    if scenario.topology == "loop":
        positions = nx.circular_layout(simple)
    else:
        positions = nx.spring_layout(simple, seed=1, k=1.5 / max(1, len(simple)) ** 0.5)
    size = max(6.0, 1.2 * len(graph) ** 0.5 * 3)
    figure, axes = plt.subplots(figsize=(size, size * 0.75))
    axes.set_title(f"{scenario.name} ({scenario.topology})")
    axes.axis("off")
    switches = [n for n, kind in graph.nodes(data="kind") if kind == "switch"]
    nodes = [n for n, kind in graph.nodes(data="kind") if kind == "node"]
    nx.draw_networkx_nodes(graph, positions, nodelist=switches, node_shape="s",
                           node_color="#f4b942", node_size=1400, ax=axes)
    nx.draw_networkx_nodes(graph, positions, nodelist=nodes, node_color="#7fb3d5",
                           node_size=900, ax=axes)
    nx.draw_networkx_labels(graph, positions, font_size=8, ax=axes)
    for a, b in simple.edges():
        parallel = graph.get_edge_data(a, b)
        for i, data in enumerate(parallel.values()):
            bend = 0.0 if len(parallel) == 1 else 0.25 * (i - (len(parallel) - 1) / 2)
            nx.draw_networkx_edges(graph, positions, edgelist=[(a, b)], ax=axes,
                                   connectionstyle=f"arc3,rad={bend}", arrows=True,
                                   arrowstyle="-", node_size=1200)
            (xa, ya), (xb, yb) = positions[a], positions[b]

            def along(t: float, xa=xa, ya=ya, xb=xb, yb=yb, bend=bend) -> tuple[float, float]:
                """Point at fraction *t* of the drawn arc (matplotlib's arc3 curve)."""
                curve = 2 * t * (1 - t) * bend
                return (xa + t * (xb - xa) + curve * (yb - ya),
                        ya + t * (yb - ya) - curve * (xb - xa))

            axes.text(*along(0.5), data["label"], fontsize=7, ha="center", va="center",
                      bbox={"boxstyle": "round", "fc": "white", "ec": "none", "alpha": 0.8})
            for end, port in data["ports"].items():
                axes.text(*along(0.2 if end == a else 0.8), f"p{port}", fontsize=7,
                          color="#8a5a00", ha="center", va="center")
    figure.tight_layout()
    figure.savefig(out, format=suffix.lstrip("."))
    plt.close(figure)
