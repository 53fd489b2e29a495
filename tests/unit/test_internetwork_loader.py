"""Internetwork scenario files: the example loads into one scenario per network
with the ports of nodes on several named node@network; bad files are refused in
one line naming the key, the value and what is allowed."""

from __future__ import annotations

from pathlib import Path

import pytest

from fcsim.cli import main
from fcsim.scenario.loader import ScenarioError, load_scenario
from tests.builders import assert_refused

ROOT = Path(__file__).resolve().parents[2]
RELAY = (ROOT / "scenarios" / "relay-gige-to-fc.toml").read_text(encoding="utf-8")


def test_the_relay_example_loads_one_scenario_per_network() -> None:
    scenario = load_scenario(ROOT / "scenarios" / "relay-gige-to-fc.toml")
    lan, san = scenario.networks
    assert (lan.name, lan.topology, san.name, san.topology) == ("lan", "ethernet",
                                                                "san", "fabric")
    assert [n.name for n in lan.nodes] == ["client", "mover@lan"]
    assert [n.name for n in san.nodes] == ["mover@san", "ramsan"]
    assert [link.ends for link in san.links] == [("mover@san", "fcsw:0"),
                                                 ("ramsan", "fcsw:1")]
    assert [link.name for link in lan.links + san.links] == ["lan-link0", "san-link0",
                                                             "san-link1"]
    # the transfer's step to the RAM disk crosses the fabric: those ports log in
    assert san.peers == (("mover@san", "ramsan"),) and lan.peers == (("client", "mover@lan"),)
    (put,) = scenario.workloads
    assert put.path == ("client", "mover", "ramsan") and put.options.buffers == 2


SAN_ENDS = 'ends = ["ramsan", "fcsw:1"]'
CASES = {
    "a node on no network": (('[[networks]]\nname = "lan"',
                              '[[nodes]]\nname = "lonely"\nhost = "ideal"\n\n[[networks]]\n'
                              'name = "lan"'), "nodes[3]", "node 'lonely' is on no network",
                             "named by the links"),
    "a route over a network not shared": (
        ('name = "client"\nhost = "ideal"', 'name = "client"\nhost = "ideal"\n'
                                            'routes = { mover = "san" }'),
        "nodes[0].routes.mover", "given 'san'", "a network both 'client' and 'mover' are on"),
    "a key no network of the node takes": (
        ('name = "ramsan"\ntarget', 'name = "ramsan"\nmtu = 9000\ntarget'),
        "nodes[2].mtu", "given 9000", "a key of a node on the networks 'ramsan' is on (fabric)"),
    "a target between hosts": (('path = ["client", "mover", "ramsan"]',
                                'path = ["client", "ramsan", "mover"]'),
                               "workloads[0].path[1]", "given 'ramsan'", "a host model"),
    "an Ethernet node without a host": (('name = "client"\nhost = "ideal"\n',
                                         'name = "client"\n'), "nodes[0].host", "missing",
                                        "a host model"),
    "a link name used by another network": (
        (SAN_ENDS, f'name = "lan-link0"\n{SAN_ENDS}'), "networks[1].links[1].name",
        "given 'lan-link0'", "a name not used in network 'lan'"),
    "a switch port out of range": (('"fcsw:1"', '"fcsw:99"'), "networks[1].links[1].ends[1]",
                                   "given 'fcsw:99'", "fcsw:0..63"),
    "an unknown network topology": (('topology = "fabric"', 'topology = "fabrik"'),
                                    "networks[1].topology", "given 'fabrik'",
                                    "one of 'point-to-point', 'fabric', 'loop', 'ethernet'"),
    "a block a target cannot count": (('block = "1 MiB"', 'block = "1000 B"'),
                                      "workloads[0].block", "given '1000 B'",
                                      "a whole number of 512-byte blocks"),
    "a file larger than its target": (('size = "64 MiB"', 'size = "64 GiB"'),
                                      "workloads[0].size", "given '64 GiB'",
                                      "at most the capacity of path[2]"),
    "SCSI over an Ethernet network": (('buffers = 2\n', 'buffers = 2\n\n'
                                       '[[workloads]]\ntype = "fio"\nfrom = "client"\n'
                                       'to = "ramsan"\nrw = "read"\n'),
                                      "workloads[1].to", "given 'ramsan'",
                                      "a node on a Fibre Channel network that 'client' is on"),
    "links at the top level": (('[[workloads]]', '[[links]]\nends = ["a", "b"]\n'
                                'speed = "1GFC"\n\n[[workloads]]'), "links", "given 1 link",
                               "each [[networks]] table has its own"),
    "a bus the host model lacks": (
        ('name = "mover"\nhost = "ideal"', 'name = "mover"\nhost = "ideal"\n'
                                           'buses = { san = 1 }'),
        "nodes[1].buses.san", "given 1", "a bus of host model 'ideal': 0..0"),
    "a card on a network the node is not on": (
        ('name = "client"\nhost = "ideal"', 'name = "client"\nhost = "ideal"\n'
                                            'buses = { san = 0 }'),
        "nodes[0].buses.san", "a card on 'san'", "a network 'client' is on: 'lan'"),
    "a port name in a node name": (('name = "client"', 'name = "client@lan"'),
                                   "nodes[0].name", "given 'client@lan'",
                                   "a name without '@'"),
}


@pytest.mark.parametrize("case", CASES)
def test_bad_internetwork_input_is_one_precise_line(tmp_path: Path, case: str) -> None:
    assert_refused(tmp_path, RELAY, *CASES[case])


def test_a_loop_in_an_internetwork_names_its_nodes(tmp_path: Path) -> None:
    text = RELAY.replace('topology = "fabric"', 'topology = "loop"\n\n[networks.loop]\n'
                         'speed = "1GFC"').split("[[networks.switches]]")[0]
    path = tmp_path / "case.toml"
    path.write_text(text + RELAY[RELAY.index("[[workloads]]"):], encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"networks\[1\].loop.order: missing; the loop's "
                                            r"nodes in ring order"):
        load_scenario(path)
    path.write_text(path.read_text().replace('speed = "1GFC"',
                                             'speed = "1GFC"\norder = ["mover", "ramsan"]'))
    loop = load_scenario(path).networks[1]
    assert loop.topology == "loop" and loop.links[0].order == ("mover@san", "ramsan")


def test_a_libpcap_capture_of_several_link_types_is_refused(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]
                                                             ) -> None:
    """Ethernet and FC frames cannot share a libpcap file's one link type; pcapng
    gives each link direction its own."""
    assert main(["run", str(ROOT / "scenarios" / "relay-gige-to-fc.toml"),
                 "--pcap", str(tmp_path / "run.pcap")]) == 2
    assert "a file ending in .pcapng" in capsys.readouterr().err
    assert not (tmp_path / "run.pcap").exists()
