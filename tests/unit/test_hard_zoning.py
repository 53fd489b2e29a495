"""Hard zoning: the F_Ports drop every frame between N_Ports that share no
zone and count it (docs/fabric-services.md, "Hard zoning"); frames between zoned
N_Ports run exactly as with soft zoning."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fcsim.fabric.hard_zoning import ZonedFPort
from fcsim.fabric.zoning import Zoning
from fcsim.runner import run_once
from fcsim.scenario.loader import read_document, scenario_from_document
from fcsim.schema.errors import ScenarioError

EXAMPLE = "scenarios/fabric-hard-zoning.toml"


def _run(doc: dict[str, Any]) -> dict[str, Any]:
    return run_once(scenario_from_document(doc, EXAMPLE), 1)


def _without(doc: dict[str, Any], *workloads: str) -> dict[str, Any]:
    doc = copy.deepcopy(doc)
    doc["workloads"] = [w for w in doc["workloads"] if w["name"] not in workloads]
    return doc


def test_every_frame_between_unzoned_n_ports_is_dropped_and_counted() -> None:
    """host1 sends only to disk0, outside its zone: every data frame it sends
    is dropped at its F_Port (switch:1), none reaches disk0 from it, and the
    switch's discards are those drops."""
    result = _run(_without(read_document(EXAMPLE), "host1-disk1"))
    sent = result["nodes"]["host1"]["data_frames_tx"]
    assert sent > 0
    assert result["zoning"]["enforcement"] == "hard"
    assert result["zoning"]["dropped"] == {"switch:0": 0, "switch:1": sent, "switch:2": 0,
                                           "switch:3": 0}
    assert result["switches"]["switch"]["discarded"] == sent
    assert result["workloads"]["host1-disk0"]["frames"] == 0
    # disk0 receives host0's frames and no other
    assert result["nodes"]["disk0"]["data_frames_rx"] == result["workloads"][
        "host0-disk0"]["frames"]


def test_zoned_traffic_is_what_it_is_without_the_stray_stream() -> None:
    """host0's stream to disk0, zoned, gives with hard zoning and host1's
    stream outside the zones what it gives with soft zoning and no such
    stream: the stray frames never leave host1's F_Port (host1's own zoned
    stream shares its link with them, and slows)."""
    doc = read_document(EXAMPLE)
    hard = _run(doc)
    soft = copy.deepcopy(_without(doc, "host1-disk0"))
    del soft["zoning"]
    plain = _run(soft)
    assert hard["workloads"]["host0-disk0"] == plain["workloads"]["host0-disk0"]
    for name in ("disk0", "host0"):
        assert hard["nodes"][name] == plain["nodes"][name]


def test_hard_zoning_changes_nothing_in_a_zoned_example_with_soft_zoning() -> None:
    """The RSCN example (zoned pairs, login frame by frame, a cable pulled:
    its switch recovers from faults) gives identical results when its zones
    are enforced in hardware, with no frame dropped."""
    doc = read_document("scenarios/fabric-rscn-zoning.toml")
    soft = run_once(scenario_from_document(doc, "scenarios/fabric-rscn-zoning.toml"), 1)
    doc["zoning"] = {"enforcement": "hard"}
    hard = run_once(scenario_from_document(doc, "scenarios/fabric-rscn-zoning.toml"), 1)
    zoning = hard.pop("zoning")
    assert zoning.pop("enforcement") == "hard"
    assert set(zoning.pop("dropped").values()) == {0}
    assert zoning == soft.pop("zoning")
    assert hard == soft


def test_with_login_the_plogi_outside_the_zones_is_dropped() -> None:
    """With fabric login on, host1's PLOGI to disk0 is dropped (one frame):
    host1's login never completes (fcsim models no PLOGI timeout), so none of
    its workloads starts; host0 logs in and runs."""
    doc = read_document(EXAMPLE)
    doc["run"]["login"] = True
    result = _run(doc)
    assert result["zoning"]["dropped"]["switch:1"] == 1
    assert result["workloads"]["host1-disk0"]["frames"] == 0
    assert result["workloads"]["host1-disk1"]["frames"] == 0
    assert result["workloads"]["host0-disk0"]["frames"] > 0


def test_zoning_table_needs_zones_and_a_known_enforcement() -> None:
    doc = _without(read_document(EXAMPLE))
    bad = copy.deepcopy(doc)
    bad["zoning"] = {"enforcement": "firm"}
    with pytest.raises(ScenarioError, match="zoning.enforcement"):
        scenario_from_document(bad, EXAMPLE)
    bad = copy.deepcopy(doc)
    del bad["zones"]
    with pytest.raises(ScenarioError, match=r"\[zoning\] in a fabric with \[\[zones\]\]"):
        scenario_from_document(bad, EXAMPLE)
    soft = copy.deepcopy(doc)
    soft["zoning"] = {"enforcement": "soft"}
    with pytest.raises(ScenarioError, match="share a zone"):
        scenario_from_document(soft, EXAMPLE)


def test_a_fabric_without_hard_zoning_has_no_zoned_port() -> None:
    """No port of a soft-zoned fabric checks frames (nothing per frame)."""
    from fcsim.build import build_fabric
    from fcsim.engine.simulation import Simulation

    doc = _without(read_document(EXAMPLE), "host1-disk0")
    del doc["zoning"]
    net = build_fabric(Simulation(1), scenario_from_document(doc, EXAMPLE))
    assert not any(isinstance(sp, ZonedFPort) for sw in net.switches.values()
                   for sp in sw.ports.values())


zones_st = st.lists(st.sets(st.integers(0, 7), min_size=1, max_size=5), max_size=4)


@given(zones_st)
def test_permitted_pairs_are_exactly_those_sharing_a_zone(zones: list[set[int]]) -> None:
    permitted = Zoning({f"z{i}": frozenset(z) for i, z in enumerate(zones)}).permitted()
    for s in range(8):
        for d in range(8):
            shared = any({s, d} <= z for z in zones)
            assert (d in permitted.get(s, frozenset())) == shared
            assert (d in permitted.get(s, frozenset())) == (s in permitted.get(d, frozenset()))


@settings(max_examples=8, deadline=None)
@given(st.lists(st.sampled_from(["host0", "host1", "disk0", "disk1"]), min_size=2,
                max_size=4, unique=True),
       st.permutations(["host0", "host1", "disk0", "disk1"]))
def test_each_port_drops_what_its_n_port_sends_outside_its_zones(
        zone: list[str], order: list[str]) -> None:
    """One zone of random members, and each N_Port streaming to the next in a
    random ring: an F_Port drops every frame its N_Port sends iff the two
    share no zone, and no other."""
    doc = read_document(EXAMPLE)
    doc["run"]["duration"] = "200 us"
    doc["zones"] = [{"name": "z", "members": zone}]
    doc["workloads"] = [{"name": f"w{i}", "type": "stream", "from": s,
                         "to": order[(i + 1) % 4], "size": "4 KiB"}
                        for i, s in enumerate(order)]
    result = _run(doc)
    port_of = {"host0": "switch:0", "host1": "switch:1", "disk0": "switch:2",
               "disk1": "switch:3"}
    for i, s in enumerate(order):
        d = order[(i + 1) % 4]
        sent = result["nodes"][s]["data_frames_tx"]
        expected = 0 if {s, d} <= set(zone) else sent
        assert result["zoning"]["dropped"][port_of[s]] == expected
