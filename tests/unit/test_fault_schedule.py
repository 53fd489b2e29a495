"""The [[faults]] tables: read into a time-ordered schedule in SI units, and
every bad entry refused in one line naming the file, the key, the value and
what is allowed."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from fcsim.cli import main
from fcsim.faults.config import FaultConfig, ScheduledFaultSection
from fcsim.scenario.loader import ScenarioError, scenario_from_document

P2P = """\
topology = "point-to-point"
[run]
duration = "20 ms"
[[nodes]]
name = "host"
[[nodes]]
name = "disk"
[[links]]
name = "fibre"
ends = ["host", "disk"]
speed = "1GFC"
"""

FABRIC = """\
topology = "fabric"
[run]
duration = "20 ms"
[[switches]]
name = "sw"
model = "generic-nonblocking"
[[switches]]
name = "sw2"
model = "generic-nonblocking"
[[nodes]]
name = "host"
[[nodes]]
name = "disk"
[[links]]
ends = ["host", "sw:0"]
speed = "2GFC"
[[links]]
ends = ["disk", "sw2:0"]
speed = "2GFC"
[[links]]
name = "isl"
ends = ["sw:9", "sw2:9"]
speed = "2GFC"
"""

LOOP = """\
topology = "loop"
[run]
duration = "20 ms"
[loop]
speed = "1GFC"
[[nodes]]
name = "host"
[[nodes]]
name = "d1"
"""


def load(text: str, faults: list[dict[str, Any]]) -> Any:
    document = tomllib.loads(text)
    document["faults"] = faults
    return scenario_from_document(document, "case.toml")


def refused(text: str, faults: list[dict[str, Any]]) -> list[str]:
    with pytest.raises(ScenarioError) as info:
        load(text, faults)
    return str(info.value).splitlines()


def test_a_schedule_is_read_in_time_order_with_links_named() -> None:
    scenario = load(P2P, [
        {"at": "10 ms", "kind": "link-up", "ends": ["disk", "host"]},
        {"at": "5 ms", "kind": "link-down", "link": "fibre"},
        {"at": "12 ms", "kind": "loss-of-sync", "port": "host", "duration": "150 ms"},
        {"at": "12 ms", "kind": "bit-error-rate", "link": "fibre", "bit_error_rate": 1e-9},
        {"at": "1 ms", "kind": "corrupted-characters", "port": "disk", "characters": 40},
        {"at": "2 ms", "kind": "port-failure", "port": "disk"},
    ])
    assert scenario.faults == (
        FaultConfig(1e-3, "corrupted-characters", port="disk", characters=40),
        FaultConfig(2e-3, "port-failure", port="disk"),
        FaultConfig(5e-3, "link-down", link="fibre"),
        FaultConfig(10e-3, "link-up", link="fibre"),
        FaultConfig(12e-3, "loss-of-sync", port="host", duration=0.15),
        FaultConfig(12e-3, "bit-error-rate", link="fibre", bit_error_rate=1e-9),
    )
    assert scenario.faults[3].label == "link-up of link fibre"


def test_a_repeating_fault_is_read_with_its_period_or_mean_interval() -> None:
    scenario = load(P2P, [
        {"at": "1 ms", "kind": "port-failure", "port": "disk", "duration": "1 ms",
         "every": "4 ms", "until": "15 ms"},
        {"at": "2 ms", "kind": "bit-error-rate", "link": "fibre", "bit_error_rate": 1e-6,
         "duration": "100 us", "mean_interval": "1 ms"},
        {"at": "3 ms", "kind": "link-down", "link": "fibre", "duration": "1 ms"},
    ])
    assert scenario.faults == (
        FaultConfig(1e-3, "port-failure", port="disk", duration=1e-3, every=4e-3, until=15e-3),
        FaultConfig(2e-3, "bit-error-rate", link="fibre", bit_error_rate=1e-6, duration=1e-4,
                    mean_interval=1e-3),
        FaultConfig(3e-3, "link-down", link="fibre", duration=1e-3),
    )
    assert [f.repeats for f in scenario.faults] == [True, True, False]


def test_a_bit_error_rate_for_one_direction() -> None:
    scenario = load(P2P, [{"at": "1 ms", "kind": "bit-error-rate", "link": "fibre",
                           "bit_error_rate": 1e-9, "from": "disk"}])
    assert scenario.faults == (FaultConfig(1e-3, "bit-error-rate", link="fibre",
                                           bit_error_rate=1e-9, sender="disk"),)
    document = tomllib.loads(P2P)
    document["links"][0]["bit_error_rates"] = [1e-9, 0]
    link = scenario_from_document(document, "case.toml").links[0]
    assert (link.bit_error_rate, link.error_rates) == (0.0, (("host", 1e-9), ("disk", 0.0)))
    document["links"][0]["bit_error_rate"] = 1e-12
    with pytest.raises(ScenarioError) as info:
        scenario_from_document(document, "case.toml")
    assert str(info.value) == ("case.toml: links[0].bit_error_rates: given [1e-09, 0]; no "
                               "bit_error_rates with bit_error_rate: one rate for both "
                               "directions or one for each")


def test_fabric_and_loop_targets() -> None:
    fabric = load(FABRIC, [{"at": "1 ms", "kind": "switch-failure", "switch": "sw2",
                            "duration": "5 ms"},
                           {"at": "2 ms", "kind": "port-failure", "port": "sw:9"},
                           {"at": "3 ms", "kind": "link-down", "ends": ["sw2:9", "sw:9"]}])
    assert [f.target for f in fabric.faults] == ["switch sw2", "port sw:9", "link isl"]
    loop = load(LOOP, [{"at": "1 ms", "kind": "lip", "port": "d1"}])
    assert loop.faults == (FaultConfig(1e-3, "lip", port="d1"),)


@pytest.mark.parametrize(("text", "fault", "line"), [
    (P2P, {"at": "30 ms", "kind": "link-down", "link": "fibre"},
     "case.toml: faults[0].at: given '30 ms'; a time before run.duration ('20 ms')"),
    (P2P, {"at": "1 ms", "kind": "lip", "port": "host"},
     "case.toml: faults[0].kind: given 'lip'; a kind of fault topology 'point-to-point' "
     "models: 'link-down', 'link-up', 'loss-of-sync', 'bit-error-rate', 'port-failure' or "
     "'corrupted-characters'"),
    (LOOP, {"at": "1 ms", "kind": "port-failure", "port": "d1"},
     "case.toml: faults[0].kind: given 'port-failure'; a kind of fault topology 'loop' "
     "models: 'lip'"),
    (P2P, {"at": "1 ms", "kind": "link-down"},
     "case.toml: faults[0]: no target; one of 'link' or 'ends' with kind 'link-down'"),
    (P2P, {"at": "1 ms", "kind": "link-down", "link": "fibre", "port": "host"},
     "case.toml: faults[0].port: given 'host'; one target only: link is given"),
    (P2P, {"at": "1 ms", "kind": "port-failure", "link": "fibre"},
     "case.toml: faults[0].link: given 'fibre'; a target of kind 'port-failure': 'port'"),
    (P2P, {"at": "1 ms", "kind": "link-down", "link": "cable"},
     "case.toml: faults[0].link: given 'cable'; the name of a link: 'fibre'"),
    (P2P, {"at": "1 ms", "kind": "link-down", "ends": ["host", "tape"]},
     "case.toml: faults[0].ends: given ['host', 'tape']; the two ends of a link: "
     "['host', 'disk']"),
    (FABRIC, {"at": "1 ms", "kind": "port-failure", "port": "sw:3"},
     "case.toml: faults[0].port: given 'sw:3'; a port: 'host', 'disk', 'sw:0', 'sw2:0', "
     "'sw:9', 'sw2:9'"),
    (FABRIC, {"at": "1 ms", "kind": "switch-failure", "switch": "core"},
     "case.toml: faults[0].switch: given 'core'; the name of a switch: 'sw', 'sw2'"),
    (P2P, {"at": "1 ms", "kind": "loss-of-sync", "link": "fibre"},
     "case.toml: faults[0].duration: missing; a time with a unit such as '10 ms', > 0 s, "
     "for kind 'loss-of-sync'"),
    (P2P, {"at": "1 ms", "kind": "link-down", "link": "fibre", "characters": 4},
     "case.toml: faults[0].characters: given 4; no characters with kind 'link-down' (only "
     "with 'corrupted-characters')"),
    (P2P, {"at": "1 ms", "kind": "link-up", "link": "fibre"},
     "case.toml: faults[0].kind: given 'link-up'; a link that is down at that time: link "
     "'fibre' has no link-down before at = '1 ms'"),
    (P2P, {"at": "1 ms", "kind": "lose", "link": "fibre"},
     "case.toml: faults[0].kind: given 'lose'; one of 'link-down', 'link-up', "
     "'loss-of-sync', 'bit-error-rate', 'port-failure', 'switch-failure', 'lip', "
     "'corrupted-characters'"),
    (P2P, {"at": "5 furlongs", "kind": "link-down", "link": "fibre"},
     "case.toml: faults[0].at: given '5 furlongs'; a time with a unit such as '10 ms', >= 0 "
     "s; '5 furlongs' is not a time; use a number and one of: ps, ns, us, µs, ms, s, min, h "
     "(e.g. '5 us')"),
    (P2P, {"at": "1 ms", "kind": "link-down", "link": "fibre", "colour": "red"},
     "case.toml: faults[0].colour: unknown key; allowed keys in [[faults]]: at, kind, link, "
     "ends, port, switch, duration, bit_error_rate, from, characters, every, mean_interval, "
     "until"),
    (P2P, {"at": "1 ms", "kind": "bit-error-rate", "link": "fibre", "bit_error_rate": 1e-9,
           "from": "tape"},
     "case.toml: faults[0].from: given 'tape'; an end of link 'fibre': 'host' or 'disk'"),
    (P2P, {"at": "1 ms", "kind": "link-down", "link": "fibre", "from": "host"},
     "case.toml: faults[0].from: given 'host'; no from with kind 'link-down' (only with "
     "'bit-error-rate')"),
    (P2P, {"at": "1 ms", "kind": "port-failure", "port": "host", "every": "2 ms"},
     "case.toml: faults[0].duration: missing; a time with a unit such as '10 ms', > 0 s, for "
     "a 'port-failure' that repeats"),
    (P2P, {"at": "1 ms", "kind": "link-down", "link": "fibre", "every": "2 ms",
           "duration": "2 ms"},
     "case.toml: faults[0].duration: given '2 ms'; shorter than every ('2 ms'): each "
     "occurrence over before the next"),
    (P2P, {"at": "1 ms", "kind": "port-failure", "port": "host", "every": "2 ms",
           "mean_interval": "2 ms", "duration": "1 ms"},
     "case.toml: faults[0].mean_interval: given '2 ms'; no mean_interval with every: a fault "
     "repeats periodically or at random"),
    (P2P, {"at": "1 ms", "kind": "corrupted-characters", "port": "host", "characters": 4,
           "until": "5 ms"},
     "case.toml: faults[0].until: given '5 ms'; no until without every or mean_interval"),
    (P2P, {"at": "5 ms", "kind": "corrupted-characters", "port": "host", "characters": 4,
           "every": "1 ms", "until": "25 ms"},
     "case.toml: faults[0].until: given '25 ms'; a time after at ('5 ms') and no later than "
     "run.duration ('20 ms')"),
])
def test_a_bad_fault_is_refused_in_one_line(text: str, fault: dict[str, Any],
                                            line: str) -> None:
    assert refused(text, [fault]) == [line]


def test_a_link_up_does_not_repeat() -> None:
    assert refused(P2P, [{"at": "1 ms", "kind": "link-down", "link": "fibre"},
                         {"at": "2 ms", "kind": "link-up", "link": "fibre", "every": "1 ms"}]) == [
        "case.toml: faults[1].every: given '1 ms'; no every with kind 'link-up' (only with "
        "'link-down', 'loss-of-sync', 'bit-error-rate', 'port-failure', 'switch-failure', 'lip' "
        "or 'corrupted-characters')"]


def test_a_cable_is_pulled_and_put_back_in_time_order() -> None:
    lines = refused(P2P, [{"at": "9 ms", "kind": "link-down", "link": "fibre"},
                          {"at": "3 ms", "kind": "link-down", "link": "fibre"},
                          {"at": "4 ms", "kind": "link-up", "link": "fibre"},
                          {"at": "5 ms", "kind": "link-up", "link": "fibre"}])
    assert lines == ["case.toml: faults[3].kind: given 'link-up'; a link that is down at that "
                     "time: link 'fibre' has no link-down before at = '5 ms'"]


def test_faults_are_refused_where_no_recovery_is_modelled() -> None:
    document = {"topology": "internetwork", "run": {"duration": "1 ms"}, "nodes": [],
                "networks": [], "faults": []}
    with pytest.raises(ScenarioError) as info:
        scenario_from_document(document, "case.toml")
    assert "case.toml: faults: given []; no [[faults]] outside topology = " \
           "'point-to-point', 'fabric', 'loop', 'ethernet' or 'myrinet'" in str(info.value)


def test_every_key_has_help_and_its_example_is_valid() -> None:
    for info in ScheduledFaultSection.model_fields.values():
        assert info.description and info.examples
    example = {key: ScheduledFaultSection.field_for(key).examples[0]  # type: ignore[union-attr]
               for key in ScheduledFaultSection.keys()}
    ScheduledFaultSection.model_validate(example)


def test_the_command_line_refuses_a_bad_schedule_with_status_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(P2P + '[[faults]]\nat = "1 ms"\nkind = "link-up"\nlink = "fibre"\n',
                    encoding="utf-8")
    assert main(["run", str(path)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(f"fcsim: error: {path}: faults[0].kind: ")
