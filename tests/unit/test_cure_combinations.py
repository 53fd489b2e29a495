"""Cures a user combines: virtual channels with ingress rate limiting,
FPIN notifications with isolation and with ingress rate limiting work
together, each against its own closed form; virtual channels with a cure
that resets or disables links are refused in one line."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import pytest

from fcsim.build import BUILDERS, build_workloads
from fcsim.engine.simulation import Simulation
from fcsim.fabric.cures import Cures, IngressLimit
from fcsim.fabric.ingress_limit import FULL_FRAME, PacedPort
from fcsim.fc2.frame import FRAMING_BYTES
from fcsim.resources import DATA_ROOT
from fcsim.runner import run_scenario
from fcsim.scenario.loader import read_document, scenario_from_document
from fcsim.scenario.workload_model import StreamConfig
from tests.builders import assert_refused, fabric

EXAMPLES = DATA_ROOT / "scenarios"


def _example(name: str, **tables: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """Example *name* with top-level *tables* set and, under the key
    ``isl_channels``, virtual channels on every ISL (4, by destination)."""
    path = EXAMPLES / f"{name}.toml"
    doc = read_document(path)
    channels = tables.pop("isl_channels", None)
    if channels is not None:
        for link in doc["links"]:
            if all(":" in end for end in link["ends"]):
                link["virtual_channels"] = channels
    doc.update(tables)
    scenario = scenario_from_document(doc, str(path))
    return scenario, run_scenario(scenario)


def _rate(results: dict[str, Any], workload: str) -> float:
    summary = results["summary"][workload]
    key = "throughput_bytes_per_s" if "throughput_bytes_per_s" in summary else "bytes_per_s"
    return summary[key]["mean"]


@pytest.mark.parametrize("share", [0.1, 0.4])
def test_an_ingress_limit_paces_a_sender_across_a_channelled_isl(share: float) -> None:
    """The sender's F_Port on a switch with a channelled ISL is a paced port
    as on any other switch: held at a limit L, a sender of full frames gets L
    times the line's full-frame rate across the ISL's virtual channels."""
    streams = (StreamConfig("w", "a", "b", 2112, cls=3, max_data_field=2112, outstanding=2),)
    scenario = fabric({"a": "sw1:0", "b": "sw2:0"}, streams, duration=20e-3,
                      switches={"sw1": "generic-nonblocking", "sw2": "generic-nonblocking"},
                      isls=(("sw1:20", "sw2:20"),), speed="4GFC")
    links = tuple(dataclasses.replace(link, virtual_channels=3)
                  if link.name.startswith("isl") else link for link in scenario.links)
    scenario = dataclasses.replace(scenario, links=links,
                                   cures=Cures(ingress_limit=IngressLimit(1.0, 0.99)))
    sim = Simulation(scenario.run.seed)
    net = BUILDERS[scenario.topology](sim, scenario)
    build_workloads(sim, scenario, net)
    limiter = next(cure for cure in net.cures if cure.name == "ingress_limit")
    port = net.switches["sw1"].ports[0].port
    assert isinstance(port, PacedPort)
    assert net.switches["sw1"].ports[20].channels is not None  # the ISL is channelled
    limiter.set_limit("sw1:0", port, share, 0.0)
    sim.run(5e-3)
    got = net.nodes["b"].port.stats.frames_rx
    sim.run(20e-3)
    got = net.nodes["b"].port.stats.frames_rx - got
    per_frame = (FULL_FRAME * port.char_time + port.gap_time) / share
    assert got == pytest.approx(15e-3 / per_frame, abs=1)


def test_ingress_limiting_on_a_fabric_with_virtual_channels() -> None:
    """The DIRL example with 4 channels on each ISL: the channels already
    separate the two hosts' read data (areas 0 and 1 take channels 1 and 2),
    so the victim reads the ISL's full-frame payload rate less what "slow"
    takes; the slow host's F_Port still waits for credit every window, so
    the loop halves its limit window by window and reaches the floor after
    the closed-form number of halvings, as without channels."""
    scenario, results = _example("fabric-slow-drain-dirl", isl_channels=4)
    spec = scenario.cures.ingress_limit
    changes = results["repetitions"][0]["cures"]["ingress_limit"]["changes"]
    halvings = math.ceil(math.log(spec.floor) / math.log(1 - spec.reduce))
    assert [c["port"] for c in changes[:halvings]] == ["edge2:0"] * halvings
    assert [c["limit"] for c in changes[:halvings]] == pytest.approx(
        [max(spec.floor, (1 - spec.reduce) ** k) for k in range(1, halvings + 1)])
    isl = next(link for link in scenario.links if link.name == "isl-core-edge2")
    line = isl.speed.baud / 10 * 2112 / (2112 + FRAMING_BYTES + 24)
    slow = _rate(results, "slow-reads")
    drain = next(n for n in scenario.nodes if n.name == "slow").params.drain.rate
    assert slow < drain
    assert _rate(results, "fast-reads") > 5 * drain
    assert _rate(results, "fast-reads") < line - slow


def test_fpin_and_isolation_together() -> None:
    """[fpin] congestion notifications beside congestion isolation: both read
    the slow host's F_Port, neither disturbs the other. The device is
    isolated at the first poll and the victim gets the ISL's payload rate
    less the drain rate within 1 %, as without FPIN; "slow" is sent a
    Congestion FPIN and its sender a Peer Congestion FPIN for the windows
    its port waited past the warning share."""
    fpin = {"congestion": True, "congestion_window": "1 ms"}
    scenario, results = _example("fabric-slow-drain-isolation", fpin=fpin)
    first = results["repetitions"][0]
    events = first["cures"]["isolation"]["events"]
    assert [(e["action"], e["device"], e["time_s"]) for e in events] == [
        ("isolated", "slow", scenario.cures.isolation.window)]
    isl = next(link for link in scenario.links if link.name == "isl-core-edge2")
    line = isl.speed.baud / 10 * 2112 / (2112 + FRAMING_BYTES + 24)
    drain = next(n for n in scenario.nodes if n.name == "slow").params.drain.rate
    assert _rate(results, "to-fast") == pytest.approx(line - drain, rel=0.01)
    sent = first["fpin"]["notifications"]
    to_slow = [n for n in sent if n["to"] == "slow"]
    to_sender = [n for n in sent if n["to"] == "array1"]
    assert to_slow and len(to_slow) == len(to_sender)
    assert all(d["kind"] == "congestion" for n in to_slow for d in n["descriptors"])
    assert not [n for n in sent if n["to"] in ("fast", "array2", "local", "array3")]


def test_fpin_throttling_and_ingress_limiting_together() -> None:
    """[fpin] with throttling initiators beside DIRL on the reads example:
    the slow host's initiator throttles on the Congestion FPINs for its own
    port while its F_Port's limit is cut; the victim still reads several
    times the drain rate and the culprit under it."""
    fpin = {"congestion": True, "congestion_window": "1 ms", "throttle": True}
    scenario, results = _example("fabric-slow-drain-dirl", fpin=fpin)
    first = results["repetitions"][0]
    assert first["cures"]["ingress_limit"]["changes"][0]["port"] == "edge2:0"
    assert first["throttles"]["slow"]["falls"] > 0
    assert first["throttles"]["fast"]["falls"] == 0
    drain = next(n for n in scenario.nodes if n.name == "slow").params.drain.rate
    assert _rate(results, "fast-reads") > 5 * drain > 5 * _rate(results, "slow-reads")


@pytest.mark.parametrize(("table", "key"), [
    ('[congestion.fencing]\nwindow = "1 ms"\ntxwait = 0.3\n', "congestion.fencing"),
    ('[congestion.credit_loss_recovery]\nf_port = "5 ms"\n',
     "congestion.credit_loss_recovery")])
def test_virtual_channels_with_a_cure_that_resets_links_are_refused_once(
        tmp_path, table: str, key: str) -> None:
    """One line, naming the cure, the channelled links and what to do."""
    base = (EXAMPLES / "fabric-slow-drain-isolation.toml").read_text(encoding="utf-8")
    assert_refused(tmp_path, base, ("\n[congestion.isolation]\n",
                                    f"\n{table}\n[congestion.isolation]\n"),
                   key, "given with virtual_channels on links[6], links[7]",
                   "link recovery on a channelled ISL is not modelled")
