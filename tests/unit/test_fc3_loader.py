"""FC-3 keys in scenario files: what they read into, and one line for each bad value."""

from __future__ import annotations

from pathlib import Path

import pytest

from fcsim.scenario.loader import ScenarioError, load_scenario
from fcsim.scenario.model import AliasGroupConfig
from tests.fabric_text import point_to_point
from tests.unit.test_scenario_loader import write

ROOT = Path(__file__).resolve().parents[2]
STRIPING = (ROOT / "scenarios" / "fc3-striping.toml").read_text(encoding="utf-8")
HUNT = (ROOT / "scenarios" / "fc3-hunt-group.toml").read_text(encoding="utf-8")
MULTICAST = (ROOT / "scenarios" / "fc3-multicast.toml").read_text(encoding="utf-8")
P2P = point_to_point("1 ms")


def _edit(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


def test_fc3_keys_are_read(tmp_path: Path) -> None:
    striping = load_scenario(write(tmp_path, STRIPING))
    assert {n.name: n.ports for n in striping.nodes} == {
        "host": 4, "array": 4, "client": 1, "disk": 1}
    striped = striping.workloads[0]
    assert (striped.stripe_ports, striped.stripe_unit) == (4, 32 * 1024)
    hunt = load_scenario(write(tmp_path, HUNT))
    assert hunt.alias_groups == (AliasGroupConfig(
        "servers", "hunt-group", ("server", "server.1", "server.2"), "alias-server", 1),)
    multicast = load_scenario(write(tmp_path, MULTICAST))
    assert multicast.alias_groups[0].kind == "multicast"


BAD = [
    (MULTICAST, 'members = ["viewer0", "viewer1", "viewer2", "viewer3"]',
     'members = ["viewer0", "viewer9"]',
     "alias_groups[0].members[1]: given 'viewer9'; an N_Port name: 'camera', 'viewer0'"),
    (MULTICAST, 'members = ["viewer0", "viewer1", "viewer2", "viewer3"]',
     'members = ["viewer0"]',
     "alias_groups[0].members: given ['viewer0']; a list of at least two distinct N_Port "
     "names"),
    (MULTICAST, 'class = 3\nsize = "64 KiB"', 'class = 2\nsize = "64 KiB"',
     "workloads[0].class: given 2; class 3 to a multicast group (Classes 1 and 2 have no "
     "multicast; Class 6 is not modelled)"),
    (MULTICAST, 'to = "viewers"', 'to = "watchers"',
     "workloads[0].to: given 'watchers'; the name of a node or alias group: 'camera'"),
    (MULTICAST, 'name = "viewers"', 'name = "viewer0"',
     "alias_groups[0].name: given 'viewer0'; a name that is no node's, N_Port's or "
     "workload's"),
    (MULTICAST, 'name = "video"', 'name = "viewers"',
     "alias_groups[0].name: given 'viewers'; a name that is no node's, N_Port's or "
     "workload's"),
    (MULTICAST, 'type = "multicast"', 'type = "broadcast"',
     "alias_groups[0].type: given 'broadcast'"),
    (HUNT, "class = 2", "class = 1",
     "workloads[0].class: given 1; class 2 or 3 to a hunt group"),
    (HUNT, 'members = ["server", "server.1", "server.2"]', 'members = ["server", "c0"]',
     "workloads[0].from: given 'c0'; a node that is not a member of hunt group 'servers'"),
    (HUNT, 'members = ["server", "server.1", "server.2"]',
     'members = ["server", "server.1"]\nregistration = "later"',
     "alias_groups[0].registration: given 'later'; one of 'alias-server', 'static'"),
    (STRIPING, "stripe_ports = 4", "stripe_ports = 5",
     "workloads[0].stripe_ports: given 5; at most the N_Ports of both nodes (host has 4, "
     "array has 4)"),
    (STRIPING, 'stripe_unit = "32 KiB"\n', 'stripe_unit = "32 KiB"\nexchanges = "per-sequence"\n',
     "workloads[0].exchanges: given 'per-sequence'; 'per-slot' with stripe_ports > 1"),
    (STRIPING, 'to = "disk"\n', 'to = "disk"\nexchanges = "per-command"\n',
     "workloads[1].exchanges: given 'per-command'; one of 'per-slot', 'per-sequence'"),
    (STRIPING, 'stripe_unit = "32 KiB"\n', "",
     "workloads[0].stripe_unit: missing; a stripe unit such as '64 KiB' for a stream over 4 "
     "N_Port pairs"),
    (STRIPING, 'to = "disk"\n', 'to = "disk"\nstripe_unit = "1 KiB"\n',
     "workloads[1].stripe_unit: given '1 KiB'; no stripe_unit without stripe_ports > 1"),
    (STRIPING, 'ends = ["host.3", "sw:3"]', 'ends = ["host.7", "sw:3"]',
     "links[3].ends[0]: given 'host.7'; the name of an N_Port: 'host', 'host.1'"),
    (STRIPING, 'name = "host"\nports = 4', 'name = "host"\nports = 5',
     "links: no link for node 'host.4'; every node (every N_Port of a node with ports > 1) "
     "linked to a switch port"),
    (STRIPING, 'name = "disk"', 'name = "host.2"',
     "nodes[0].ports: given 4; ports whose names (NAME.i) are not another node's name"),
    (P2P, 'name = "a"', 'name = "a"\nports = 2',
     "nodes[0].ports: given 2; no ports outside topology = 'fabric': a node has one N_Port "
     "there"),
    (P2P, 'speed = "1GFC"\n', 'speed = "1GFC"\n[[alias_groups]]\nname = "g"\ntype = '
     '"multicast"\nmembers = ["a", "b"]\n',
     "alias_groups: given 1 alias_group; no [[alias_groups]] outside topology = 'fabric': "
     "hunt groups and multicast are routed by a fabric's switches"),
    (P2P, 'speed = "1GFC"\n', 'speed = "1GFC"\n[[workloads]]\ntype = "stream"\nfrom = "a"\n'
     'to = "b"\nsize = "1 KiB"\nstripe_ports = 2\nstripe_unit = "1 KiB"\n',
     "workloads[0].stripe_ports: given 2; at most the N_Ports of both nodes (a has 1, b has "
     "1); a node has several N_Ports (ports) only in a fabric"),
]


@pytest.mark.parametrize(("text", "old", "new", "expected"), BAD,
                         ids=[f"case{i}" for i in range(len(BAD))])
def test_bad_fc3_input_is_one_line(tmp_path: Path, text: str, old: str, new: str,
                                   expected: str) -> None:
    """Each problem is a line naming the file, the key, the value and what is
    allowed; the expected one is among them."""
    path = write(tmp_path, _edit(text, old, new))
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    lines = str(info.value).splitlines()
    assert all(line.startswith(f"{path}: ") for line in lines), lines
    assert any(expected in line for line in lines), lines
