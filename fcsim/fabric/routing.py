"""Routing between switches: FSPF-style link-state shortest paths, and how a
switch chooses among equal-cost next hops.

Each inter-switch link (ISL) costs what FSPF derives from its speed: a cost of
1000 at 1 Gbit/s, halving as the speed doubles (FC-SW-2 FSPF default metric,
``S x 1.0625e12 / baud``-style; Brocade FOS uses 1000 at 1G and 500 at 2G and
above, which a scenario can reproduce by setting ``cost`` per link). Paths are
computed with networkx over the switch graph; equal-cost next hops (several
ISLs, or several paths) are all kept, and each switch chooses one per frame
by its routing policy (:data:`POLICIES`), named as Brocade Fabric OS names
its ``aptPolicy`` settings (Fabric OS Command Reference, aptPolicy):

- ``port-based``: by the ingress port alone, a static route per input port
  and destination domain (Brocade policy 1, "the choice of routing path is
  based only on the incoming port and the destination domain"); the input
  ports take the equal-cost outputs in turn by port number (an assumption:
  Brocade balances them with Dynamic Load Sharing without saying in which
  order).
- ``device-based``: a hash of S_ID and D_ID (Brocade policy 2; Cisco MDS
  ``src-dst-id``, "flow based"): every exchange between two N_Ports takes one
  path.
- ``exchange-based``: a hash of S_ID, D_ID and OX_ID (Brocade policy 3,
  Dynamic Path Selection, the Fabric OS default; Cisco MDS ``src-dst-ox-id``,
  its default): "the first frame in an exchange picks a link and subsequent
  frames in the exchange follow the same link" (Cisco MDS 9000 NX-OS
  Interfaces Configuration Guide, "About Load Balancing").

The hash is the SplitMix64 finaliser (Steele, Lea and Flood, "Fast splittable
pseudorandom number generators", OOPSLA 2014; the output mixer of Java's
``SplittableRandom``; constants and shifts as in Vigna's reference
``splitmix64.c``, prng.di.unimi.it) of the 64-bit word S_ID·2⁴⁰ + D_ID·2¹⁶ +
OX_ID (24, 24 and 16 bits: every bit of the three fields) XOR a per-switch
seed. Its two multiply-xorshift rounds avalanche (each output bit flips with
probability about 1/2 when any input bit flips), so the low bits that choose
among 2, 4 or 8 hops depend on all of the IDs, not only on OX_ID (N_Port IDs
assigned by a fabric are multiples of 256). It is not linear: a CRC, which
switch ASICs also use, is affine over GF(2) in its initial value, so two
switches seeded differently would choose the same hop index, or its
complement, for every frame (hash polarisation). Each switch's seed is
SplitMix64's domain-th output (:func:`switch_seed`; an assumption: switches
seed their hash per switch, e.g. Dell OS9 ``hash-algorithm seed``, from a
value the manuals do not give), so switches in series choose independently.

Both directions of an exchange keep one path each: every frame one way has
the same S_ID, D_ID and OX_ID (the responder's frames, Class 2 ACKs
included, have S_ID and D_ID swapped and the same OX_ID), so frames stay in
order within a direction, which is what FC-FS asks of a fabric. The way back
is chosen by the same hash at the switches it crosses; it need not use the
same ISLs (the switches at either end of an ISL choose with their own
seeds), as with the vendors' per-switch hashing.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import TYPE_CHECKING, Any

import networkx as nx

if TYPE_CHECKING:
    from fcsim.fc2.frame import Frame

REFERENCE_BAUD = 1.0625e9
"""Line rate whose FSPF cost is :data:`REFERENCE_COST`."""
REFERENCE_COST = 1000.0

POLICIES = ("port-based", "device-based", "exchange-based")
"""The routing policies a switch may use among equal-cost next hops."""

_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
"""SplitMix64's increment, 2⁶⁴ divided by the golden ratio."""
CACHE_ENTRIES = 1 << 16
"""Exchanges whose choice a switch remembers before it starts again (a bound
on memory; a choice forgotten is computed again to the same hop)."""

Choose = Callable[[list[Any], "Frame", int, Any], Any]
"""How a switch picks a next hop: (equal-cost hops, frame, the D_ID it is
routed towards, ingress switch port or None for a frame the switch
originates) -> hop."""


def fspf_cost(line_rate: float) -> float:
    """FSPF link cost of an ISL whose line carries *line_rate* bits/s (1000 at
    1.0625 Gbaud NRZ, inversely proportional: a PAM4 or multi-lane speed counts
    its line bits, not its symbols)."""
    return REFERENCE_COST * REFERENCE_BAUD / line_rate


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


def mix64(word: int) -> int:
    """The SplitMix64 finaliser of the 64-bit *word*: a bijection of 64-bit
    words whose every output bit depends on every input bit."""
    word = (word ^ (word >> 30)) * 0xBF58476D1CE4E5B9 & _MASK
    word = (word ^ (word >> 27)) * 0x94D049BB133111EB & _MASK
    return word ^ (word >> 31)


def switch_seed(domain: int) -> int:
    """The hash seed of the switch of *domain*: the domain-th output of
    SplitMix64 started from 0 (state domain x the golden-ratio increment, then
    :func:`mix64`)."""
    return mix64(domain * _GOLDEN & _MASK)


def exchange_hash(s_id: int, d_id: int, ox_id: int, seed: int) -> int:
    """The 64-bit hash of exchange (*s_id*, *d_id*, *ox_id*) under *seed*
    (*ox_id* 0 for device-based routing)."""
    return mix64((s_id << 40 | d_id << 16 | ox_id) ^ seed)


def pick(policy: str, hops: list[Any], s_id: int, d_id: int, ox_id: int, seed: int,
         ingress: int | None) -> Any:
    """The next hop among equal-cost *hops* of a frame (*s_id*, *d_id*,
    *ox_id*) that came in on port number *ingress* (None: the switch sends
    it) of the switch seeded *seed*, under routing *policy*. Port-based
    routing falls back on the device hash for a frame the switch sends."""
    if policy == "port-based" and ingress is not None:
        return hops[ingress % len(hops)]
    if policy != "exchange-based":
        ox_id = 0
    return hops[exchange_hash(s_id, d_id, ox_id, seed) % len(hops)]


def chooser(policy: str, seed: int) -> Choose:
    """The per-frame choice of a switch seeded *seed* under *policy*: what
    :func:`pick` gives, with the hashed policies remembering each exchange's
    (device's) hop, so a frame costs a dictionary look-up rather than a hash."""
    if policy not in POLICIES:
        raise ValueError(f"routing policy {policy!r}: one of {', '.join(POLICIES)}")
    if policy == "port-based":
        def by_port(hops: list[Any], frame: Frame, d_id: int, ingress: Any) -> Any:
            if len(hops) == 1:
                return hops[0]
            if ingress is None:
                return pick(policy, hops, frame.s_id, d_id, 0, seed, None)
            return hops[ingress.index % len(hops)]
        return by_port
    chosen: dict[int, Any] = {}
    with_ox = policy == "exchange-based"

    def by_hash(hops: list[Any], frame: Frame, d_id: int, ingress: Any) -> Any:
        if len(hops) == 1:
            return hops[0]
        word = frame.s_id << 40 | d_id << 16 | (frame.ox_id if with_ox else 0)
        hop = chosen.get(word)
        if hop is None:
            if len(chosen) >= CACHE_ENTRIES:
                chosen.clear()
            hop = chosen[word] = hops[mix64(word ^ seed) % len(hops)]
        return hop
    return by_hash


def balance(loads: list[float]) -> dict[str, float]:
    """How evenly *loads* (one per member of an equal-cost group, e.g. the
    utilisation of each ISL direction) fall: min, mean, max, ``max_over_mean``
    (1 when even; the group carries what its busiest member allows only
    then) and ``cv``, the coefficient of variation (standard deviation over
    mean, population form; 0 when even). An idle group gives 1 and 0."""
    mean = sum(loads) / len(loads)
    if mean <= 0:
        return {"min": 0.0, "mean": 0.0, "max": 0.0, "max_over_mean": 1.0, "cv": 0.0}
    spread = (sum((x - mean) ** 2 for x in loads) / len(loads)) ** 0.5
    return {"min": min(loads), "mean": mean, "max": max(loads),
            "max_over_mean": max(loads) / mean, "cv": spread / mean}
