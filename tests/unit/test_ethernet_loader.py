"""Ethernet scenario files: the examples load; bad ones are refused in one line
naming the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from fcsim.scenario.loader import ScenarioError, load_scenario
from tests.builders import assert_refused

ROOT = Path(__file__).resolve().parents[2]
LOOPBACK = (ROOT / "scenarios" / "das2-vlan-loopback.toml").read_text(encoding="utf-8")


def test_the_vlan_loopback_example_loads() -> None:
    scenario = load_scenario(ROOT / "scenarios" / "das2-vlan-loopback.toml")
    loopback = next(link for link in scenario.links if link.name == "loopback")
    assert loopback.vlans == (10, 20) and loopback.speed.name == "1000BASE-X"
    assert scenario.switches[0].model.buffer == 2097152
    assert {n.mtu for n in scenario.nodes} == {1500}
    (mesh,) = scenario.workloads
    assert (mesh.clients, mesh.servers, mesh.options.interval) == (("a1", "a2"), ("b1", "b2"),
                                                                   0.25)


CASES = {
    "MTU past jumbo": (('name = "a1"\n', 'name = "a1"\nmtu = 9001\n'), "nodes[0].mtu",
                       "given 9001", "an integer 68..9000"),
    "a VLAN that joins nothing": (('ends = ["b2", "force10:3"]\nspeed = "1000BASE-X"\n'
                                   'vlan = 20', 'ends = ["b2", "force10:3"]\nspeed = '
                                   '"1000BASE-X"\nvlan = 30'), "links",
                                  "VLAN 30 has only port force10:3", "joins nothing"),
    "one VLAN for two switch ports": (('vlan = [10, 20]', 'vlan = 10'), "links[4].vlan",
                                      "given 10", "one VLAN per switch-port end (2 here)"),
    "a loop in a VLAN": (('vlan = [10, 20]', 'vlan = [10, 10]'), "links[4].ends",
                         "given ['force10:10', 'force10:11']", "no loop within a VLAN"),
    "an FC workload": (('type = "iperf"\nfrom = ["a1", "a2"]',
                        'type = "stream"\nfrom = ["a1", "a2"]'),
                       "workloads[0].type", "given 'stream'", "one of 'netperf', 'iperf'"),
    "a node without a host": (('name = "a1"\nhost = "ideal"\n', 'name = "a1"\n'),
                              "nodes[0].host", "missing", "a host model"),
    "an unknown switch model": (('"force10-e-series-class"', '"cisco-6509"'),
                                "switches[0].model", "given 'cisco-6509'",
                                "no Ethernet switch model 'cisco-6509'"),
    "a switch port out of range": (('"force10:11"', '"force10:48"'), "links[4].ends[1]",
                                   "given 'force10:48'", "force10:0..47"),
    "a sweep beside a sweep": (('window = "64 KiB"', 'window = ["32 KiB", "64 KiB"]\n'
                                'duration = "1.1 s"\n[[workloads]]\nname = "more"\n'
                                'type = "iperf"\nfrom = "a2"\nto = "b2"\nprotocol = "udp"\n'
                                'bandwidth = ["10 Mbit/s", "20 Mbit/s"]'),
                               "workloads[1].bandwidth", "given ['10 Mbit/s', '20 Mbit/s']",
                               "no sweep: workloads[0] already sweeps"),
    "a stagger that ends after the run": (('interval = "250 ms"', 'interval = "250 ms"\n'
                                           'stagger = "40 ms"'), "workloads[0].stagger",
                                          "given '40 ms'", "a test that ends before "
                                          "run.duration (1.2 s); set start + 3 x stagger + "
                                          "duration below it"),
    "a stagger with one pair": (('from = ["a1", "a2"]\nto = ["b1", "b2"]',
                                 'from = "a1"\nto = "b1"\nstagger = "1 ms"'),
                                "workloads[0].stagger", "given '1 ms'",
                                "a mesh of more than one client-server pair"),
}


@pytest.mark.parametrize("case", CASES)
def test_bad_ethernet_input_is_one_precise_line(tmp_path: Path, case: str) -> None:
    assert_refused(tmp_path, LOOPBACK, *CASES[case])


def test_pause_needs_a_model_that_says_when(tmp_path: Path) -> None:
    (tmp_path / "ethernet-switches").mkdir()
    (tmp_path / "ethernet-switches" / "plain.toml").write_text(
        'ports = { value = 16, source = "t" }\nbuffer = { value = 65536, source = "t" }\n',
        encoding="utf-8")
    text = LOOPBACK.replace('"force10-e-series-class"', '"ethernet-switches/plain.toml"\n'
                            'pause = true')
    path = tmp_path / "case.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"switches\[0\].pause: given true; a switch model "
                                            r"with a pause_threshold \(.*plain.toml gives none\)"):
        load_scenario(path)
    path.write_text(text.replace("\npause = true", ""), encoding="utf-8")
    assert not load_scenario(path).switches[0].pause


def test_frames_must_fit_the_switch(tmp_path: Path) -> None:
    (tmp_path / "ethernet-switches").mkdir()
    (tmp_path / "ethernet-switches" / "small.toml").write_text(
        'ports = { value = 16, source = "t" }\nbuffer = { value = 65536, source = "t" }\n'
        'max_frame = { value = 1518, source = "t" }\n', encoding="utf-8")
    text = LOOPBACK.replace('"force10-e-series-class"', '"ethernet-switches/small.toml"')
    path = tmp_path / "case.toml"
    path.write_text(text.replace('name = "b1"\n', 'name = "b1"\nmtu = 1501\n'), "utf-8")
    with pytest.raises(ScenarioError, match=r"nodes\[2\].mtu: given 1501; an MTU whose frames "
                                            r"\(1519 bytes with header and FCS\) fit switch "
                                            r"force10's largest, 1518 bytes"):
        load_scenario(path)
    path.write_text(text, encoding="utf-8")
    assert load_scenario(path).switches[0].model.max_frame == 1518
    jumbo = LOOPBACK.replace('host = "ideal"\n', 'host = "ideal"\nmtu = 9000\n')
    path.write_text(jumbo, encoding="utf-8")
    assert load_scenario(path).switches[0].model.max_frame == 9252  # the E-series' jumbo limit


def test_an_iperf_sweep_runs_each_window_and_bandwidth(tmp_path: Path) -> None:
    from fcsim.sweep import sweep_points

    path = tmp_path / "sweep.toml"
    path.write_text(LOOPBACK.replace('window = "64 KiB"', 'window = ["32 KiB", "64 KiB"]'),
                    encoding="utf-8")
    points = sweep_points(load_scenario(path))
    assert [p for p, _ in points] == [{"window": 32768, "bandwidth": 1e6},
                                      {"window": 65536, "bandwidth": 1e6}]
    narrowed = points[1][1].workloads[0]
    assert narrowed.options.window == 65536 and not narrowed.sweeps


TRUNK = (ROOT / "scenarios" / "vlan-trunk.toml").read_text(encoding="utf-8")
B2_ACCESS = 'ends = ["b2", "sw2:1"]\nspeed = "1000BASE-X"\nvlan = 20'
TRUNK_CASES = {
    "a VLAN ID past 4094": (("trunk = [10, 20]", "trunk = [10, 4095]"), "links[4].trunk",
                            "given [10, 4095]", "a list of distinct VLAN IDs 1..4094"),
    "a VLAN twice": (("trunk = [10, 20]", "trunk = [10, 10]"), "links[4].trunk",
                     "given [10, 10]", "distinct VLAN IDs"),
    "a trunk to a NIC that is not VLAN-aware": (
        (B2_ACCESS, B2_ACCESS.replace("vlan = 20", "trunk = [20]")), "links[3].trunk",
        "given [20]", "a trunk to node b2 only if its NIC is VLAN-aware"),
    "a VLAN-aware NIC on an access port": (('name = "b2"\nhost = "ideal"\n',
                                            'name = "b2"\nhost = "ideal"\nvlan = 20\n'),
                                           "nodes[3].vlan", "given 20",
                                           "a VLAN-aware NIC on a trunk"),
    "a trunk VLAN that joins nothing": (("trunk = [10, 20]", "trunk = [10, 20, 30]"), "links",
                                        "VLAN 30 has only port sw1:47", "joins nothing"),
    "a native VLAN also tagged": (("trunk = [10, 20]", "trunk = [10, 20]\nnative_vlan = 10"),
                                  "links[4].native_vlan", "given 10",
                                  "a VLAN not also carried tagged"),
    "a native VLAN on an access cable": ((B2_ACCESS, B2_ACCESS + "\nnative_vlan = 20"),
                                         "links[3].native_vlan", "given 20",
                                         "a native VLAN only on a trunk"),
    "access VLANs on a trunk": (("trunk = [10, 20]", "trunk = [10, 20]\nvlan = [10, 10]"),
                                "links[4].vlan", "given [10, 10]", "no vlan on a trunk"),
}


@pytest.mark.parametrize("case", TRUNK_CASES)
def test_bad_trunk_input_is_one_precise_line(tmp_path: Path, case: str) -> None:
    (old, new), key, given, allowed = TRUNK_CASES[case]
    assert old in TRUNK, old
    path = tmp_path / "case.toml"
    path.write_text(TRUNK.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    first = str(info.value).splitlines()[0]
    assert first.startswith(f"{path}: {key}: {given}; ") and allowed in first, first


def test_a_vlan_aware_nic_on_a_trunk_loads(tmp_path: Path) -> None:
    text = TRUNK.replace(B2_ACCESS, B2_ACCESS.replace("vlan = 20", "trunk = [20]")).replace(
        'name = "b2"\nhost = "ideal"\n', 'name = "b2"\nhost = "ideal"\nvlan = 20\n')
    path = tmp_path / "case.toml"
    path.write_text(text, encoding="utf-8")
    scenario = load_scenario(path)
    assert next(n for n in scenario.nodes if n.name == "b2").vlan == 20
    assert scenario.links[3].trunk == (20,)


def test_a_staggered_mesh_starts_each_run_later(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text(LOOPBACK.replace('duration = "1.1 s"', 'duration = "1 s"\n'
                                     'stagger = "20 ms"'), encoding="utf-8")
    (mesh,) = load_scenario(path).workloads
    assert mesh.stagger == pytest.approx(0.02)
    assert [mesh.start_of(k) for k in range(4)] == pytest.approx([0.0, 0.02, 0.04, 0.06])
