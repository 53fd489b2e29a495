"""Hunt groups against their rules: the first free member in group order takes a
new exchange; a busy member never does; with all busy, F_BSY (Class 2) or
discard (Class 3); members answer from the Hunt Group ID."""

from __future__ import annotations

from fcsim.fc2 import header as h
from fcsim.fc3.alias import FIRST_ALIAS_ID
from fcsim.runner import run_once
from fcsim.scenario.model import AliasGroupConfig
from fcsim.scenario.workload_model import GeneratorConfig, StreamConfig
from fcsim.workload.distributions import Constant
from tests.builders import fabric
from tests.unit.test_fc3_alias import Frames

SIZE = 64 * 1024  # 32 full frames: about 0.65 ms on a 1GFC link
MEMBERS = ("m0", "m1", "m2")


def _run(starts: list[float], cls: int = 3, per_member: int = 1, duration: float = 5e-3,
         sink: Frames | None = None) -> dict:
    """Client i sends one exchange of SIZE bytes at starts[i] to a hunt group of
    three N_Ports of one node, statically joined."""
    nodes = {f"c{i}": f"sw:{10 + i}" for i in range(len(starts))}
    nodes |= {"m0": "sw:0", "m0.1": "sw:1", "m0.2": "sw:2"}
    group = AliasGroupConfig("g", "hunt-group", ("m0", "m0.1", "m0.2"), "static", per_member)
    loads = tuple(GeneratorConfig(f"w{i}", f"c{i}", "g", Constant(1e-9), Constant(SIZE), cls,
                                  start=t, count=1) for i, t in enumerate(starts))
    return run_once(fabric(nodes, loads, duration, login=False, ports={"m0": 3},
                           alias_groups=(group,)), 1, [sink] if sink else [])


def _group(result: dict) -> dict:
    return result["fc3"]["hunt_groups"]["g"]


def test_each_new_exchange_takes_the_first_member_not_busy() -> None:
    group = _group(_run([0.0, 10e-6, 20e-6]))
    assert {m: v["exchanges"] for m, v in group["per_member"].items()} == {
        "m0": 1, "m0.1": 1, "m0.2": 1}
    assert group["refused"] == 0


def test_a_member_is_free_again_after_the_last_frame_of_the_exchange() -> None:
    """Exchanges 1 ms apart, each over in about 0.65 ms: all go to the first member."""
    group = _group(_run([0.0, 1e-3, 2e-3, 3e-3]))
    assert group["per_member"]["m0"]["exchanges"] == 4
    assert group["per_member"]["m0"]["frames"] == 4 * 32


def test_with_every_member_busy_class_3_is_discarded() -> None:
    result = _run([0.0, 10e-6, 20e-6, 30e-6])
    group = _group(result)
    assert group["exchanges"] == 3 and group["refused"] == 1
    assert group["discarded"] == 32 and group["busy"] == 0  # its every frame, counted
    assert result["switches"]["sw"]["discarded"] == 32
    assert result["workloads"]["w3"]["sequences"] == 0


def test_with_every_member_busy_class_2_gets_f_bsy_and_is_sent_again() -> None:
    """The fourth exchange is answered F_BSY; its client sends it again after its
    busy-retry delay (1 ms +- 50 %), when a member is free: it is delivered."""
    result = _run([0.0, 10e-6, 20e-6, 30e-6], cls=2)
    group = _group(result)
    assert group["refused"] == 1 and group["busy"] >= 1
    assert group["exchanges"] == 4
    assert result["nodes"]["c3"]["busy_rx"] == group["busy"]
    assert all(w["sequences"] == 1 for w in result["workloads"].values())


def test_a_member_serves_exchanges_per_member_at_once() -> None:
    group = _group(_run([0.0, 10e-6, 20e-6], per_member=2))
    assert [v["exchanges"] for v in group["per_member"].values()] == [2, 1, 0]


def test_members_answer_from_the_hunt_group_id() -> None:
    """Class 2 ACKs leave the member with S_ID = the Hunt Group ID, so the client's
    end-to-end credit with the group comes back."""
    sink = Frames()
    result = _run([0.0, 10e-6], cls=2, sink=sink)
    acks = [f for _, port, f in sink.sent if port.startswith("m0") and f.r_ctl == h.R_CTL_ACK_1]
    assert len(acks) == 2 * 32
    assert {f.s_id for f in acks} == {FIRST_ALIAS_ID}
    assert result["nodes"]["c0"]["acks_rx"] == 32


def test_an_exchange_with_no_frame_for_e_d_tov_releases_its_member() -> None:
    """A stream's exchange never ends (no Last_Sequence): once its one sequence is
    sent and nothing passes for E_D_TOV (2 s), the fabric releases the member."""
    nodes = {"c": "sw:10", "m0": "sw:0", "m1": "sw:1"}
    group = AliasGroupConfig("g", "hunt-group", ("m0", "m1"), "static")
    load = StreamConfig("s", "c", "g", SIZE, 3, count=1)
    result = run_once(fabric(nodes, (load,), 2.01, login=False, alias_groups=(group,)), 1)
    hunt = result["fc3"]["hunt_groups"]["g"]
    assert hunt["exchanges"] == 1 and hunt["expired"] == 1


def test_a_member_in_a_class_1_connection_with_another_port_is_busy() -> None:
    """x holds a Class 1 connection with m0 (its F_Port is reserved for the pair):
    the hunt group's exchange goes to m1 instead."""
    nodes = {"c": "sw:10", "x": "sw:11", "m0": "sw:0", "m1": "sw:1"}
    group = AliasGroupConfig("g", "hunt-group", ("m0", "m1"), "static")
    loads = (StreamConfig("direct", "x", "m0", SIZE, 1),
             GeneratorConfig("w", "c", "g", Constant(1e-9), Constant(SIZE), 3, start=100e-6,
                             count=1))
    result = run_once(fabric(nodes, loads, 2e-3, login=False, alias_groups=(group,)), 1)
    hunt = result["fc3"]["hunt_groups"]["g"]
    assert result["nodes"]["x"]["connections"] >= 1
    assert hunt["per_member"]["m0"]["exchanges"] == 0
    assert hunt["per_member"]["m1"]["exchanges"] == 1
