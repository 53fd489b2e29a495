"""Generated fabrics with storage targets ([fabric.storage]) and the fan-out
traffic pattern: where the targets go, the tables they stand for, and each
refused table in one line."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fcsim.fabric.shapes import (
    core_edge,
    fan_out,
    fat_tree,
    full_mesh,
    place_targets,
    tier,
    to_targets,
)
from fcsim.scenario.loader import load_scenario
from tests.builders import assert_refused

GENERATED = """topology = "fabric"
description = "generated with storage"
[run]
duration = "1 ms"
login = false
[fabric]
kind = "core-edge"
switches = 4
cores = 2
model = "generic-nonblocking"
nodes_per_switch = 3
speed = "4GFC"
[fabric.storage]
count = 3
on = "core"
model = "tms-ramsan"
bs = "64 KiB"
iodepth = 4
"""


def test_targets_go_round_robin_on_the_next_free_ports() -> None:
    shape = core_edge(4, 2, 3, 1)  # cores use ports 0-1 (one ISL per edge), edges 0-4
    assert place_targets(shape, 3, ("c0", "c1")) == (("t0", "c0", 2), ("t1", "c1", 2),
                                                     ("t2", "c0", 3))
    assert place_targets(shape, 2, ("e1",)) == (("t0", "e1", 5), ("t1", "e1", 6))
    targets = place_targets(shape, 2, ("c0", "c1"))
    assert to_targets(shape, targets) == [("e0n0", "t0"), ("e0n1", "t1"), ("e0n2", "t0"),
                                          ("e1n0", "t1"), ("e1n1", "t0"), ("e1n2", "t1")]


@given(st.sampled_from(["core-edge", "fat-tree"]), st.integers(1, 6), st.integers(1, 4),
       st.integers(1, 40), st.sampled_from(["core", "edge"]))
@settings(max_examples=40, deadline=None)
def test_targets_take_each_port_once_and_spread_evenly(kind: str, size: int, n: int,
                                                       count: int, role: str) -> None:
    """Over core-edge fabrics and fat trees: with the targets, every switch port
    is used once and each switch's ports run from 0 without gaps; the
    switches of the tier hold ⌊count/S⌋ or ⌈count/S⌉ targets each; every
    generated N_Port reads from one target and each target serves
    ⌊N/count⌋ or ⌈N/count⌉ of them."""
    shape = core_edge(size + 2, 2, n, 1) if kind == "core-edge" else fat_tree(2 * (size % 3 + 1),
                                                                               n, 1)
    switches = tier(shape, role)
    targets = place_targets(shape, count, switches)
    used = Counter([(s, p) for _, s, p in shape.nodes] + [end for isl in shape.isls for end in isl]
                   + [(s, p) for _, s, p in targets])
    assert max(used.values()) == 1
    for name in switches:
        ports = sorted(p for s, p in used if s == name)
        assert ports == list(range(len(ports)))
    held = Counter(s for _, s, _ in targets)
    assert {held[name] for name in switches} <= {count // len(switches),
                                                 -(-count // len(switches))}
    served = Counter(t for _, t in to_targets(shape, targets))
    assert sum(served.values()) == len(shape.nodes)
    assert set(served.values()) <= {len(shape.nodes) // count, -(-len(shape.nodes) // count)}


def test_fan_out_sends_from_the_first_n_ports_to_every_other() -> None:
    shape = full_mesh(3, 2, 1)  # s0n0 s0n1 s1n0 s1n1 s2n0 s2n1
    assert fan_out(shape, 1) == [("s0n0", n) for n in ("s0n1", "s1n0", "s1n1", "s2n0", "s2n1")]
    assert fan_out(shape, 2) == [("s0n0", "s1n0"), ("s0n1", "s1n1"), ("s0n0", "s2n0"),
                                 ("s0n1", "s2n1")]


def test_the_storage_table_stands_for_targets_links_and_fio_jobs(tmp_path: Path) -> None:
    path = tmp_path / "storage.toml"
    path.write_text(GENERATED.replace('iodepth = 4', 'iodepth = 4\nspeed = "8GFC"\n'
                                      'rw = "randread"'), encoding="utf-8")
    scenario = load_scenario(path)
    targets = [n for n in scenario.nodes if n.name.startswith("t")]
    assert [n.name for n in targets] == ["t0", "t1", "t2"]
    assert {n.target.name for n in targets} == {"tms-ramsan"}
    links = {link.name: link for link in scenario.links}
    assert links["t0"].ends == ("t0", "c0:2") and links["t2"].ends == ("t2", "c0:3")
    assert links["t1"].speed.name == "8GFC" and links["e0n0"].speed.name == "4GFC"
    jobs = [w for w in scenario.workloads if w.name.startswith("fio")]
    assert len(jobs) == 6
    assert [(w.source, w.destination) for w in jobs[:4]] == [
        ("e0n0", "t0"), ("e0n1", "t1"), ("e0n2", "t2"), ("e1n0", "t0")]
    options = {(w.options.rw, w.options.bs, w.options.iodepth) for w in jobs}
    assert options == {("randread", 65536, 4)}


def test_workload_none_leaves_the_targets_to_the_file(tmp_path: Path) -> None:
    path = tmp_path / "storage.toml"
    path.write_text(GENERATED.replace('bs = "64 KiB"\niodepth = 4', 'workload = "none"')
                    + '[[workloads]]\nname = "one"\ntype = "fio"\nfrom = "e1n2"\n'
                    'to = "t2"\nrw = "read"\n', encoding="utf-8")
    assert [w.name for w in load_scenario(path).workloads] == ["one"]


@pytest.mark.parametrize(("edit", "key", "given", "allowed"), [
    (('on = "core"', 'on = "spine"'), "fabric.storage.on", "given 'spine'",
     "'edge', 'core' or a list of distinct generated switch names"),
    (('on = "core"', 'on = ["c0", "x9"]'), "fabric.storage.on", "given ['c0', 'x9']",
     "generated switches (c0, c1, e0, e1): this fabric has no switch 'x9'"),
    (('kind = "core-edge"\nswitches = 4\ncores = 2', 'kind = "full-mesh"\nswitches = 4'),
     "fabric.storage.on", "given 'core'", "this fabric has no core switches"),
    (("count = 3", "count = 125"), "fabric.storage.count", "given 125",
     "fewer: target t124 would take port 64 of switch c0, which uses 2 of its model "
     "generic-nonblocking's 64 ports"),
    (('iodepth = 4', 'iodepth = 300'), "fabric.storage.iodepth", "given 300",
     "at most the target's queue depth (256, tms-ramsan)"),
    (('bs = "64 KiB"\niodepth = 4', 'workload = "none"\nbs = "64 KiB"'), "fabric.storage.bs",
     "given '64 KiB'", "only with workload = 'fio' (workload is 'none')"),
    (('model = "tms-ramsan"', 'model = "no-such-array"'), "fabric.storage.model",
     "given 'no-such-array'", "the name of a disk, RAM disk, array, SSD or flash array model"),
    (('count = 3\n', ''), "fabric.storage.count", "missing", "an integer >= 1"),
    (('speed = "4GFC"', 'speed = "4GFC"\ntraffic = "fan-out"\nsources = 6'),
     "fabric.sources", "given 6", "at most 5: fewer than the 6 N_Ports, so that one at "
     "least receives"),
    (('speed = "4GFC"', 'speed = "4GFC"\ntraffic = "ring"\nsources = 2'),
     "fabric.sources", "given 2", "only with traffic = 'fan-out' (traffic is 'ring')"),
])
def test_refused(tmp_path: Path, edit: tuple[str, str], key: str, given: str,
                 allowed: str) -> None:
    assert_refused(tmp_path, GENERATED, edit, key, given, allowed)
