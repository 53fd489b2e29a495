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

Targets (``[fabric.targets]``): *count* storage targets ``t0``, ``t1``, ...
placed round robin on the chosen switches, each on the next port after
those the switch already uses.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

KINDS = ("core-edge", "full-mesh", "fat-tree")
"""The kinds of fabric a scenario file may generate."""
PATTERNS = ("ring", "permutation", "random-pairs", "fan-in", "fan-out")
"""The traffic patterns a generated fabric may carry (one stream per pair)."""


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


def permutation(shape: Shape) -> list[tuple[str, str]]:
    """Every N_Port i of the N (in generated order) to N_Port (i + ⌊N/2⌋) mod
    N: the stride permutation of Al-Fares et al. (SIGCOMM 2008, "stride(i)"
    with i = N/2), each N_Port sending one stream and receiving one; with an
    even N, every stream crosses between the two halves of the fabric."""
    names = [name for name, _, _ in shape.nodes]
    shift = len(names) // 2
    return [(name, names[(i + shift) % len(names)]) for i, name in enumerate(names)]


def random_pairs(shape: Shape, seed: int) -> list[tuple[str, str]]:
    """Every N_Port to another drawn uniformly at random (Python's
    ``random.Random(seed)``, Mersenne Twister), several possibly to the same
    one (Al-Fares et al.'s "random" pattern)."""
    names = [name for name, _, _ in shape.nodes]
    draw = random.Random(seed)
    pairs = []
    for i, name in enumerate(names):
        other = draw.randrange(len(names) - 1)
        pairs.append((name, names[other + (other >= i)]))
    return pairs


def fan_in(shape: Shape, targets: int) -> list[tuple[str, str]]:
    """The last *targets* N_Ports (in generated order) are targets; every
    other N_Port j (j = 0, 1, ...) sends to target j mod *targets*."""
    names = [name for name, _, _ in shape.nodes]
    initiators, chosen = names[:-targets], names[-targets:]
    return [(name, chosen[j % targets]) for j, name in enumerate(initiators)]


def fan_out(shape: Shape, sources: int) -> list[tuple[str, str]]:
    """The first *sources* N_Ports (in generated order) send; every other
    N_Port j (j = 0, 1, ...) receives from source j mod *sources* (one
    source to many, the mirror of :func:`fan_in`)."""
    names = [name for name, _, _ in shape.nodes]
    chosen, receivers = names[:sources], names[sources:]
    return [(chosen[j % sources], name) for j, name in enumerate(receivers)]


def tier(shape: Shape, role: str) -> tuple[str, ...]:
    """The switches of *shape* of *role* ("core", "aggregation", "edge"), in order."""
    return tuple(name for name, r in shape.switches if r == role)


def place_targets(shape: Shape, count: int,
                  switches: tuple[str, ...]) -> tuple[tuple[str, str, int], ...]:
    """*count* targets ``t0``, ``t1``, ... as (name, switch, port): target i
    on ``switches[i mod len(switches)]``, on the ports after the highest the
    switch uses in *shape*, in turn."""
    next_port = shape.ports_used()
    placed = []
    for i in range(count):
        switch = switches[i % len(switches)]
        placed.append((f"t{i}", switch, next_port[switch]))
        next_port[switch] += 1
    return tuple(placed)


def to_targets(shape: Shape, targets: tuple[tuple[str, str, int], ...]) -> list[tuple[str, str]]:
    """Every generated N_Port j (in order) to target j mod len(*targets*)."""
    return [(name, targets[j % len(targets)][0]) for j, (name, _, _) in enumerate(shape.nodes)]
