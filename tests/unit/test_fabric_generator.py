"""Generated fabrics ([fabric]): switch, N_Port and ISL counts and port numbers
against the closed forms of each kind, the same fabric written out by hand
giving the same configuration and results, and bad tables refused in one line."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fcsim.fabric.shapes import (
    Shape,
    core_edge,
    fan_in,
    fat_tree,
    full_mesh,
    permutation,
    random_pairs,
    ring,
)
from fcsim.runner import run_scenario
from fcsim.scenario.loader import load_scenario
from tests.builders import assert_refused


def _ports_once(shape: Shape) -> None:
    """Every switch port is used once, ports 0 .. used - 1 without gaps, and
    the switches are connected."""
    used = Counter([(s, p) for _, s, p in shape.nodes]
                   + [end for isl in shape.isls for end in isl])
    assert max(used.values()) == 1
    per_switch = shape.ports_used()
    for name, _ in shape.switches:
        assert sorted(p for s, p in used if s == name) == list(range(per_switch[name]))
    graph = nx.Graph([(a, b) for (a, _), (b, _) in shape.isls])
    graph.add_nodes_from(name for name, _ in shape.switches)
    assert nx.is_connected(graph)


@given(st.integers(2, 40), st.integers(1, 6), st.integers(1, 20), st.integers(1, 3))
@settings(max_examples=30, deadline=None)
def test_core_edge_counts(switches: int, cores: int, n: int, isls: int) -> None:
    cores = min(cores, switches - 1)
    edges = switches - cores
    shape = core_edge(switches, cores, n, isls)
    assert len(shape.switches) == switches and len(shape.nodes) == edges * n
    assert len(shape.isls) == edges * cores * isls
    assert [s for s, role in shape.switches if role == "core"] == [f"c{c}" for c in range(cores)]
    assert shape.edges == tuple(f"e{e}" for e in range(edges))
    used = shape.ports_used()
    assert used["e0"] == n + cores * isls and used["c0"] == edges * isls
    assert shape.nodes[-1] == (f"e{edges - 1}n{n - 1}", f"e{edges - 1}", n - 1)
    _ports_once(shape)


@given(st.integers(2, 30), st.integers(1, 20), st.integers(1, 3))
@settings(max_examples=30, deadline=None)
def test_full_mesh_counts(switches: int, n: int, isls: int) -> None:
    shape = full_mesh(switches, n, isls)
    assert len(shape.switches) == switches and len(shape.nodes) == switches * n
    assert len(shape.isls) == switches * (switches - 1) // 2 * isls
    assert set(shape.ports_used().values()) == {n + (switches - 1) * isls}
    _ports_once(shape)


@pytest.mark.parametrize("k", [2, 4, 6, 8, 12])
@pytest.mark.parametrize("isls", [1, 2])
def test_fat_tree_counts(k: int, isls: int) -> None:
    n = 3
    shape = fat_tree(k, n, isls)
    roles = Counter(role for _, role in shape.switches)
    assert roles == {"core": k * k // 4, "aggregation": k * k // 2, "edge": k * k // 2}
    assert len(shape.switches) == 5 * k * k // 4 and len(shape.nodes) == k * k // 2 * n
    assert len(shape.isls) == k ** 3 // 2 * isls  # k³/4 edge-aggregation, k³/4 aggregation-core
    used = shape.ports_used()
    assert used["p0e0"] == n + k // 2 * isls and used["p0a0"] == used["c0"] == k * isls
    _ports_once(shape)


def test_permutation_random_pairs_and_fan_in() -> None:
    shape = core_edge(4, 2, 3, 1)  # e0n0 e0n1 e0n2 e1n0 e1n1 e1n2
    names = [name for name, _, _ in shape.nodes]
    assert permutation(shape) == [(names[i], names[(i + 3) % 6]) for i in range(6)]
    odd = permutation(full_mesh(3, 1, 1))  # N = 3: i to i + 1
    assert odd == [("s0n0", "s1n0"), ("s1n0", "s2n0"), ("s2n0", "s0n0")]
    pairs = random_pairs(shape, 7)
    assert [s for s, _ in pairs] == names and all(s != d for s, d in pairs)
    assert pairs == random_pairs(shape, 7) and set(d for _, d in pairs) <= set(names)
    assert random_pairs(shape, 7) != random_pairs(shape, 8)
    assert fan_in(shape, 2) == [("e0n0", "e1n1"), ("e0n1", "e1n2"), ("e0n2", "e1n1"),
                                ("e1n0", "e1n2")]


def test_random_pairs_are_uniform_over_the_others() -> None:
    """Each N_Port's partner is uniform over the other N - 1: over many seeds
    each of the 5 others of N_Port 0 is drawn within 5 binomial deviations."""
    shape = core_edge(4, 2, 3, 1)
    draws = [random_pairs(shape, seed)[0][1] for seed in range(3000)]
    mean, sigma = 3000 / 5, (3000 * 0.2 * 0.8) ** 0.5
    for other in ("e0n1", "e0n2", "e1n0", "e1n1", "e1n2"):
        assert abs(draws.count(other) - mean) < 5 * sigma


@pytest.mark.parametrize(("traffic", "names"), [
    ('traffic = "permutation"', ["perm0", "perm1", "perm2", "perm3"]),
    ('traffic = "random-pairs"\ntraffic_seed = 5', ["pair0", "pair1", "pair2", "pair3"]),
    ('traffic = "fan-in"\ntargets = 1', ["fanin0", "fanin1", "fanin2"]),
])
def test_each_traffic_pattern_generates_its_streams(
        tmp_path: Path, traffic: str, names: list[str]) -> None:
    path = tmp_path / "traffic.toml"
    path.write_text(GENERATED.replace('traffic = "ring"', traffic)
                    .replace('duration = "2 ms"', 'duration = "0.5 ms"'), encoding="utf-8")
    scenario = load_scenario(path)
    assert [w.name for w in scenario.workloads] == names
    assert all(w.outstanding == 2 and w.size == 8192 for w in scenario.workloads)
    first = run_scenario(scenario)["repetitions"][0]
    assert all(w["payload_bytes"] > 0 for w in first["workloads"].values())


def test_the_fabric_routing_key_sets_every_generated_switch(tmp_path: Path) -> None:
    path = tmp_path / "routing.toml"
    path.write_text(GENERATED.replace("isls = 2", 'isls = 2\nrouting = "device-based"'),
                    encoding="utf-8")
    assert {s.routing for s in load_scenario(path).switches} == {"device-based"}
    path.write_text(GENERATED, encoding="utf-8")
    assert {s.routing for s in load_scenario(path).switches} == {None}  # the model's


def test_ring_goes_from_each_edge_to_the_next() -> None:
    shape = core_edge(5, 2, 3, 1)
    assert ring(shape, 3) == [("e0n0", "e1n1"), ("e1n0", "e2n1"), ("e2n0", "e0n1")]
    assert ring(full_mesh(2, 1, 1), 1) == [("s0n0", "s1n0"), ("s1n0", "s0n0")]


GENERATED = """topology = "fabric"
description = "generated"
[run]
duration = "2 ms"
login = true
[fabric]
kind = "core-edge"
switches = 4
cores = 2
model = "generic-nonblocking"
nodes_per_switch = 2
isls = 2
speed = "2GFC"
length = "5 m"
isl_length = "500 m"
traffic = "ring"
stream_size = "8 KiB"
"""


def _by_hand() -> str:
    """The fabric of GENERATED, written out switch by switch."""
    lines = ['topology = "fabric"', 'description = "by hand"', "[run]", 'duration = "2 ms"',
             "login = true"]
    for name in ("c0", "c1", "e0", "e1"):
        lines += ["[[switches]]", f'name = "{name}"', 'model = "generic-nonblocking"']
    links = []
    for e in range(2):
        for m in range(2):
            lines += ["[[nodes]]", f'name = "e{e}n{m}"']
            links.append((f"e{e}n{m}", f"e{e}n{m}", f"e{e}:{m}", "5 m"))
    for e in range(2):
        for c in range(2):
            for i in range(2):
                links.append((f"e{e}-c{c}-{i}", f"e{e}:{2 + 2 * c + i}", f"c{c}:{2 * e + i}",
                              "500 m"))
    for name, a, b, length in links:
        lines += ["[[links]]", f'name = "{name}"', f'ends = ["{a}", "{b}"]', 'speed = "2GFC"',
                  f'length = "{length}"']
    for w, (a, b) in enumerate([("e0n0", "e1n1"), ("e1n0", "e0n1")]):
        lines += ["[[workloads]]", f'name = "ring{w}"', 'type = "stream"', f'from = "{a}"',
                  f'to = "{b}"', "class = 3", 'size = "8 KiB"', "outstanding = 2"]
    return "\n".join(lines) + "\n"


def test_a_generated_fabric_is_the_fabric_written_out(tmp_path: Path) -> None:
    (tmp_path / "generated.toml").write_text(GENERATED, encoding="utf-8")
    (tmp_path / "generated.toml").with_name("by-hand.toml").write_text(_by_hand())
    generated = load_scenario(tmp_path / "generated.toml")
    by_hand = load_scenario(tmp_path / "by-hand.toml")
    for part in ("switches", "nodes", "links", "workloads", "run"):
        assert getattr(generated, part) == getattr(by_hand, part), part
    a, b = run_scenario(generated), run_scenario(by_hand)
    assert json.dumps(a["repetitions"], sort_keys=True) == json.dumps(b["repetitions"],
                                                                      sort_keys=True)
    assert all(w["payload_bytes"] > 0 for w in a["repetitions"][0]["workloads"].values())


_COUNTS = ('kind = "core-edge"\nswitches = 4\ncores = 2\nmodel = "generic-nonblocking"\n'
           "nodes_per_switch = 2\nisls = 2")
_FAT_TREE = ('kind = "fat-tree"\npods = 12\nmodel = "generic-nonblocking"\n'
             "nodes_per_switch = 2\nisls = 6")


@pytest.mark.parametrize(("edit", "key", "value", "allowed"), [
    (("switches = 4", "switches = 240"), "fabric.switches", "given 240", "an integer 2..239"),
    (("kind = \"core-edge\"", "kind = \"torus\""), "fabric.kind", "given 'torus'",
     "one of 'core-edge', 'full-mesh', 'fat-tree'"),
    (("cores = 2", "cores = 4"), "fabric.cores", "given 4", "fewer than switches (4)"),
    (("nodes_per_switch = 2", "nodes_per_switch = 61"), "fabric.nodes_per_switch",
     "given 61", "at most 60: edge switch e0 takes 4 ports for ISLs (cores 2 x isls 2) "
     "and its model generic-nonblocking has 64 ports"),
    (("isls = 2", "isls = 40"), "fabric.cores", "given 2", "fewer switches joined or fewer "
     "isls: edge switch e0 needs 80 ports for ISLs (cores 2 x isls 40)"),
    ((_COUNTS, _FAT_TREE),
     "fabric.pods", "given 12", "at most 10: core and aggregation switches take pods x "
     "isls (6) ports and its model generic-nonblocking has 64 ports"),
    (("switches = 4", "pods = 4"), "fabric.pods", "given 4",
     "not with kind = 'core-edge', which takes switches and cores and core_model"),
    (("kind = \"core-edge\"\nswitches = 4\ncores = 2", "kind = \"fat-tree\"\npods = 5"),
     "fabric.pods", "given 5", "an even integer 2..12"),
    (("kind = \"core-edge\"\nswitches = 4", "kind = \"full-mesh\"\nswitches = 4"),
     "fabric.cores", "given 2", "not with kind = 'full-mesh', which takes switches"),
    (("switches = 4\n", ""), "fabric.switches", "missing",
     "kind = 'core-edge' needs an integer 2..239"),
    (("switches = 4", "switches = 36"), "fabric.switches", "given 36",
     "at most 34: core switch c0 takes isls (2) ports per edge switch and its model "
     "generic-nonblocking has 64 ports"),
    (('traffic = "ring"', 'traffic = "ring"\ntargets = 2'), "fabric.targets", "given 2",
     "only with traffic = 'fan-in' (traffic is 'ring')"),
    (('traffic = "ring"', 'traffic = "permutation"\ntraffic_seed = 3'),
     "fabric.traffic_seed", "given 3",
     "only with traffic = 'random-pairs' (traffic is 'permutation')"),
    (('traffic = "ring"', 'traffic = "fan-in"\ntargets = 4'), "fabric.targets", "given 4",
     "at most 3: fewer than the 4 N_Ports, so that one at least sends"),
    (('traffic = "ring"', 'traffic = "star"'), "fabric.traffic", "given 'star'",
     "one of 'none', 'ring', 'permutation', 'random-pairs', 'fan-in'"),
    (('isls = 2', 'isls = 2\nrouting = "random"'), "fabric.routing", "given 'random'",
     "one of 'port-based', 'device-based', 'exchange-based'"),
])
def test_a_bad_fabric_table_is_refused_in_one_line(
        tmp_path: Path, edit: tuple[str, str], key: str, value: str, allowed: str) -> None:
    assert_refused(tmp_path, GENERATED, edit, key, value, allowed)


def test_listed_and_generated_switches_share_239_domains(tmp_path: Path) -> None:
    listed = "".join(f'[[switches]]\nname = "x{i}"\nmodel = "generic-nonblocking"\n'
                     for i in range(3))
    text = GENERATED.replace("switches = 4", "switches = 238").replace(
        'model = "generic-nonblocking"', 'model = "generic-nonblocking"\n'
        'core_model = "generic-director-256"').replace("isls = 2", "isls = 1")
    assert_refused(tmp_path, text + listed, ("switches = 238", "switches = 238"),
                   "fabric.switches", "given 238", "a fabric of at most 239 domains: 238 "
                   "generated switches and 3 listed in [[switches]] make 241")


def test_no_fabric_table_outside_a_fabric(tmp_path: Path) -> None:
    assert_refused(tmp_path, GENERATED, ('topology = "fabric"', 'topology = "loop"'),
                   "fabric", "given {kind = 'core-edge', switches = 4, cores = 2, model = 'ge...",
                   "no [fabric] outside topology = 'fabric'")


def test_listed_tables_that_are_not_arrays_are_refused_as_such(tmp_path: Path) -> None:
    assert_refused(tmp_path, GENERATED, ('description = "generated"',
                                         'description = "generated"\nswitches = 3'),
                   "switches", "given 3", "an array of tables, written [[switches]]")


@pytest.mark.parametrize(("counts", "switches", "streams"), [
    ('kind = "full-mesh"\nswitches = 5', 5, 5),
    ('kind = "fat-tree"\npods = 4', 20, 8),
])
def test_every_kind_loads_routes_and_carries_its_ring(
        tmp_path: Path, counts: str, switches: int, streams: int) -> None:
    path = tmp_path / "kind.toml"
    path.write_text(GENERATED.replace('kind = "core-edge"\nswitches = 4\ncores = 2', counts)
                    .replace('duration = "2 ms"', 'duration = "1 ms"'), encoding="utf-8")
    scenario = load_scenario(path)
    assert len(scenario.switches) == switches and len(scenario.workloads) == streams
    first = run_scenario(scenario)["repetitions"][0]
    assert all(w["payload_bytes"] > 0 for w in first["workloads"].values())


def test_the_239_domain_example_is_as_its_file_says() -> None:
    scenario = load_scenario(Path(__file__).parents[2] / "scenarios/fabric-239-domains.toml")
    assert len(scenario.switches) == 239 and len(scenario.nodes) == 235 * 17 == 3995
    isls = [link for link in scenario.links if all(":" in end for end in link.ends)]
    assert len(isls) == 235 * 4 and len(scenario.workloads) == 235
    assert {s.model.ports for s in scenario.switches[:4]} == {256}
