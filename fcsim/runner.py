"""Run a scenario: build it, drive it, measure it, once per repetition."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from fcsim import __version__
from fcsim.engine.simulation import Simulation, TraceSink
from fcsim.loop.builder import build_loop
from fcsim.scenario.model import GeneratorConfig, Scenario, StreamConfig
from fcsim.topology.fabric import build_fabric
from fcsim.topology.network import Network
from fcsim.topology.point_to_point import build_point_to_point
from fcsim.workload import Generator, Stream, Workload

BUILDERS: dict[str, Callable[[Simulation, Scenario], Network]] = {
    "point-to-point": lambda sim, sc: build_point_to_point(sim, sc.nodes, sc.links),
    "fabric": build_fabric,
    "loop": lambda sim, sc: build_loop(sim, sc.nodes, sc.links),
}
"""Topology builders by the scenario's ``topology`` value: (simulation, scenario) -> network."""

SUMMARY_METRICS = ("throughput_bytes_per_s", "throughput_bits_per_s", "sequences_per_s")


def build_workloads(sim: Simulation, scenario: Scenario, net: Network) -> list[Workload]:
    """Create the scenario's workloads on the built network."""
    workloads: list[Workload] = []
    for w in scenario.workloads:
        source = net.nodes[w.source]
        d_id = net.address_of(w.destination)
        if isinstance(w, StreamConfig):
            workloads.append(Stream(sim, w.name, source, d_id, w.size, w.cls, w.max_data_field,
                                    w.outstanding, w.start, w.count))
        elif isinstance(w, GeneratorConfig):
            workloads.append(Generator(sim, w.name, source, d_id, w.interarrival, w.size, w.cls,
                                       w.max_data_field, w.start, w.count))
    return workloads


def run_once(scenario: Scenario, seed: int, sinks: Sequence[TraceSink] = ()) -> dict[str, Any]:
    """One repetition with *seed*; *sinks* receive every link event."""
    sim = Simulation(seed)
    sim.sinks.extend(sinks)
    net = BUILDERS[scenario.topology](sim, scenario)
    workloads = build_workloads(sim, scenario, net)
    run = scenario.run
    if run.warmup > 0:
        sim.run(run.warmup)
        net.reset_stats()
        for w in workloads:
            w.stats.reset()
    sim.run(run.duration)
    interval = run.duration - run.warmup
    return {
        "seed": seed,
        "workloads": {w.name: w.results(interval) for w in workloads},
        **net.results(interval),
    }


def summarise(repetitions: list[dict[str, Any]]) -> dict[str, Any]:
    """Mean, min and max over repetitions of each workload's headline figures."""
    summary: dict[str, Any] = {}
    for name in repetitions[0]["workloads"]:
        figures = {}
        for metric in (*SUMMARY_METRICS, "latency_mean_s"):
            if metric == "latency_mean_s":
                values = [r["workloads"][name]["latency_s"]["mean"] for r in repetitions]
            else:
                values = [r["workloads"][name][metric] for r in repetitions]
            values = [v for v in values if v is not None]
            figures[metric] = ({"mean": sum(values) / len(values), "min": min(values),
                                "max": max(values)} if values else None)
        summary[name] = figures
    return summary


def run_scenario(
    scenario: Scenario,
    sinks: Sequence[TraceSink] = (),
) -> dict[str, Any]:
    """Every repetition of *scenario* and their summary, as one JSON-ready dict.

    Trace *sinks* see the first repetition only.
    """
    run = scenario.run
    reps = [run_once(scenario, run.seed + i, sinks if i == 0 else ())
            for i in range(run.repetitions)]
    return {
        "fcsim_version": __version__,
        "scenario": {"name": scenario.name, "file": scenario.source,
                     "topology": scenario.topology},
        "run": {"duration_s": run.duration, "warmup_s": run.warmup, "seed": run.seed,
                "repetitions": run.repetitions},
        "summary": summarise(reps),
        "repetitions": reps,
    }
