"""The flow model: its closed forms, max-min fairness's defining property, the
exchanges it routes as the switches do, and ``fcsim run --model flow``."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fcsim.build import build_fabric, build_workloads
from fcsim.cli import main
from fcsim.engine.simulation import Simulation
from fcsim.fabric.login import FABRIC_EXCHANGES
from fcsim.fc0.speed import speed_named
from fcsim.fc2.frame import frame_chars
from fcsim.fc2.port import MIN_FILL_WORDS
from fcsim.flow.fabric import flow_fabric, unsupported
from fcsim.flow.fairness import max_min
from fcsim.flow.model import solve
from fcsim.runner import run_once
from fcsim.scenario.loader import load_scenario, scenario_from_document
from tests.voq_fabric import on_voq

EXAMPLES = Path(__file__).resolve().parents[2] / "scenarios"


def _fabric(**keys: object) -> dict[str, object]:
    fabric = {"kind": "full-mesh", "switches": 2, "model": "generic-nonblocking",
              "nodes_per_switch": 1, "isls": 1, "speed": "2GFC", "length": "5 m",
              "isl_length": "10 m", "traffic": "fan-in", "targets": 1,
              "stream_size": "64 KiB", "outstanding": 1}
    return fabric | keys


def _scenario(fabric: dict[str, object], login: bool = False, duration: str = "1 ms"):
    return scenario_from_document({"name": "t", "topology": "fabric", "fabric": fabric,
                                   "run": {"duration": duration, "login": login}}, "t.toml")


def test_one_stream_runs_at_the_framing_limited_payload_rate() -> None:
    flow = solve(flow_fabric(_scenario(_fabric())))
    speed = speed_named("2GFC")
    frames = [2112] * 31 + [65536 - 31 * 2112]
    line = sum(frame_chars(d) + 4 * MIN_FILL_WORDS for d in frames) * speed.char_time
    assert abs(flow.stream_rates["fanin0"] - 65536 / line) < 1e-9 * 65536 / line
    assert flow.bottleneck[0].kind == "line"


def test_a_long_isl_with_few_credits_runs_at_credits_x_frame_over_its_cycle() -> None:
    """credits x frame / (frame time + round trip + latency + an R_RDY's word),
    the cycle of a buffer on the ISL into the far switch."""
    scenario = _scenario(_fabric(isl_length="20 km", stream_size="8448 B"))
    credits = 3
    scenario = on_voq(scenario, credits, 0.7e-6, True)
    flow = solve(flow_fabric(scenario))
    speed = speed_named("2GFC")
    isl = next(link for link in scenario.links if link.name.startswith("s0-s1"))
    cycle = (frame_chars(2112) * speed.char_time + 2 * isl.cable.delay + 0.7e-6
             + speed.word_time)
    assert abs(flow.stream_rates["fanin0"] - credits * 2112 / cycle) < 1e-9 * 2112 / cycle
    assert (flow.bottleneck[0].kind, flow.bottleneck[0].owner) == ("credit", "s0:1->s1:1")


def test_the_packet_model_runs_the_credit_bound_isl_at_the_flow_rate() -> None:
    """The same fabric frame by frame (the oracle's check, on one case kept here)."""
    scenario = _scenario(_fabric(isl_length="20 km", stream_size="8448 B"),
                         duration="31 ms")
    scenario = on_voq(scenario, 3, 0.7e-6, True)
    scenario = replace(scenario, run=replace(scenario.run, warmup=1e-3))
    flow = solve(flow_fabric(scenario)).stream_rates["fanin0"]
    packet = run_once(scenario, 1)["workloads"]["fanin0"]["throughput_bytes_per_s"]
    assert abs(packet - flow) <= 0.02 * flow


def test_max_min_on_a_parking_lot() -> None:
    """Bertsekas and Gallager's example: a long flow over two links of capacity
    1 each shared with one short flow gets 1/2, as do both short flows; a
    third link of capacity 2 under the long flow alone changes nothing."""
    rows = np.array([0, 0, 1, 1, 2])
    cols = np.array([0, 1, 0, 2, 0])
    filling = max_min(rows, cols, np.ones(5), np.array([1.0, 1.0, 2.0]), 3)
    assert np.allclose(filling.rate, [0.5, 0.5, 0.5])
    filling = max_min(rows, cols, np.ones(5), np.array([1.0, 0.4, 2.0]), 3)
    assert np.allclose(filling.rate, [0.2, 0.8, 0.2])
    assert filling.bottleneck.tolist() == [1, 0, 1]


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 6).flatmap(lambda resources: st.tuples(
    st.just(resources),
    st.lists(st.floats(0.1, 10.0), min_size=resources, max_size=resources),
    st.lists(st.lists(st.tuples(st.integers(0, resources - 1), st.floats(0.1, 3.0)),
                      min_size=1, max_size=4), min_size=1, max_size=6))))
def test_max_min_rates_are_feasible_and_each_sender_has_a_bottleneck(case) -> None:
    """No resource over its capacity, and each sender is stopped by a full
    resource on which no sender has a larger rate: the definition of max-min
    fairness (Bertsekas and Gallager, §6.5.2)."""
    resources, capacity, senders = case
    entries: dict[tuple[int, int], float] = {}
    for j, uses in enumerate(senders):
        for r, value in uses:
            entries[r, j] = entries.get((r, j), 0.0) + value
    rows = np.array([r for r, _ in entries])
    cols = np.array([j for _, j in entries])
    values = np.array(list(entries.values()))
    cap = np.array(capacity)
    filling = max_min(rows, cols, values, cap, len(senders))
    assert np.all(filling.load <= cap * (1 + 1e-7))
    for j in range(len(senders)):
        b = filling.bottleneck[j]
        assert filling.load[b] >= cap[b] * (1 - 1e-7)
        users = cols[rows == b]
        assert filling.rate[j] >= filling.rate[users].max() * (1 - 1e-7)


def test_exchanges_take_the_isls_the_switches_give_them() -> None:
    """Exchange-based routing over four parallel ISLs: the flow model's path of
    every exchange is the ISL whose direction the packet model loads."""
    fabric = _fabric(isls=4, nodes_per_switch=4, traffic="permutation",
                     routing="exchange-based", outstanding=2, stream_size="16 KiB")
    fabric.pop("targets")
    scenario = _scenario(fabric, duration="0.3 ms")
    flow = flow_fabric(scenario)
    used = {name for s in flow.streams for e in s.exchanges for name in e.path}
    packet = run_once(scenario, 1)["links"]
    for link in packet.values():
        for name, figures in link["directions"].items():
            assert (figures["frames"] > 0) == (name in used), name


def test_a_logged_in_n_port_opens_its_streams_after_the_fabric_exchanges() -> None:
    scenario = _scenario(_fabric(nodes_per_switch=2), login=True)
    sim = Simulation(1)
    net = build_fabric(sim, scenario)
    build_workloads(sim, scenario, net)
    sim.run(1e-3)
    for stream in flow_fabric(scenario).streams:
        held = net.nodes[stream.source].exchange_ids._held  # OX_IDs given and not freed
        # the login's exchanges (FLOGI, name server PLOGI, GID_FT, the peer's
        # PLOGI), then the stream's
        assert held == set(range(FABRIC_EXCHANGES + 2))
        assert [e.ox_id for e in stream.exchanges] == [FABRIC_EXCHANGES + 1]


def test_what_the_flow_model_cannot_represent_is_named() -> None:
    assert "Class 2" in unsupported(load_scenario(EXAMPLES / "fabric-16-port-switch.toml"))
    assert "faults" == unsupported(load_scenario(EXAMPLES / "fabric-isl-failure.toml"))
    assert "topology" in unsupported(load_scenario(EXAMPLES / "p2p-1gfc-class3.toml"))
    assert unsupported(load_scenario(EXAMPLES / "fabric-239-domains.toml")) is None
    assert "slow-drain" in unsupported(load_scenario(EXAMPLES / "fabric-slow-drain.toml"))
    assert "NPIV" in unsupported(load_scenario(EXAMPLES / "fabric-npiv.toml"))


def test_every_example_fabric_is_solved_or_refused() -> None:
    """Each example fabric the flow model does not refuse it solves (an
    NPIV node's virtual N_Ports once reached the paths unrefused, and
    ``fcsim run --model flow`` ended in a traceback)."""
    solved = 0
    for path in sorted(EXAMPLES.glob("fabric-*.toml")):
        scenario = load_scenario(path)
        if unsupported(scenario) is None:
            assert solve(flow_fabric(scenario)).stream_rates, path.name
            solved += 1
    assert solved >= 4


def test_flow_model_names_virtual_channels_and_congestion_isolation() -> None:
    import dataclasses

    vc = load_scenario(EXAMPLES / "fabric-slow-drain-vc.toml")
    nodes = tuple(dataclasses.replace(n, params=dataclasses.replace(n.params, drain=None))
                  for n in vc.nodes)
    assert "virtual channels" in unsupported(dataclasses.replace(vc, nodes=nodes))
    isolating = load_scenario(EXAMPLES / "fabric-slow-drain-isolation.toml")
    assert "[congestion.isolation]" in unsupported(dataclasses.replace(isolating, nodes=nodes))


@pytest.mark.parametrize(("example", "cure"), [
    ("fabric-slow-drain-credit-loss.toml", "credit_loss_recovery"),
    ("fabric-slow-drain-fencing.toml", "fencing"),
    ("fabric-slow-drain-dirl.toml", "ingress_limit"),
    ("fabric-slow-drain-isolation.toml", "isolation")])
def test_run_model_flow_refuses_each_congestion_cure_in_one_line(capsys, example: str,
                                                                  cure: str) -> None:
    """A cure acts on credit waits window by window, which the flow model's
    steady rates do not have: each is refused in one line that names it."""
    assert f"[congestion.{cure}]" in unsupported(load_scenario(EXAMPLES / example))
    assert main(["run", "--model", "flow", str(EXAMPLES / example)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"cannot represent the congestion cure [congestion.{cure}]" in err


def test_run_model_flow_refuses_in_one_line(capsys) -> None:
    assert main(["run", "--model", "flow", str(EXAMPLES / "fabric-isl-failure.toml")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot represent faults" in err


def test_run_model_flow_reports_rates_bottlenecks_and_isls(capsys) -> None:
    path = str(EXAMPLES / "fabric-fat-tree-permutation.toml")
    assert main(["run", "--model", "flow", path]) == 0
    out = capsys.readouterr().out
    assert "leaves out transients" in out and "ISL utilisation" in out
    assert main(["run", "--model", "flow", "--json", path]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["model"] == "flow" and figures["exact"]
    assert len(figures["streams"]) == 16
    assert figures["streams"]["perm0"]["bottleneck"]["kind"] == "line"
    assert figures["isl_utilisation"]["directions"] == 64


def test_average_spread_puts_an_equal_share_on_each_parallel_isl() -> None:
    """Exchange-based routing over four parallel ISLs, spread as the hash
    spreads exchanges on average: each ISL direction carries a quarter of the
    streams' frames, each exchange a quarter of its own on each."""
    fabric = _fabric(isls=4, nodes_per_switch=4, traffic="permutation",
                     routing="exchange-based", outstanding=2, stream_size="16 KiB")
    fabric.pop("targets")
    flow = solve(flow_fabric(_scenario(fabric), "average"))
    isl = [u for name, u in flow.utilisation.items()
           if flow.fabric.directions[name].isl and name.startswith("s0:")]
    assert len(isl) == 4 and max(isl) - min(isl) < 1e-12
    for stream in flow.fabric.streams:
        assert len(stream.exchanges) == 8 and stream.slots == 2
        assert all(e.weight == 0.25 for e in stream.exchanges)


def test_a_stream_with_an_exchange_per_sequence_is_spread_evenly() -> None:
    """A new OX_ID each sequence: over the run the hash spreads them as the
    average spread does, whatever --spread says."""
    fabric = _fabric(isls=4, nodes_per_switch=4, traffic="permutation",
                     routing="exchange-based", outstanding=2, stream_size="16 KiB")
    fabric.pop("targets")
    scenario = _scenario(fabric)
    scenario = replace(scenario, workloads=tuple(replace(w, exchanges="per-sequence")
                                                 for w in scenario.workloads))
    exact, average = flow_fabric(scenario), flow_fabric(scenario, "average")
    assert exact == average
    assert all(e.weight == 0.25 for s in exact.streams for e in s.exchanges)


def test_spread_is_only_for_the_flow_model(capsys) -> None:
    path = str(EXAMPLES / "fabric-core-edge-isls.toml")
    assert main(["run", "--spread", "average", path]) == 2
    assert "--spread" in capsys.readouterr().err
    assert main(["run", "--model", "flow", "--spread", "average", "--json", path]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["spread"] == "average"
    rates = [s["throughput_bytes_per_s"] for s in figures["streams"].values()]
    assert max(rates) - min(rates) < 1e-6 * max(rates)
