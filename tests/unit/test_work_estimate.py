"""The preflight before a run: the work estimate (:mod:`fcsim.scenario.work`)
reads the fastest line once, however many workloads there are, and its frames
are the closed form; port names are checked against a built network's ports."""

from __future__ import annotations

from pathlib import Path

import pytest

from fcsim.fc0.speed import Speed
from fcsim.fc2.frame import FRAMING_BYTES, MAX_DATA_FIELD
from fcsim.scenario.loader import load_scenario
from fcsim.scenario.work import GAP_CHARS, SETUP_FRAMES_PER_NODE, estimate
from fcsim.scenario.workload_model import StreamConfig

ROOT = Path(__file__).resolve().parents[2]


def test_each_line_speed_is_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    scenario = load_scenario(ROOT / "scenarios" / "fabric-239-domains.toml")
    reads = 0
    rate = Speed.char_rate.fget

    def counted(speed: Speed) -> float:
        nonlocal reads
        reads += 1
        return rate(speed)

    monkeypatch.setattr(Speed, "char_rate", property(counted))
    estimate(scenario)
    lines = len(scenario.links) + sum(len(net.links) for net in scenario.networks)
    assert len(scenario.workloads) > 100
    assert reads <= lines


def test_stream_frames_are_the_closed_form() -> None:
    scenario = load_scenario(ROOT / "scenarios" / "fabric-239-domains.toml")
    links = [*scenario.links, *(link for net in scenario.networks for link in net.links)]
    char_rate = max(link.speed.char_rate for link in links)
    run = scenario.run
    frames = SETUP_FRAMES_PER_NODE * sum(n.ports for n in scenario.nodes)
    for w in scenario.workloads:
        assert isinstance(w, StreamConfig) and w.stripe_ports == 1
        frames += (char_rate / (min(w.size, MAX_DATA_FIELD) + FRAMING_BYTES + GAP_CHARS)
                   * max(run.duration - w.start, 0.0))
    assert estimate(scenario).frames == pytest.approx(frames * run.repetitions, rel=1e-12)


def test_port_names_are_checked_against_the_networks_ports() -> None:
    from fcsim import preflight
    from fcsim.runner import build_network

    scenario = load_scenario(ROOT / "scenarios" / "netperf-tcp-rr.toml")
    net = build_network(scenario)
    assert preflight.unknown_ports(net, scenario.source, "--ports", ()) is None
    assert preflight.unknown_ports(net, scenario.source, "--ports", ("client", "ancor:1")) is None
    wrong = preflight.unknown_ports(net, scenario.source, "--ports", ("client", "nowhere"))
    assert wrong == (f"--ports: {scenario.source} has no port named 'nowhere'; its ports: "
                     "ancor:0, ancor:1, client, server")
