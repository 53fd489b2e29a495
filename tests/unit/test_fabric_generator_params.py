"""Generated fabrics ([fabric]) with per-node service parameters, per-tier
ISL speeds in a fat tree and per-ISL credit: the tables they stand for, one
closed form, and bad combinations refused in one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from fcsim.build import build_fabric
from fcsim.engine.simulation import Simulation
from fcsim.fabric.long_distance import long_distance_buffers
from fcsim.fc0.speed import speed_named
from fcsim.fc2.frame import MAX_DATA_FIELD, frame_chars
from fcsim.runner import run_scenario
from fcsim.scenario.loader import load_scenario
from tests.builders import assert_refused

CORE_EDGE = """topology = "fabric"
description = "generated"
[run]
duration = "2 ms"
[fabric]
kind = "core-edge"
switches = 4
cores = 2
model = "generic-nonblocking"
nodes_per_switch = 2
speed = "2GFC"
isl_length = "10 km"
isl_bb_credit = 40
[fabric.node]
bb_credit = 3
ee_credit = 5
busy_retry = "20 us"
"""

FAT_TREE = """topology = "fabric"
description = "fat tree, slow upper tier"
[run]
duration = "4 ms"
warmup = "1 ms"
login = false
[fabric]
kind = "fat-tree"
pods = 2
model = "generic-nonblocking"
nodes_per_switch = 2
speed = "8GFC"
isl_speed = "8GFC"
core_isl_speed = "2GFC"
[[workloads]]
name = "across"
type = "stream"
from = "p0e0n0"
to = "p1e0n0"
class = 3
size = "64 KiB"
outstanding = 2
"""


def _load(tmp_path: Path, text: str):
    path = tmp_path / "generated.toml"
    path.write_text(text, encoding="utf-8")
    return load_scenario(path)


def test_every_generated_n_port_takes_the_node_table(tmp_path: Path) -> None:
    scenario = _load(tmp_path, CORE_EDGE)
    assert len(scenario.nodes) == 4
    for node in scenario.nodes:
        assert (node.params.bb_credit, node.params.ee_credit) == (3, 5)
        assert node.params.busy_retry == pytest.approx(20e-6)
    net = build_fabric(Simulation(1), scenario)
    model = scenario.switches[0].model
    for name, node in net.nodes.items():
        f_port = node.port.peer
        assert f_port.credit_login == 3 and f_port.rx_buffers == model.bb_credit, name
    isls = [link for link in scenario.links if ":" in link.ends[0] and ":" in link.ends[1]]
    assert len(isls) == 4 and {link.bb_credit for link in isls} == {40}
    for link in isls:
        assert net.links[link.name].a.rx_buffers == net.links[link.name].b.rx_buffers == 40


def test_isl_long_distance_gives_every_isl_brocade_s_buffers(tmp_path: Path) -> None:
    scenario = _load(tmp_path, CORE_EDGE.replace("isl_bb_credit = 40",
                                                 'isl_long_distance = "10 km"'))
    want = long_distance_buffers(10_000.0, speed_named("2GFC"))  # 10 km x 2 / 2
    assert want == 10
    assert {link.bb_credit for link in scenario.links if ":" in link.ends[0]} == {want}


def test_a_fat_tree_s_upper_tier_has_its_own_speed(tmp_path: Path) -> None:
    """Edge-aggregation links at 8GFC, aggregation-core at 2GFC: a stream from
    one pod to the other crosses two 2GFC links and gets 2GFC's full data rate
    (every equal-cost path alike), against 8GFC's with every tier at 8GFC."""
    scenario = _load(tmp_path, FAT_TREE)
    speeds = {link.name: link.speed.name for link in scenario.links}
    assert speeds["p0a0-c0"] == speeds["p1a0-c0"] == "2GFC"
    assert speeds["p0e0-p0a0"] == speeds["p0e0n0"] == "8GFC"

    def full(speed: str) -> float:
        chars = frame_chars(MAX_DATA_FIELD) + 24
        return speed_named(speed).char_rate * MAX_DATA_FIELD / chars
    rate = run_scenario(scenario)["repetitions"][0]["workloads"]["across"]
    assert rate["throughput_bytes_per_s"] == pytest.approx(full("2GFC"), rel=0.005)
    fast = _load(tmp_path, FAT_TREE.replace('core_isl_speed = "2GFC"', 'core_isl_speed = "8GFC"'))
    rate = run_scenario(fast)["repetitions"][0]["workloads"]["across"]
    assert rate["throughput_bytes_per_s"] == pytest.approx(full("8GFC"), rel=0.005)


@pytest.mark.parametrize(("base", "edit", "key", "given", "allowed"), [
    (CORE_EDGE, ("isl_bb_credit = 40", 'isl_bb_credit = 40\ncore_isl_speed = "8GFC"'),
     "fabric.core_isl_speed", "given '8GFC'", "not with kind = 'core-edge'"),
    (CORE_EDGE, ("isl_bb_credit = 40", 'isl_bb_credit = 40\nisl_long_distance = "5 km"'),
     "fabric.isl_long_distance", "given '5 km'", "not with isl_bb_credit"),
    (CORE_EDGE, ("isl_bb_credit = 40", "isl_bb_credit = 0"), "fabric.isl_bb_credit",
     "given 0", "an integer >= 1"),
    (CORE_EDGE, ("bb_credit = 3", "bb_credit = 0"), "fabric.node.bb_credit", "given 0",
     "an integer >= 1 (receive buffers)"),
    (CORE_EDGE, ("bb_credit = 3", 'host = "ideal"'), "fabric.node.host", "unknown key",
     "allowed keys in [fabric.node]: bb_credit, rx_data_field, ee_credit"),
    (CORE_EDGE, ("isl_bb_credit = 40", 'isl_bb_credit = 40\nexchanges = "per-frame"'),
     "fabric.exchanges", "given 'per-frame'", "one of 'per-slot', 'per-sequence'"),
    (FAT_TREE, ('core_isl_speed = "2GFC"', 'core_isl_speed = "fast"'),
     "fabric.core_isl_speed", "given 'fast'", "a speed name"),
])
def test_refused(tmp_path: Path, base: str, edit: tuple[str, str], key: str, given: str,
                 allowed: str) -> None:
    assert_refused(tmp_path, base, edit, key, given, allowed)


def test_generated_traffic_takes_the_exchanges_key(tmp_path: Path) -> None:
    """Every generated stream uses exchanges as [fabric] says; per slot unless told."""
    ring = CORE_EDGE.replace("isl_bb_credit = 40", 'isl_bb_credit = 40\ntraffic = "ring"')
    assert {w.exchanges for w in _load(tmp_path, ring).workloads} == {"per-slot"}
    per_sequence = ring.replace('traffic = "ring"', 'traffic = "ring"\nexchanges = "per-sequence"')
    assert {w.exchanges for w in _load(tmp_path, per_sequence).workloads} == {"per-sequence"}
