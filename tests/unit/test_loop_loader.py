"""Loop scenario files: the [loop] table and loop node keys, and one-line errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from fcsim.fc0.cable import DEFAULT_PROPAGATION
from fcsim.loop.config import LoopConfig, LoopPortConfig
from fcsim.scenario.loader import ScenarioError, load_scenario

BASE = """\
topology = "loop"

[run]
duration = "1 ms"

[loop]
speed = "1GFC"

[[nodes]]
name = "host"

[[nodes]]
name = "disk"

[[nodes]]
name = "tape"

[[workloads]]
type = "stream"
from = "host"
to = "disk"
size = "8 KiB"
"""


def edited(*edits: tuple[str, str], extra: str = "") -> str:
    text = BASE + extra
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new, 1)
    return text


def load(tmp_path: Path, text: str):
    path = tmp_path / "case.toml"
    path.write_text(text, encoding="utf-8")
    return path, load_scenario


def test_defaults(tmp_path: Path) -> None:
    path, read = load(tmp_path, BASE)
    scenario = read(path)
    (ring,) = scenario.links
    assert ring == LoopConfig("loop", ("host", "disk", "tape"), ring.speed)
    assert ring.speed.name == "1GFC" and ring.cable.propagation == DEFAULT_PROPAGATION
    assert (ring.repeat_delay, ring.lip_at, ring.position_map) == (12, (), True)
    assert all(n.loop == LoopPortConfig() and n.port_id is None for n in scenario.nodes)


def test_every_loop_key_is_read(tmp_path: Path) -> None:
    text = edited(
        ('speed = "1GFC"', 'name = "jbod"\norder = ["tape", "host", "disk"]\nspeed = "2GFC"\n'
                           'hop_length = "3 m"\npropagation = "4 ns/m"\nbit_error_rate = 1e-12\n'
                           'repeat_delay = 6\nlip_at = ["0.5 ms", "700 us"]\nposition_map = false'),
        ('name = "host"', 'name = "host"\nal_pa = "0xEF"\nfairness = false\nrepeat_delay = 2\n'
                          'login_credit = 3\nbb_credit = 4'),
        ('name = "disk"', 'name = "disk"\nal_pa = 0x01'))
    path, read = load(tmp_path, text)
    scenario = read(path)
    (ring,) = scenario.links
    assert (ring.name, ring.order, ring.speed.name, ring.repeat_delay) == (
        "jbod", ("tape", "host", "disk"), "2GFC", 6)
    assert ring.cable.length == 3.0 and ring.cable.propagation == pytest.approx(4e-9)
    assert (ring.bit_error_rate, ring.lip_at, ring.position_map) == (1e-12, (5e-4, 7e-4), False)
    host, disk, tape = scenario.nodes
    assert host.loop == LoopPortConfig(0xEF, False, 2, 3) and host.params.bb_credit == 4
    assert disk.loop == LoopPortConfig(al_pa=0x01) and tape.loop == LoopPortConfig()


CASES = {
    "port_id on a loop": (edited(('name = "host"', 'name = "host"\nport_id = 5')),
                          "nodes[0].port_id", "unknown key",
                          "allowed keys in [[nodes]] of a loop: name, bb_credit"),
    "al_pa not neutral": (edited(('name = "host"', 'name = "host"\nal_pa = "0x03"')),
                          "nodes[0].al_pa", "given '0x03'", "one of the 126 neutral-disparity"),
    "al_pa of fl_port": (edited(('name = "host"', 'name = "host"\nal_pa = 0')),
                         "nodes[0].al_pa", "given 0", "0x01..0xEF"),
    "al_pa twice": (edited(('name = "host"', 'name = "host"\nal_pa = 1'),
                           ('name = "tape"', 'name = "tape"\nal_pa = "0x01"')),
                    "nodes[2].al_pa", "given '0x01'", "an al_pa not used by nodes[0]"),
    "fairness not bool": (edited(('name = "host"', 'name = "host"\nfairness = 1')),
                          "nodes[0].fairness", "given 1", "true or false"),
    "login credit over buffers": (
        edited(('name = "host"', 'name = "host"\nbb_credit = 2\nlogin_credit = 3')),
        "nodes[0].login_credit", "given 3", "an integer 0..bb_credit (2)"),
    "negative repeat delay": (edited(('speed = "1GFC"', 'speed = "1GFC"\nrepeat_delay = -1')),
                              "loop.repeat_delay", "given -1", "(transmission words)"),
    "links on a loop": (edited(extra='[[links]]\nends = ["host", "disk"]\nspeed = "1GFC"\n'),
                        "links", "given 1 link", "no [[links]] on a loop"),
    "loop missing": (edited(('[loop]\nspeed = "1GFC"\n', '')), "loop", "missing",
                     "a table, written [loop]"),
    "loop on point-to-point": (
        edited(('topology = "loop"', 'topology = "point-to-point"'),
               ('name = "tape"', 'name = "tape"\n[[links]]\nends = ["host", "disk"]\n'
                                 'speed = "1GFC"')),
        "loop", "given {speed = '1GFC'}", "no [loop] outside topology = 'loop'"),
    "one node": (edited(('[[nodes]]\nname = "disk"\n\n[[nodes]]\nname = "tape"\n', '')),
                 "nodes", "given 1 node", "topology 'loop' needs 2 to 126 nodes"),
    "order unknown": (edited(('speed = "1GFC"', 'speed = "1GFC"\norder = ["host", "dsk", '
                                                '"tape"]')),
                      "loop.order[1]", "given 'dsk'", "the name of a node: 'host', 'disk'"),
    "order incomplete": (edited(('speed = "1GFC"', 'speed = "1GFC"\norder = ["host", "disk"]')),
                         "loop.order", "given ['host', 'disk']", "'tape' is missing"),
    "order twice": (edited(('speed = "1GFC"', 'speed = "1GFC"\norder = ["host", "host", '
                                              '"tape"]')),
                    "loop.order", "given ['host', 'host', 'tape']", "each once"),
    "lip_at item": (edited(('speed = "1GFC"', 'speed = "1GFC"\nlip_at = ["1 ms", "soon"]')),
                    "loop.lip_at[1]", "given 'soon'", "a time with a unit"),
    "lip_at not a list": (edited(('speed = "1GFC"', 'speed = "1GFC"\nlip_at = "1 ms"')),
                          "loop.lip_at", "given '1 ms'", "a list of times"),
    "unknown loop key": (edited(('speed = "1GFC"', 'speed = "1GFC"\nlength = "1 m"')),
                         "loop.length", "unknown key", "allowed keys in [loop]: name, order"),
    "class 1 on a loop": (edited(extra="class = 1\n"), "workloads[0].class", "given 1",
                          "a class of service on a loop: 2 or 3"),
    "hop_lengths short": (edited(('speed = "1GFC"', 'speed = "1GFC"\nhop_lengths = ["2 m", '
                                                    '"10 km"]')),
                          "loop.hop_lengths", "given ['2 m', '10 km']",
                          "a list of 3 lengths, one per hop"),
    "hop_lengths and hop_length": (
        edited(('speed = "1GFC"', 'speed = "1GFC"\nhop_length = "2 m"\n'
                                  'hop_lengths = ["2 m", "2 m", "2 m"]')),
        "loop.hop_lengths", "given ['2 m', '2 m', '2 m']", "hop_length or hop_lengths, not both"),
    "loop at 16GFC": (edited(('speed = "1GFC"', 'speed = "16GFC"')), "loop.speed",
                      "given '16GFC'", "a speed FC-AL-2 defines for a loop: at most 8GFC"),
    "loop at 10 Gbaud": (edited(('speed = "1GFC"', 'speed = "10 Gbaud"')), "loop.speed",
                         "given '10 Gbaud'", "at most 8GFC (8.5 Gbaud, 8b/10b)"),
    "hop_lengths item": (edited(('speed = "1GFC"', 'speed = "1GFC"\nhop_lengths = ["2 m", '
                                                   '"far", "2 m"]')),
                         "loop.hop_lengths[1]", "given 'far'", "a length with a unit"),
}


def test_hop_lengths_give_each_hop_its_cable(tmp_path: Path) -> None:
    text = edited(('speed = "1GFC"', 'speed = "1GFC"\norder = ["tape", "host", "disk"]\n'
                                     'hop_lengths = ["2 m", "10 km", "5 m"]'))
    path, read = load(tmp_path, text)
    (ring,) = read(path).links
    assert [c.length for c in ring.hop_cables()] == [2.0, 10e3, 5.0]
    assert ring.hop_cables()[1].propagation == DEFAULT_PROPAGATION


@pytest.mark.parametrize("case", CASES)
def test_bad_loop_value_is_one_precise_line(tmp_path: Path, case: str) -> None:
    text, key_path, given, allowed = CASES[case]
    path, read = load(tmp_path, text)
    with pytest.raises(ScenarioError) as info:
        read(path)
    message = str(info.value).splitlines()[0]
    assert message.startswith(f"{path}: {key_path}: {given}; "), message
    assert allowed in message, message


def test_loop_at_8gfc_is_accepted(tmp_path: Path) -> None:
    path, read = load(tmp_path, edited(('speed = "1GFC"', 'speed = "8GFC"')))
    (ring,) = read(path).links
    assert ring.speed.name == "8GFC"


def test_point_to_point_still_needs_its_links(tmp_path: Path) -> None:
    text = edited(('topology = "loop"', 'topology = "point-to-point"'),
                  ('[loop]\nspeed = "1GFC"\n', ''), ('[[nodes]]\nname = "tape"\n', ''))
    path, read = load(tmp_path, text)
    with pytest.raises(ScenarioError, match=r": links: missing; an array of tables"):
        read(path)
