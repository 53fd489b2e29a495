"""The shapes of generated fabrics: which switches, which N_Ports on which
switch ports, which inter-switch links between which ports.

Three kinds, each a function of a few counts (see ``docs/fabrics.md``):

- ``core-edge``: *cores* core switches ``c0``, ``c1``, ... and ``switches -
  cores`` edge switches ``e0``, ``e1``, ...; every edge switch is joined to
  every core by *isls* ISLs; cores are not joined to each other; the N_Ports
  are on the edge switches.
- ``full-mesh``: *switches* switches ``s0``, ``s1``, ... each joined to every
  other by *isls* ISLs, N_Ports on every switch.
- ``fat-tree``: the three-level k-ary fat tree of Al-Fares, Loukissas and
  Vahdat (SIGCOMM 2008), k = *pods*: k pods of k/2 edge switches ``p0e0``
  ... and k/2 aggregation switches ``p0a0`` ...; each edge switch joined to
  every aggregation switch of its pod; aggregation switch j of a pod joined
  to the (k/2)² cores ``c0`` ... through cores j·k/2 .. j·k/2 + k/2 - 1. The
  N_Ports are on the edge switches (Al-Fares has k/2 hosts per edge switch;
  here any number).

Ports: an edge (or full-mesh) switch has its N_Ports on ports 0 .. n - 1 and
its ISLs after them, by the peer's order then by ISL; a core or aggregation
switch has its ISLs from port 0, down-links first. N_Port m of switch S is
named ``Sn<m>`` (``e3n5``). Switches are listed cores first, so the cores
take the lowest domains.
"""

from __future__ import annotations

from dataclasses import dataclass

KINDS = ("core-edge", "full-mesh", "fat-tree")
"""The kinds of fabric a scenario file may generate."""


@dataclass(frozen=True)
class Shape:
    """A generated fabric: *switches* in domain order with their role
    ("core", "aggregation" or "edge"), *nodes* as (N_Port name, switch, port),
    *isls* as ((switch, port), (switch, port)), and *edges*, the switches that
    hold N_Ports, in order."""

    switches: tuple[tuple[str, str], ...]
    nodes: tuple[tuple[str, str, int], ...]
    isls: tuple[tuple[tuple[str, int], tuple[str, int]], ...]
    edges: tuple[str, ...]

    def ports_used(self) -> dict[str, int]:
        """Per switch, the highest port used plus one."""
        used = dict.fromkeys((name for name, _ in self.switches), 0)
        for _, switch, port in self.nodes:
            used[switch] = max(used[switch], port + 1)
        for end in (end for isl in self.isls for end in isl):
            used[end[0]] = max(used[end[0]], end[1] + 1)
        return used


def _nodes(edges: list[str], per_switch: int) -> list[tuple[str, str, int]]:
    return [(f"{edge}n{m}", edge, m) for edge in edges for m in range(per_switch)]


def core_edge(switches: int, cores: int, per_switch: int, isls: int) -> Shape:
    """*cores* cores and ``switches - cores`` edge switches of *per_switch*
    N_Ports, each edge joined to each core by *isls* ISLs."""
    core = [f"c{c}" for c in range(cores)]
    edges = [f"e{e}" for e in range(switches - cores)]
    links = [((edge, per_switch + c * isls + i), (core[c], e * isls + i))
             for e, edge in enumerate(edges) for c in range(cores) for i in range(isls)]
    return Shape(tuple((c, "core") for c in core) + tuple((e, "edge") for e in edges),
                 tuple(_nodes(edges, per_switch)), tuple(links), tuple(edges))


def full_mesh(switches: int, per_switch: int, isls: int) -> Shape:
    """*switches* switches of *per_switch* N_Ports, each pair joined by *isls* ISLs."""
    names = [f"s{s}" for s in range(switches)]

    def port(s: int, t: int, i: int) -> int:  # on switch s, ISL i towards switch t
        return per_switch + (t if t < s else t - 1) * isls + i
    links = [((names[s], port(s, t, i)), (names[t], port(t, s, i)))
             for s in range(switches) for t in range(s + 1, switches) for i in range(isls)]
    return Shape(tuple((s, "edge") for s in names), tuple(_nodes(names, per_switch)),
                 tuple(links), tuple(names))


def fat_tree(pods: int, per_switch: int, isls: int) -> Shape:
    """The k-ary fat tree of k = *pods* (even), *per_switch* N_Ports on each
    edge switch, *isls* ISLs for each joined pair."""
    half = pods // 2
    cores = [f"c{c}" for c in range(half * half)]
    switches = [(c, "core") for c in cores]
    edges: list[str] = []
    links = []
    for p in range(pods):
        aggs = [f"p{p}a{j}" for j in range(half)]
        pod_edges = [f"p{p}e{e}" for e in range(half)]
        switches += [(a, "aggregation") for a in aggs] + [(e, "edge") for e in pod_edges]
        edges += pod_edges
        links += [((edge, per_switch + j * isls + i), (agg, e * isls + i))
                  for e, edge in enumerate(pod_edges) for j, agg in enumerate(aggs)
                  for i in range(isls)]
        links += [((agg, (half + m) * isls + i), (cores[j * half + m], p * isls + i))
                  for j, agg in enumerate(aggs) for m in range(half) for i in range(isls)]
    return Shape(tuple(switches), tuple(_nodes(edges, per_switch)), tuple(links), tuple(edges))


def ring(shape: Shape, per_switch: int) -> list[tuple[str, str]]:
    """One (source, destination) pair per edge switch: its N_Port 0 to N_Port
    1 (N_Port 0 if it has one) of the next edge switch, the last to the first."""
    edges = shape.edges
    return [(f"{edge}n0", f"{edges[(e + 1) % len(edges)]}n{1 % per_switch}")
            for e, edge in enumerate(edges)]
