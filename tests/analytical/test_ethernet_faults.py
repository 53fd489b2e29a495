"""Faults on Ethernet: a pulled cable is detected Loss of Signal's assert time
after the pull and up again a cable delay, Loss of Signal's deassert time and
1000BASE-X auto-negotiation (two link_timers) after it is put back; a failed
switch is down at once and up the same time after it powers on, having
forgotten the addresses it had learnt."""

from __future__ import annotations

import tomllib
from typing import Any

import pytest

from fcsim.ethernet.port import AUTONEGOTIATION, LINK_TIMER
from fcsim.fc2.port_states import LOS_ASSERT, LOS_DEASSERT
from fcsim.runner import run_once
from fcsim.scenario.loader import ScenarioError, scenario_from_document

LAN = """\
topology = "ethernet"
name = "lan"
[run]
duration = "300 ms"
[[nodes]]
name = "h1"
host = "ideal"
[[nodes]]
name = "h2"
host = "ideal"
[[switches]]
name = "sw"
model = "gigabit-workgroup"
[[links]]
ends = ["h1", "sw:0"]
speed = "1000BASE-X"
length = "10 m"
[[links]]
name = "to-h2"
ends = ["sw:1", "h2"]
speed = "1000BASE-X"
length = "100 m"
[[workloads]]
name = "udp"
type = "iperf"
protocol = "udp"
from = "h1"
to = "h2"
bandwidth = "200 Mbit/s"
duration = "290 ms"
"""
DELAY = 100 * 5e-9  # the 100 m cable's one-way delay at 5 ns/m


def run(faults: list[dict[str, Any]], protocol: str = "udp") -> dict[str, Any]:
    document = tomllib.loads(LAN)
    document["faults"] = faults
    document["workloads"][0]["protocol"] = protocol
    return run_once(scenario_from_document(document, "lan.toml"), 1)


def test_autonegotiation_is_two_link_timers_of_10_ms() -> None:
    assert LINK_TIMER == 10e-3 and AUTONEGOTIATION == 2 * LINK_TIMER


def test_a_pulled_cable_goes_down_and_comes_back_as_the_phy_says() -> None:
    at, out = 0.1, 0.03
    result = run([{"at": "100 ms", "kind": "link-down", "link": "to-h2", "duration": "30 ms"}])
    record = result["faults"]["schedule"][0]
    assert record["detected_s"] == pytest.approx(at + LOS_ASSERT, abs=1e-12)
    assert record["recovered_s"] == pytest.approx(
        at + out + DELAY + LOS_DEASSERT + AUTONEGOTIATION, abs=1e-12)
    ports = result["faults"]["ports"]
    assert ports["h2"]["failures"] == ports["sw:1"]["failures"] == 1
    assert record["frames_lost"] > 0  # on the fibre when it was pulled
    # every datagram (R a second) from the pull until the link is up again is lost:
    # in the dark at h2, queued at the switch for a port gone down, or flooded after
    # to no port that is up
    rate = 200e6 / (8 * 1470)
    assert result["iperf"]["udp"]["datagrams_lost"] == pytest.approx(
        rate * (record["recovered_s"] - at), abs=2)


def test_a_failed_switch_forgets_the_addresses_it_had_learnt() -> None:
    at, out = 0.1, 0.02
    before = run([], "tcp")["switches"]["sw"]["flooded"]  # h2's ACKs teach it h2
    result = run([{"at": "100 ms", "kind": "switch-failure", "switch": "sw",
                   "duration": "20 ms"}], "tcp")
    record = result["faults"]["schedule"][0]
    assert record["detected_s"] == pytest.approx(at, abs=1e-12)  # its own ports, at once
    assert record["recovered_s"] == pytest.approx(
        at + out + DELAY + LOS_DEASSERT + AUTONEGOTIATION, abs=1e-12)  # the longer cable
    assert result["switches"]["sw"]["flooded"] > before  # h2 unknown again after it
    assert result["faults"]["ports"]["h1"]["failures"] == 1


def test_a_flapping_cable_recovers_each_time_as_one_pull() -> None:
    """Out 10 ms every 60 ms from 20 ms until 250 ms: four pulls, each up again
    10 ms, a cable delay, LOS deassert and auto-negotiation after it."""
    result = run([{"at": "20 ms", "kind": "link-down", "link": "to-h2", "duration": "10 ms",
                   "every": "60 ms", "until": "250 ms"}])
    records = result["faults"]["schedule"]
    assert len(records) == 4 == result["faults"]["processes"][0]["occurrences"]
    for k, record in enumerate(records):
        at = 0.02 + 0.06 * k
        assert record["at_s"] == pytest.approx(at, abs=1e-12)
        assert record["recovered_s"] == pytest.approx(
            at + 0.01 + DELAY + LOS_DEASSERT + AUTONEGOTIATION, abs=1e-12)


@pytest.mark.parametrize(("fault", "line"), [
    ({"at": "1 ms", "kind": "port-failure", "port": "h1"},
     "lan.toml: faults[0].kind: given 'port-failure'; a kind of fault topology 'ethernet' "
     "models: 'link-down', 'link-up' or 'switch-failure'"),
    ({"at": "1 ms", "kind": "bit-error-rate", "link": "to-h2", "bit_error_rate": 1e-9},
     "lan.toml: faults[0].kind: given 'bit-error-rate'; a kind of fault topology 'ethernet' "
     "models: 'link-down', 'link-up' or 'switch-failure'"),
])
def test_faults_ethernet_does_not_model_are_refused(fault: dict[str, Any], line: str) -> None:
    document = tomllib.loads(LAN)
    document["faults"] = [fault]
    with pytest.raises(ScenarioError) as info:
        scenario_from_document(document, "lan.toml")
    assert str(info.value) == line


def test_overlapping_pulls_keep_the_cable_out_until_the_later_ends() -> None:
    """The cable out from 100 to 130 ms and again from 120 to 160 ms: the link
    is up again only after 160 ms, as the PHY says, not after 130 ms."""
    result = run([{"at": "100 ms", "kind": "link-down", "link": "to-h2", "duration": "30 ms"},
                  {"at": "120 ms", "kind": "link-down", "link": "to-h2", "duration": "40 ms"}])
    later = result["faults"]["schedule"][1]
    assert later["recovered_s"] == pytest.approx(
        0.16 + DELAY + LOS_DEASSERT + AUTONEGOTIATION, abs=1e-12)
    assert result["faults"]["ports"]["h2"]["failures"] == 1
