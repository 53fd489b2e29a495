"""What an N_Port does with its upper layers' sequences while its link is
down (a node's link_down): UDP at a constant packet rate R across a pulled
cable loses R x (back - detected) packets when they are dropped (the
default for IP, as a Linux network device without carrier drops them), none
when held (as Linux's FC transport holds SCSI I/O), and, held, all of them
once dev_loss_tmo has passed with the link still down."""

from __future__ import annotations

import tomllib
from typing import Any

import pytest

from fcsim.faults.config import DEV_LOSS_TMO
from fcsim.runner import run_once
from fcsim.scenario.loader import ScenarioError, scenario_from_document

UDP = """\
topology = "point-to-point"
name = "udp across a pulled cable"
[run]
duration = "60 ms"
[[nodes]]
name = "client"
host = "compaq-xp1000"
[[nodes]]
name = "server"
host = "compaq-xp1000"
[[links]]
name = "fibre"
ends = ["client", "server"]
speed = "1GFC"
length = "100 m"
[[workloads]]
name = "udp"
type = "iperf"
protocol = "udp"
from = "client"
to = "server"
bandwidth = "100 Mbit/s"
length = "1470 B"
duration = "55 ms"
[[faults]]
at = "20 ms"
kind = "link-down"
link = "fibre"
duration = "10 ms"
"""
RATE = 100e6 / (8 * 1470)
"""UDP packets per second the client sends."""


def run(**client: Any) -> dict[str, Any]:
    document = tomllib.loads(UDP)
    document["nodes"][0].update(client)
    return run_once(scenario_from_document(document, "udp.toml"), 1)["faults"]


def outage(faults: dict[str, Any]) -> float:
    """From the loss of signal to the N_Port logged in again, s."""
    record = faults["schedule"][0]
    return record["recovered_s"] - record["detected_s"]


@pytest.mark.parametrize("policy", [None, "drop", "by-protocol"])
def test_ip_packets_are_dropped_while_the_link_is_down(policy: str | None) -> None:
    faults = run(**({} if policy is None else {"link_down": policy}))
    dropped = faults["dropped_while_down"]["client"]
    assert dropped["sequences"] == pytest.approx(RATE * outage(faults), abs=2)
    assert dropped["bytes"] > 0


def test_held_packets_wait_and_none_is_dropped() -> None:
    faults = run(link_down="hold")
    assert "dropped_while_down" not in faults


def test_held_packets_are_dropped_after_dev_loss_tmo() -> None:
    """Held for 4 ms (less than the outage): then dropped, with every later one
    until the link is back; held for longer than the outage: none."""
    faults = run(link_down="hold", dev_loss_tmo="4 ms")
    assert faults["dropped_while_down"]["client"]["sequences"] == pytest.approx(
        RATE * outage(faults), abs=2)
    assert "dropped_while_down" not in run(link_down="hold", dev_loss_tmo="20 ms")


def test_the_default_hold_time_is_linux_dev_loss_tmo() -> None:
    assert DEV_LOSS_TMO == 60.0  # drivers/scsi/scsi_transport_fc.c fc_dev_loss_tmo


def test_a_bad_policy_is_refused_in_one_line() -> None:
    document = tomllib.loads(UDP)
    document["nodes"][0]["link_down"] = "queue"
    with pytest.raises(ScenarioError) as info:
        scenario_from_document(document, "udp.toml")
    assert str(info.value) == ("udp.toml: nodes[0].link_down: given 'queue'; one of "
                               "'by-protocol', 'hold', 'drop'")
