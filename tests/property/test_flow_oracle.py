"""The flow model as an oracle for the packet model.

Hypothesis draws a generated fabric (core-edge, full mesh or fat tree; N_Port
and ISL speeds, ISL counts, cable lengths up to 20 km, BB credits and routing
latency of a virtual-output-queue switch model, routing policy) and a
saturating Class 3 workload (stride permutation, random pairs or fan-in;
sequence size, exchanges per stream, login or not). The packet model runs it
for a short time; each stream's throughput and each link direction's
utilisation must match the flow model's within :data:`TOLERANCE` (relative,
for streams) and :data:`UTILISATION_TOLERANCE` (absolute, for links) where
the flow model says it computes what the switches give (no caveat,
:func:`fcsim.flow.model.caveats`): max-min fair rates under the round robin
of every switch output over its inputs and the blocking of shared input
buffers, settled to their fixed point (:mod:`fcsim.flow.arbitration`).
Where it names a caveat (what it does not compute: R_RDYs waiting behind
frames the other way on a link not locked, frames waiting at a full output
where the model does not compute the wait, a sequence's short last frame
on a credit-tight hop, input FIFOs, central routers, levels that did
not settle, a second fixed point of the round robin, an input full at
exactly its shares of two outputs, or a queue behind held frames that the
levels' second rule did not settle), the packet model
must still keep every stream within what the flow model gives it alone on
its path (its own line and credit bounds).

Examples per run: :data:`EXAMPLES` (environment variable
``FCSIM_ORACLE_EXAMPLES``, default 60, drawn the same way each run); more
are drawn at random when the variable is set, reproducibly with pytest's
``--hypothesis-seed`` (docs/model.md, "Flow model", gives the 50-fabric
figures for seeds 44 and 7).
"""

from __future__ import annotations

import math
import os
from dataclasses import replace

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from fcsim.fabric.switch_model import SwitchModel
from fcsim.fc2.frame import MAX_DATA_FIELD, frame_chars
from fcsim.fc2.login import ServiceParameters
from fcsim.flow.fabric import flow_fabric
from fcsim.flow.model import FlowResult, solve
from fcsim.runner import run_once
from fcsim.scenario.loader import scenario_from_document
from fcsim.scenario.model import Scenario

EXAMPLES = int(os.environ.get("FCSIM_ORACLE_EXAMPLES", "0") or 0)
TOLERANCE = 0.02
"""Stream throughput, packet against flow: relative."""
UTILISATION_TOLERANCE = 0.02
"""Link direction utilisation, packet against flow: absolute."""
FRAMES = 400
"""Frames the slowest stream sends in the measured interval (about 0.25 %
granularity for its throughput)."""

SPEEDS = ("1GFC", "2GFC", "4GFC", "8GFC")
CREDITS = st.sampled_from((16, 8, 4, 3, 2, 1))
"""BB credits of a switch port or an N_Port, the most first (hypothesis draws
and shrinks towards the first): few credits bring in the flow model's
credit caveats, which the oracle checks less strictly."""


@st.composite
def fabrics(draw: st.DrawFn) -> tuple[Scenario, str]:
    """A generated fabric, its switches all one random VOQ model, and its workload."""
    kind = draw(st.sampled_from(("core-edge", "full-mesh", "fat-tree")))
    fabric: dict[str, object] = {"kind": kind, "model": "generic-nonblocking"}
    if kind == "core-edge":
        cores = draw(st.integers(1, 2))
        fabric |= {"switches": cores + draw(st.integers(2, 3)), "cores": cores}
    elif kind == "full-mesh":
        fabric["switches"] = draw(st.integers(2, 4))
    else:
        fabric["pods"] = 2
    traffic = draw(st.sampled_from(("permutation", "random-pairs", "fan-in")))
    fabric |= {
        "nodes_per_switch": draw(st.integers(1, 3)),
        "isls": draw(st.integers(1, 2)),
        "speed": draw(st.sampled_from(SPEEDS)),
        "isl_speed": draw(st.sampled_from(SPEEDS)),
        "length": f"{draw(st.integers(1, 100))} m",
        "isl_length": f"{draw(st.sampled_from((10, 500, 5000, 20000)))} m",
        "routing": draw(st.sampled_from(("port-based", "device-based", "exchange-based"))),
        "traffic": traffic,
        "stream_size": f"{draw(st.sampled_from((8, 16, 64)))} KiB",
        "outstanding": draw(st.integers(1, 3)),
    }
    if traffic == "random-pairs":
        fabric["traffic_seed"] = draw(st.integers(0, 1000))
    if traffic == "fan-in":
        fabric["targets"] = 1
    login = draw(st.booleans())
    document = {"name": "oracle", "topology": "fabric", "fabric": fabric,
                "run": {"duration": "1 ms", "login": login}}
    scenario = scenario_from_document(document, "oracle.toml")
    model = SwitchModel(name="oracle-voq", ports=64, bb_credit=draw(CREDITS),
                        routing_latency=draw(st.sampled_from((0.0, 0.7e-6, 5e-6))),
                        cut_through=draw(st.booleans()), virtual_output_queues=True,
                        crossbar_speedup=2.0)
    params = ServiceParameters(bb_credit=draw(CREDITS))
    scenario = replace(scenario,
                       switches=tuple(replace(s, model=model) for s in scenario.switches),
                       nodes=tuple(replace(n, params=params) for n in scenario.nodes))
    return scenario, (f"{fabric!r}, switch credit {model.bb_credit}, routing latency "
                      f"{model.routing_latency}, cut-through {model.cut_through}, N_Port credit "
                      f"{params.bb_credit}, login {login}")


def _timed(scenario: Scenario, flow: FlowResult) -> Scenario:
    """*scenario* run long enough for :data:`FRAMES` frames of its slowest
    sender, after a warm-up of the logins, the longest round trip many times
    over, and the time the buffers on a stream's path take to fill (its
    credits four times over at the slowest speed's longest frame)."""
    fabric = flow.fabric
    longest = max(link.cable.delay for link in scenario.links)
    frame = frame_chars(MAX_DATA_FIELD) * max(d.speed.char_time
                                              for d in fabric.directions.values())
    buffers = max(sum(fabric.directions[name].credit for name in e.path)
                  for s in fabric.streams for e in s.exchanges)
    warmup = 0.3e-3 + 20 * longest + 4 * buffers * frame
    slowest = min(flow.rates)
    run = replace(scenario.run, warmup=warmup, duration=warmup + FRAMES / slowest)
    return replace(scenario, run=run)


@settings(max_examples=EXAMPLES or 60, deadline=None, derandomize=not EXAMPLES,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(fabrics())
def test_packet_rates_match_the_flow_model(case: tuple[Scenario, str]) -> None:
    scenario, described = case
    flow = solve(flow_fabric(scenario))
    packet = run_once(_timed(scenario, flow), 1)
    assert not packet.get("warnings"), f"{described}: {packet['warnings']}"
    measured = {name: w["throughput_bytes_per_s"] for name, w in packet["workloads"].items()}
    exact = not any(flow.caveats.values())
    event("compared strictly" if exact else "caveats: " + ", ".join(
        sorted({c for named in flow.caveats.values() for c in named})))
    worst = max(abs(measured[name] - rate) / rate for name, rate in flow.stream_rates.items())
    bound = next(b for b in (0.001, 0.005, 0.01, 0.02, 0.1, 0.5, 1.0, math.inf) if worst <= b)
    event(f"{'strict' if exact else 'with caveats'}: worst stream within {bound:.1%}")
    if exact:
        for name, rate in flow.stream_rates.items():
            assert abs(measured[name] - rate) <= TOLERANCE * rate, (
                f"{described}: stream {name}: packet {measured[name] / 1e6:.2f} MB/s, "
                f"flow {rate / 1e6:.2f} MB/s")
        for link in packet["links"].values():
            for direction, figures in link["directions"].items():
                expected = flow.utilisation.get(direction, 0.0)
                assert abs(figures["utilisation"] - expected) <= UTILISATION_TOLERANCE, (
                    f"{described}: {direction}: packet utilisation "
                    f"{figures['utilisation']:.4f}, flow {expected:.4f}")
    else:
        alone = _alone(flow)
        for name, rate in measured.items():
            assert rate <= alone[name] * (1 + TOLERANCE), (
                f"{described}: stream {name}: packet {rate / 1e6:.2f} MB/s above what its "
                f"path carries alone, {alone[name] / 1e6:.2f} MB/s")


def _alone(flow: FlowResult) -> dict[str, float]:
    """Each stream's rate when its sending N_Port is alone in the fabric (the
    flow model's bound on what the stream can get whatever the others do)."""
    out: dict[str, float] = {}
    for source in {s.source for s in flow.fabric.streams}:
        own = replace(flow.fabric, streams=tuple(s for s in flow.fabric.streams
                                                 if s.source == source))
        out.update(solve(own).stream_rates)
    return out
