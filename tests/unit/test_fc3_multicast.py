"""Multicast groups: the fabric replicates each Class 3 frame to every member, one
copy per output, and frees the input buffer after the last copy."""

from __future__ import annotations

from fcsim.build import build_fabric
from fcsim.engine.simulation import Simulation
from fcsim.fc3.alias import FIRST_ALIAS_ID
from fcsim.runner import run_once
from fcsim.scenario.model import AliasGroupConfig
from fcsim.scenario.workload_model import StreamConfig
from tests.builders import fabric

SIZE = 8 * 2112  # eight full frames per sequence
COUNT = 10


def _frames(result: dict) -> dict[str, int]:
    return {direction: d["frames"] for link in result["links"].values()
            for direction, d in link["directions"].items()}


def test_every_member_gets_every_frame_once_and_each_link_carries_it_once() -> None:
    """Three switches in a row, members on each: the source's link, each ISL on the
    way and each member's link carry every frame exactly once."""
    nodes = {"src": "a:0", "m0": "a:1", "m1": "b:1", "m2": "b:2", "m3": "c:1"}
    group = AliasGroupConfig("g", "multicast", ("m0", "m1", "m2", "m3"), "static")
    load = StreamConfig("s", "src", "g", SIZE, 3, count=COUNT)
    result = run_once(fabric(nodes, (load,), 3e-3, login=False, alias_groups=(group,),
                             switches={s: "generic-nonblocking" for s in "abc"},
                             isls=(("a:15", "b:15"), ("b:14", "c:14"))), 1)
    frames = COUNT * 8
    mg = result["fc3"]["multicast_groups"]["g"]
    assert mg["frames_in"] == frames
    assert mg["copies"] == 4 * frames and mg["onward"] == 2 * frames
    for name, member in mg["per_member"].items():
        assert (member["frames"], member["copies"], member["sequences"]) == (
            frames, frames, COUNT), name
    links = _frames(result)
    assert links["src->a:0"] == frames
    assert links["a:15->b:15"] == links["b:14->c:14"] == frames
    assert links["b:15->a:15"] == links["c:14->b:14"] == 0
    for port in ("a:1->m0", "b:1->m1", "b:2->m2", "c:1->m3"):
        assert links[port] == frames
    workload = result["workloads"]["s"]
    assert workload["frames"] == 4 * frames and workload["sequences"] == 4 * COUNT


def test_a_sender_that_is_a_member_gets_no_copy() -> None:
    nodes = {"m0": "sw:0", "m1": "sw:1", "m2": "sw:2"}
    group = AliasGroupConfig("g", "multicast", ("m0", "m1", "m2"), "static")
    load = StreamConfig("s", "m0", "g", SIZE, 3, count=COUNT)
    result = run_once(fabric(nodes, (load,), 3e-3, login=False, alias_groups=(group,)), 1)
    members = result["fc3"]["multicast_groups"]["g"]["per_member"]
    assert members["m0"]["frames"] == 0
    assert members["m1"]["frames"] == members["m2"]["frames"] == COUNT * 8
    assert _frames(result)["sw:0->m0"] == 0


def test_the_input_buffer_is_freed_after_the_last_copy() -> None:
    """One member on a quarter-speed link: the switch returns an R_RDY to the
    sender only as that member's copies leave, so the sender, out of credit,
    waits; no frame is lost and every member gets the same frames."""
    nodes = {"src": "sw:0", "fast": "sw:1", "slow": "sw:2"}
    group = AliasGroupConfig("g", "multicast", ("fast", "slow"), "static")
    load = StreamConfig("s", "src", "g", SIZE, 3, outstanding=2)
    result = run_once(fabric(nodes, (load,), 4e-3, 1e-3, login=False, alias_groups=(group,),
                             speeds={"slow": "266M"}), 1)
    source = result["links"]["l-src"]["directions"]["src->sw:0"]
    assert source["credit_wait_fraction"] > 0.5
    members = result["fc3"]["multicast_groups"]["g"]["per_member"]
    assert abs(members["fast"]["frames"] - members["slow"]["frames"]) <= 1
    assert result["switches"]["sw"]["discarded"] == 0


def test_a_class_2_frame_to_a_multicast_group_is_rejected() -> None:
    """Classes 1 and 2 have no multicast: the fabric answers F_RJT (the scenario
    checks refuse such a workload before a run)."""
    nodes = {"src": "sw:0", "m0": "sw:1", "m1": "sw:2"}
    group = AliasGroupConfig("g", "multicast", ("m0", "m1"), "static")
    sim = Simulation(1)
    net = build_fabric(sim, fabric(nodes, (), 1e-3, login=False, alias_groups=(group,)))
    src = net.nodes["src"]
    src.login(net.nodes["m0"])
    src.peers[FIRST_ALIAS_ID] = src.peers[net.address_of("m0")]
    seq = src.send(src.open_exchange(FIRST_ALIAS_ID), 1000, 2)
    sim.run(1e-3)
    assert seq.status == "rejected"
    assert net.nodes["m0"].stats.data_frames_rx == net.nodes["m1"].stats.data_frames_rx == 0
