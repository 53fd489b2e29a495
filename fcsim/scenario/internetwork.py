"""An internetwork file seen network by network: each ``[[networks]]`` table with
the nodes it names is checked as a scenario of one network, by the same models
and checks as a file of that topology, and converted the same way.

A node on one network keeps its name as its port's; a node on several has a
port per network named ``node@network``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

from pydantic import ValidationError

from fcsim.ethernet.config import EthernetNodeSection
from fcsim.host.routes import network_between
from fcsim.scenario.sections.document import TOPOLOGIES, InternetworkScenario
from fcsim.scenario.sections.myrinet_nodes import MyrinetNodeSection
from fcsim.scenario.sections.nodes import FabricNodeSection, LoopNodeSection, NodeSection
from fcsim.scenario.workload_model import (
    IperfConfig,
    NetperfConfig,
    TransferConfig,
    WorkloadConfig,
    exchanging_pairs,
)
from fcsim.schema.errors import Problem, given, problems_of, show

NODE_KEYS = {"point-to-point": NodeSection, "fabric": FabricNodeSection,
             "loop": LoopNodeSection, "ethernet": EthernetNodeSection,
             "myrinet": MyrinetNodeSection}
"""The node table of each kind of network: the keys a node's port there takes."""
HOST_KEYS = frozenset({"name", "host", "background_load", "tcp_timestamps", "channels", "block",
                       "routes", "buses"})
"""Keys of a node's host and its own disks, which fit a node on any network."""
SEPARATOR = "@"
"""Between a node's name and its network's in the name of its port there."""


def members(network: Any) -> list[str]:
    """The names of the nodes *network* (a checked ``[[networks]]`` table) joins,
    in the order it names them first."""
    if network.topology == "loop":
        return list(network.loop.order or ())
    names: list[str] = []
    for link in network.links:
        names += [end for end in link.ends if ":" not in end and end not in names]
    return names


def networks_of(doc: InternetworkScenario) -> dict[str, list[int]]:
    """Each node's networks, as indices into ``doc.networks``, in order."""
    on: dict[str, list[int]] = {n.name: [] for n in doc.nodes}
    for k, network in enumerate(doc.networks):
        for name in members(network):
            if name in on:
                on[name].append(k)
    return on


def port_name(node: str, networks: list[str], network: str) -> str:
    """The name of *node*'s port on *network*, among the *networks* it is on."""
    return node if len(networks) == 1 else f"{node}{SEPARATOR}{network}"


def shared(doc: Any, source: str, destination: str) -> list[str]:
    """The topologies of the networks *source* can reach *destination* over, in
    the order it would try them (only the one its static route names, if any);
    for a file of one network, that network's topology."""
    if not isinstance(doc, InternetworkScenario):
        return [doc.topology]
    on = networks_of(doc)
    routes = dict(next((n.routes or () for n in doc.nodes if n.name == source), ()))
    wanted = routes.get(destination)
    return [doc.networks[k].topology for k in on.get(source, [])
            if k in on.get(destination, []) and wanted in (None, doc.networks[k].name)]


def exchanges(w: WorkloadConfig, targets: set[str]) -> list[tuple[str, str, bool]]:
    """The (sender, receiver, over Fibre Channel) node pairs workload *w* exchanges
    frames between: FC-2 and SCSI traffic (with an FCP target among *targets*)
    needs Fibre Channel, IP traffic between hosts any network."""
    ip = isinstance(w, NetperfConfig | IperfConfig | TransferConfig)
    return [(a, b, not ip or a in targets or b in targets) for a, b in exchanging_pairs(w)]


def peers(doc: InternetworkScenario, workloads: tuple[WorkloadConfig, ...]
          ) -> dict[str, set[tuple[str, str]]]:
    """For each network, the (sender, receiver) port pairs whose traffic crosses it."""
    on = {name: [doc.networks[k].name for k in ks] for name, ks in networks_of(doc).items()}
    topologies = {n.name: n.topology for n in doc.networks}
    routes = {n.name: dict(n.routes or ()) for n in doc.nodes}
    targets = {n.name for n in doc.nodes if n.target is not None}
    out: dict[str, set[tuple[str, str]]] = {n.name: set() for n in doc.networks}
    for w in workloads:
        for a, b, fc in exchanges(w, targets):
            if b not in on:  # a disk of a's own
                continue
            network = network_between(on[a], on[b], topologies, routes[a].get(b), fc)
            if network is not None:
                out[network].add((port_name(a, on[a], network), port_name(b, on[b], network)))
    return out


def sub_documents(doc: InternetworkScenario, raw: dict[str, Any]
                  ) -> Iterator[tuple[int, dict[str, Any], list[int]]]:
    """For each network: its index, the TOML document of a scenario of that one
    network (its tables, the nodes it names with the keys such a node takes,
    no workloads) and the indices of those nodes in ``doc.nodes``."""
    index = {n.name: i for i, n in enumerate(doc.nodes)}
    for k, network in enumerate(doc.networks):
        table = raw["networks"][k]
        keys = NODE_KEYS[network.topology].keys()
        chosen = [index[name] for name in members(network) if name in index]
        nodes = [{key: value for key, value in raw["nodes"][i].items() if key in keys}
                 for i in chosen]
        sub = {key: value for key, value in table.items() if key != "name"}
        yield k, {**sub, "run": raw["run"], "nodes": nodes}, chosen


def _moved(problem: Problem, k: int, chosen: list[int]) -> Problem:
    """*problem* of network *k*'s own document, with its key path in the file."""
    def node(match: re.Match[str]) -> str:
        return f"nodes[{chosen[int(match[1])]}]"
    path = re.sub(r"^nodes\[(\d+)\]", node, problem.path)
    path = re.sub(r"^(links|switches|loop)\b", rf"networks[{k}].\1", path)
    expected = re.sub(r"\b(links\[\d+\])", rf"networks[{k}].\1", problem.expected)
    return Problem(path, problem.problem, expected)


def check_networks(doc: InternetworkScenario, raw: dict[str, Any],
                   check: Callable[[Any, dict[str, Any]], list[Problem]]) -> list[Problem]:
    """Every problem of *doc*'s networks: each checked by *check* as a file of
    its topology, then what spans them (names, membership, node keys, routes)."""
    problems = list(_across(doc, raw))
    for k, sub, chosen in sub_documents(doc, raw):
        model = TOPOLOGIES[doc.networks[k].topology]
        try:
            one = model.model_validate(sub)
        except ValidationError as error:
            problems += [_moved(p, k, chosen) for p in problems_of(error, model, sub)]
            continue
        problems += [_moved(p, k, chosen) for p in check(one, sub)]
    return problems


def _across(doc: InternetworkScenario, raw: dict[str, Any]) -> Iterator[Problem]:
    names = [n.name for n in doc.nodes]
    for i, name in enumerate(names):
        if SEPARATOR in name:
            yield Problem(f"nodes[{i}].name", given(name),
                          f"a name without {SEPARATOR!r} (it names a node's port on a network)")
    seen: dict[str, str] = {}
    for k, network in enumerate(doc.networks):
        if network.name in seen:
            yield Problem(f"networks[{k}].name", given(network.name),
                          f"a name not used by {seen[network.name]}")
        seen.setdefault(network.name, f"networks[{k}]")
        if network.topology == "loop" and network.loop.order is None:
            yield Problem(f"networks[{k}].loop.order", "missing",
                          "the loop's nodes in ring order (an internetwork's loop names them)")
        yield from _unique_across(doc, k, network)
    on = networks_of(doc)
    for i, node in enumerate(doc.nodes):
        if not on[node.name]:
            yield Problem(f"nodes[{i}]", f"node {node.name!r} is on no network",
                          "a node named by the links (or loop order) of a network")
            continue
        kinds = {doc.networks[k].topology for k in on[node.name]}
        allowed = {key for kind in kinds for key in NODE_KEYS[kind].keys()} | HOST_KEYS
        for key, value in raw["nodes"][i].items():
            if key not in allowed:
                yield Problem(f"nodes[{i}].{key}", given(value),
                              f"a key of a node on the networks {node.name!r} is on "
                              f"({', '.join(sorted(kinds))}): "
                              + ", ".join(sorted(allowed)))
        yield from _routes(doc, i, node, on)
        yield from _buses(doc, i, node, on)


def _names(network: Any, key: str) -> list[tuple[str, str]]:
    """(key path within the network, name) of its links (a loop's ring is its one
    link; unnamed links are ``network-link<i>``) or of its switches."""
    if key == "switches":
        return [(f"switches[{j}].name", s.name) for j, s in enumerate(getattr(network, key, ()))]
    if network.topology == "loop":
        return [("loop.name", network.loop.name)]
    return [(f"links[{j}].name", link.name or f"{network.name}-link{j}")
            for j, link in enumerate(network.links)]


def _unique_across(doc: InternetworkScenario, k: int, network: Any) -> Iterator[Problem]:
    """Link and switch names unique across networks (they name results)."""
    for key in ("links", "switches"):
        for path, name in _names(network, key):
            for earlier in doc.networks[:k]:
                if name in [other for _, other in _names(earlier, key)]:
                    yield Problem(f"networks[{k}].{path}", given(name),
                                  f"a name not used in network {earlier.name!r} (unnamed "
                                  "links are named network-link<i>)")


def _routes(doc: InternetworkScenario, i: int, node: Any,
            on: dict[str, list[int]]) -> Iterator[Problem]:
    by_name = {n.name: n for n in doc.nodes}
    for peer, network in node.routes or ():
        path = f"nodes[{i}].routes.{peer}"
        if peer not in by_name or peer == node.name:
            yield Problem(path, f"a route to {peer!r}", "a route to another node: "
                          + ", ".join(show(n) for n in by_name if n != node.name))
            continue
        both = [doc.networks[k].name for k in on[node.name] if k in on[peer]]
        if network not in both:
            yield Problem(path, given(network), f"a network both {node.name!r} and {peer!r} "
                          f"are on: {', '.join(map(repr, both)) or 'none'}")


def _buses(doc: InternetworkScenario, i: int, node: Any,
           on: dict[str, list[int]]) -> Iterator[Problem]:
    mine = [doc.networks[k].name for k in on[node.name]]
    count = node.host.buses if node.host is not None else 0
    for network, index in node.buses or ():
        path = f"nodes[{i}].buses.{network}"
        if node.host is None:
            yield Problem(path, given(index), "no buses key on a node without a host")
        elif network not in mine:
            yield Problem(path, f"a card on {network!r}", f"a network {node.name!r} is on: "
                          + ", ".join(map(repr, mine)))
        elif index >= count:
            yield Problem(path, given(index), f"a bus of host model {node.host.name!r}: "
                          f"0..{count - 1} (its buses)")
