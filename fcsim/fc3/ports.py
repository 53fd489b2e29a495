"""The N_Ports of a node: a node may have several, each on its own link.

A node with ``ports = k`` has N_Ports named after it: the first is the node
itself (so everything that names the node, its host, its FCP target, names
that port), the others ``NAME.1`` .. ``NAME.(k-1)``. Each logs in with the
fabric by itself and gets its own N_Port ID from the switch port it is
cabled to. A node with ``virtual_ports = v`` also has v virtual N_Ports (NPIV)
behind its first, named ``NAME.v1`` .. ``NAME.v<v>`` (:mod:`fcsim.fabric.npiv`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from fcsim.fabric.npiv import virtual_names


def port_names(node: str, ports: int = 1) -> list[str]:
    """The names of the *ports* N_Ports of *node*, first the node's own."""
    return [node] + [f"{node}.{i}" for i in range(1, ports)]


def ports_of(nodes: Iterable[Any]) -> dict[str, str]:
    """Every N_Port name of *nodes* (each with ``name``, ``ports``, default 1,
    and ``virtual_ports``, default 0) mapped to the name of its node, in node
    order, the virtual ones after the others."""
    return {port: node.name for node in nodes
            for port in port_names(node.name, getattr(node, "ports", 1))
            + virtual_names(node.name, getattr(node, "virtual_ports", 0))}
