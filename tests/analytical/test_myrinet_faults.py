"""Faults on Myrinet: a pulled cable is detected Loss of Signal's assert time
after the pull and up again a cable delay and Loss of Signal's deassert time
after it is put back (no auto-negotiation); the packet crossing the cable is
cut, fails its CRC at the NIC and is dropped; a failed switch loses what it
holds and passes packets again once its links are up."""

from __future__ import annotations

import tomllib
from typing import Any

import pytest

from fcsim.fc2.port_states import LOS_ASSERT, LOS_DEASSERT
from fcsim.runner import run_once
from fcsim.scenario.loader import scenario_from_document

MYRINET = """\
topology = "myrinet"
name = "myri"
[run]
duration = "100 ms"
[[nodes]]
name = "h1"
host = "ideal"
mtu = 9000
[[nodes]]
name = "h2"
host = "ideal"
mtu = 9000
[[switches]]
name = "sw"
model = "m2f-sw8"
[[links]]
ends = ["h1", "sw:0"]
speed = "Myrinet-1280"
length = "3 m"
[[links]]
name = "to-h2"
ends = ["sw:1", "h2"]
speed = "Myrinet-1280"
length = "10 m"
[[workloads]]
name = "udp"
type = "iperf"
protocol = "udp"
from = "h1"
to = "h2"
bandwidth = "400 Mbit/s"
length = "8000 B"
duration = "95 ms"
"""
DELAY = 10 * 5e-9  # the 10 m cable's one-way delay at 5 ns/m


def run(faults: list[dict[str, Any]], bandwidth: str = "400 Mbit/s") -> dict[str, Any]:
    document = tomllib.loads(MYRINET)
    document["faults"] = faults
    document["workloads"][0]["bandwidth"] = bandwidth
    return run_once(scenario_from_document(document, "myri.toml"), 1)


def test_a_pulled_cable_loses_what_is_sent_until_the_link_is_back() -> None:
    at, out = 0.03, 0.02
    result = run([{"at": "30 ms", "kind": "link-down", "link": "to-h2", "duration": "20 ms"}])
    record = result["faults"]["schedule"][0]
    assert record["detected_s"] == pytest.approx(at + LOS_ASSERT, abs=1e-12)
    assert record["recovered_s"] == pytest.approx(at + out + DELAY + LOS_DEASSERT, abs=1e-12)
    rate = 400e6 / (8 * 8000)  # datagrams a second
    assert result["iperf"]["udp"]["datagrams_lost"] == pytest.approx(
        rate * (record["recovered_s"] - at), abs=2)


def test_the_packet_crossing_a_pulled_cable_is_cut_and_dropped() -> None:
    """Offered more than the link carries, the link is never idle: the pull
    cuts the packet arriving at h2, which fails its CRC there."""
    result = run([{"at": "30 ms", "kind": "link-down", "link": "to-h2", "duration": "20 ms"}],
                 "2 Gbit/s")
    assert result["nodes"]["h2"]["link_down_drops"] == 1
    assert result["nodes"]["h2"]["packets_rx"] > 0


def test_a_failed_switch_loses_what_it_holds_and_comes_back() -> None:
    at, out = 0.03, 0.01
    result = run([{"at": "30 ms", "kind": "switch-failure", "switch": "sw",
                   "duration": "10 ms"}], "2 Gbit/s")
    record = result["faults"]["schedule"][0]
    assert record["detected_s"] == pytest.approx(at, abs=1e-12)
    assert record["recovered_s"] == pytest.approx(at + out + DELAY + LOS_DEASSERT, abs=1e-12)
    assert result["switches"]["sw"]["link_down_drops"] >= 1  # the packet passing through
    before = run([], "2 Gbit/s")["nodes"]["h2"]["packets_rx"]
    got = result["nodes"]["h2"]["packets_rx"]
    # the link carries packets back to back: h2 misses those of the outage, no more
    per_second = before / 0.1
    assert before - got == pytest.approx(per_second * (record["recovered_s"] - at), abs=3)
