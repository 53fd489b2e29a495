"""ISL trunks (docs/fabric-services.md, "ISL trunking"): one FSPF adjacency
whose cost follows the trunk's bandwidth, a member's failure leaving the
trunk on the others, the example's imbalance cured, and the refused tables."""

from __future__ import annotations

import copy
import tomllib

import pytest

from fcsim.build import build_workloads
from fcsim.engine.simulation import Simulation
from fcsim.fabric.build import build_fabric
from fcsim.fabric.routing import fspf_cost
from fcsim.fabric.trunk import trunk_cost
from fcsim.fc0.speed import speed_named
from fcsim.runner import run_once
from fcsim.scenario.loader import read_document, scenario_from_document
from fcsim.schema.errors import ScenarioError
from tests.analytical.test_trunk_rate import isl_payload_rate
from tests.trunk_fabric import ISL_SPEED, trunk_scenario, trunk_text

EXAMPLE = "scenarios/fabric-isl-trunk.toml"


def _network(members: int, recovering: bool = False,  # noqa: ANN202
             model: str = "generic-nonblocking"):
    scenario = trunk_scenario([10.0] * members, model=model)
    sim = Simulation(1)
    net = build_fabric(sim, scenario.switches, scenario.links,  # type: ignore[arg-type]
                       {n.name: n.params for n in scenario.nodes}, {("host", "disk")},
                       login=False, recovering=recovering)
    build_workloads(sim, scenario, net)
    return sim, net


def test_a_trunk_is_one_fspf_adjacency_costed_by_its_summed_bandwidth() -> None:
    sim, net = _network(4)
    assert [isl[2] for isl in net.isls] == ["t"]
    line_rate = speed_named(ISL_SPEED).line_rate
    assert net.isls[0][3] == pytest.approx(fspf_cost(4 * line_rate))
    assert trunk_cost(line_rate, 4) == pytest.approx(fspf_cost(line_rate) / 4)
    a, b = net.switches["a"], net.switches["b"]
    assert [sp.index for sp in a.routes[b.domain]] == [1]  # numbered as the master's port
    assert a.routes[b.domain][0].port is net.trunks["t"].ends["a"]


@pytest.mark.parametrize("model", ["generic-nonblocking", "cisco-mds-9148t"])
def test_a_member_failure_leaves_the_trunk_running_on_the_others(model: str) -> None:
    """Member m1's port at a fails at 1.003 ms, while it sends a frame: from
    1.1 ms the exchange runs at three ISLs' rate (before, four), and m1
    carries nothing more. With store-and-forward switches the frame m1 was
    sending is lost (its EOF never comes) and the far end passes over it; a
    cut-through switch had taken it at its header."""
    members = 4
    sim, net = _network(members, recovering=True, model=model)
    sim.call_later(1.003e-3, lambda _: net.links["m1"].a.lcf.power_off())
    disk_side = net.links["link1"].b  # b:0, towards the disk

    def rate(start: float, end: float) -> float:
        sim.run(start)
        before = disk_side.stats.frames_tx
        sim.run(end)
        return (disk_side.stats.frames_tx - before) * 2048 / (end - start)

    assert rate(0.2e-3, 1e-3) == pytest.approx(members * isl_payload_rate(), rel=0.005)
    assert rate(1.1e-3, 3e-3) == pytest.approx((members - 1) * isl_payload_rate(), rel=0.005)
    assert net.trunks["t"].ends["b"].lost == (model == "cisco-mds-9148t")
    stalled = net.links["m1"].a.stats.frames_tx
    sim.run(3.2e-3)
    assert net.links["m1"].a.stats.frames_tx == stalled


def test_the_example_trunk_carries_twice_what_plain_isls_give_its_two_exchanges() -> None:
    """Two exchanges over four plain 8GFC ISLs take one ISL each (two idle);
    over the 4-member trunk each gets half of the four."""
    result = run_once(scenario_from_document(read_document(EXAMPLE), EXAMPLE), 1)
    w = result["workloads"]
    rate = speed_named("8GFC").char_rate * 2048 / (2048 + 36 + 24)
    for i in (0, 1):
        assert w[f"pstream{i}"]["throughput_bytes_per_s"] == pytest.approx(rate, rel=0.01)
        assert w[f"tstream{i}"]["throughput_bytes_per_s"] == pytest.approx(2 * rate, rel=0.01)
    members = result["trunks"]["trunk"]["directions"]["t1->t2"]["members"]
    assert all(m["utilisation"] > 0.98 for m in members.values())


def _refused(doc: dict, match: str) -> None:
    with pytest.raises(ScenarioError, match=match) as caught:
        scenario_from_document(doc, "trunk.toml")
    assert len(str(caught.value).splitlines()) >= 1


@pytest.mark.parametrize(("change", "match"), [
    (lambda d: d["links"][3].update(speed="4GFC"),
     r"links\[3\]\.speed: given '4GFC'; the speed of trunk 't'"),
    (lambda d: d["links"][3].update(ends=["a:2", "c:2"]),
     r"links\[3\]\.ends: given \['a:2', 'c:2'\]; the switches of trunk 't'"),
    (lambda d: d["links"][3].update(length="600 m"),
     r"links\[3\]\.length: given '600 m'; cable lengths in trunk 't' within 550 m"),
    (lambda d: d["links"][3].update(bb_credit=40),
     r"links\[3\]\.bb_credit: given 40; as trunk 't'"),
    (lambda d: d["links"][0].update(trunk_group="t"),
     r"links\[0\]\.trunk_group: given 't'; only on an inter-switch link"),
    (lambda d: d["links"][3].update(trunk_group="u"),
     r"links\[2\]\.trunk_group: given 't'; 2 to 8 links in one trunk"),
    (lambda d: d["links"][2].update(name="t"),
     r"trunk_group: given 't'; a trunk name that is not a link's name"),
])
def test_a_trunk_brocade_would_not_form_is_refused_in_one_line(change, match) -> None:  # noqa: ANN001
    doc = tomllib.loads(trunk_text([10.0, 10.0]))
    doc["switches"].append({"name": "c", "model": "generic-nonblocking"})
    bad = copy.deepcopy(doc)
    change(bad)
    _refused(bad, match)


@pytest.mark.parametrize(("change", "match"), [
    (lambda d: d["links"][3].update(virtual_channels=4),
     r"links\[3\]\.trunk_group: given 't'; no virtual_channels on a trunk member"),
    (lambda d: d.update(congestion={"credit_loss_recovery": {"f_port": "1 ms"}}),
     r"links\[2\]\.trunk_group: given 't'; no ISL trunks in a run with faults, credit loss "
     r"recovery or fencing"),
    (lambda d: d.update(congestion={"fencing": {"window": "1 ms", "txwait": 0.5}}),
     r"links\[2\]\.trunk_group: given 't'; no ISL trunks in a run with faults, credit loss "
     r"recovery or fencing"),
])
def test_a_trunk_with_what_it_does_not_model_is_refused(change, match) -> None:  # noqa: ANN001
    """Virtual channels on a member, and the cures that reset or disable
    links (link recovery over a trunk is not modelled), are refused in one
    line rather than built without them."""
    doc = tomllib.loads(trunk_text([10.0, 10.0]))
    change(doc)
    _refused(doc, match)


def test_ingress_limiting_with_credit_recovery_is_refused() -> None:
    """A switch that offers BB_SC_N with dynamic ingress rate limiting: the
    paced F_Port does not recover lost credit, so the pair is refused."""
    doc = tomllib.loads(trunk_text([10.0, 10.0]))
    doc["switches"][0]["bb_sc_n"] = 3
    doc["congestion"] = {"ingress_limit": {"window": "1 ms", "txwait": 0.1}}
    _refused(doc, r"switches\[0\]\.bb_sc_n: given 3; 0 with \[congestion.ingress_limit\]")


def test_nine_members_are_refused() -> None:
    doc = tomllib.loads(trunk_text([10.0] * 9))
    _refused(doc, r"links\[10\]\.trunk_group: given 't'; 2 to 8 links in one trunk")


GENERATED = """topology = "fabric"
[run]
duration = "2 ms"
warmup = "200 us"
login = false
[fabric]
kind = "full-mesh"
switches = 2
model = "generic-nonblocking"
nodes_per_switch = 1
isls = 4
isl_trunking = true
speed = "32GFC"
isl_speed = "2GFC"
[[workloads]]
name = "s"
type = "stream"
from = "s0n0"
to = "s1n0"
size = "64 KiB"
outstanding = 1
"""


def test_a_generated_fabric_trunks_the_isls_of_each_pair() -> None:
    scenario = scenario_from_document(tomllib.loads(GENERATED), "gen.toml")
    assert {link.name: link.trunk_group for link in scenario.links
            if link.trunk_group} == {f"s0-s1-{i}": "s0-s1" for i in range(4)}
    result = run_once(scenario, 1)
    assert list(result["trunks"]) == ["s0-s1"]
    rate = result["workloads"]["s"]["throughput_bytes_per_s"]
    assert rate == pytest.approx(4 * isl_payload_rate(), rel=0.005)
    doc = tomllib.loads(GENERATED)
    doc["fabric"]["isls"] = 1
    _refused(doc, r"fabric\.isl_trunking: given true; with isls 2\.\.8")
