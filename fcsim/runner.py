"""Run a scenario: build it, drive it, measure it, once per repetition."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import closing
from copy import deepcopy
from typing import Any

from fcsim import __version__
from fcsim.build import (
    BUILDERS,
    build_hosts,
    build_iperf,
    build_netperf,
    build_slice,
    build_transfers,
    build_workloads,
    install_marginal_paths,
    install_throttles,
    nvme_discovery,
)
from fcsim.engine.simulation import Simulation, TraceSink
from fcsim.faults.injector import install as install_faults
from fcsim.fc3.results import FC3_METRICS
from fcsim.scenario.model import Scenario
from fcsim.storage.build import Storage
from fcsim.sweep import point_label, sweep_points
from fcsim.topology.network import Network
from fcsim.trace.timeseries import TimeSeries
from fcsim.trapeze.build import SliceStorage
from fcsim.units import format_time
from fcsim.workers import run_unordered

SUMMARY_METRICS = ("throughput_bytes_per_s", "throughput_bits_per_s", "sequences_per_s")
NETPERF_METRICS = ("throughput_mbit_s", "transactions_per_s", "round_trip_s", "median_mbit_s",
                   "sum_of_medians_mbit_s")
STORAGE_METRICS = ("iops", "throughput_bytes_per_s", "bytes_per_s")


def _storage_results(storage: Storage, netstore: SliceStorage | None,
                     interval: float) -> dict[str, Any]:
    """The block storage figures of a run: Fibre Channel's and Slice's, together."""
    out = storage.results(interval)
    if netstore is not None:
        extra = netstore.results(interval)
        out["jobs"].update(extra.pop("jobs"))
        out["queues"].update(extra.pop("queues"))
        out.update(extra)
    return out


SLICES = 50
"""Steps in which a run reports its progress, when asked to."""


Built = Callable[[Network], None]
"""Called with a run's network once it is built, before anything is
simulated: a command checks against it the port names it was given (and
refuses them by raising), so that it builds the network once."""


def run_once(scenario: Scenario, seed: int, sinks: Sequence[TraceSink] = (),
             progress: Callable[[float], None] | None = None,
             series: TimeSeries | None = None, built: Built | None = None) -> dict[str, Any]:
    """One repetition with *seed*; *sinks* receive every link event;
    *progress(simulated_time)* is called at :data:`SLICES` points of the run;
    *series* samples the network over time; *built(network)* is called once
    the network is built."""
    return _run_once(scenario, seed, sinks, progress, series, built)[0]


def _run_once(scenario: Scenario, seed: int, sinks: Sequence[TraceSink],
              progress: Callable[[float], None] | None,
              series: TimeSeries | None,
              built: Built | None = None) -> tuple[dict[str, Any], Simulation]:
    """:func:`run_once`'s results, and the simulation that gave them."""
    sim = Simulation(seed)
    sim.sinks.extend(sinks)
    net = BUILDERS[scenario.topology](sim, scenario)
    if built is not None:
        built(net)
    hosts = build_hosts(sim, scenario, net)
    workloads = build_workloads(sim, scenario, net)
    settled = sim.env.event()
    netperfs = build_netperf(sim, scenario, hosts, settled)
    iperfs = build_iperf(sim, scenario, hosts)
    storage = Storage(sim, scenario, net, hosts, nvme_discovery(net))
    throttles = install_throttles(sim, scenario, storage)
    install_marginal_paths(scenario, net, storage)
    netstore = build_slice(sim, scenario, net, hosts, storage)
    transfers = build_transfers(sim, scenario, hosts, storage)
    faults = install_faults(sim, scenario, net, hosts)
    run = scenario.run
    if series is not None:
        series.attach(sim, net, workloads, run.duration, storage)
    if run.warmup > 0:
        sim.run(run.warmup)
        if faults is not None:
            faults.reset_stats()
        net.reset_stats()
        for w in workloads:
            w.reset_stats()
        for host in hosts.values():
            host.reset_stats()
        storage.reset_stats()
        for transfer in transfers:
            transfer.reset_stats()
        if netstore is not None:
            netstore.reset_stats()
    if progress is not None:  # a report at each step, an event that changes nothing
        for k in range(1, SLICES):
            at = run.duration * k / SLICES - sim.now
            if at >= 0:
                sim.call_later(at, lambda event: progress(sim.now))
    sim.run(run.duration, None if run.steady_state is None else settled)
    if progress is not None:
        progress(sim.now)
    interval = sim.now - run.warmup
    out: dict[str, Any] = {
        "seed": seed,
        **({"ended_s": sim.now} if run.steady_state is not None else {}),
        **_readiness(net, run.warmup, bool(workloads)),
        "workloads": {w.name: w.results(interval) for w in workloads},
        **net.results(interval),
    }
    if hosts:
        out["hosts"] = {name: {"model": h.model.name,
                               "cpu_utilisation": h.cpu.busy_time / interval / h.cpu.processors,
                               "background_utilisation": (h.cpu.background_time / interval
                                                          / h.cpu.processors),
                               "bus_utilisation": h.bus.busy_time / interval,
                               "ip_input_drops": h.ip_input_drops,
                               **({"bus_utilisations": [b.busy_time / interval
                                                        for b in h.buses]}
                                  if len(h.buses) > 1 else {})}
                        for name, h in hosts.items()}
    if netperfs:
        out["netperf"] = {n.name: n.results() for n in netperfs}
    if iperfs:
        out["iperf"] = {i.name: i.results() for i in iperfs}
    if storage or netstore:
        out["storage"] = _storage_results(storage, netstore, interval)
        out["warnings"] += storage.warnings()
    if transfers:
        out["transfers"] = {t.name: t.results() for t in transfers}
    if throttles:
        out["throttles"] = {name: t.results() for name, t in throttles.items()}
    if faults is not None:
        out["faults"] = faults.results()
    return out, sim


def _readiness(net: Network, warmup: float, interval_figures: bool) -> dict[str, Any]:
    """When the network came up (``network_up_s``, None if it never did) and the
    ``warnings`` that make the repetition's figures suspect. *interval_figures*:
    the run has workloads measured over the whole interval after the warm-up
    (netperf and iperf time their own tests from the connection on)."""
    why = net.not_up()
    if why is not None:
        return {"network_up_s": None,
                "warnings": [f"not a result: the run ended before the network was up: {why}"]}
    up = net.up_at()
    warnings = []
    if up > warmup and interval_figures:
        warnings.append(f"the network came up at {format_time(up)}, after the warm-up "
                        f"({format_time(warmup)}): the figures include "
                        f"{format_time(up - warmup)} before it was up; lengthen the warm-up")
    return {"network_up_s": up, "warnings": warnings}


def _spread(values: list[float | None]) -> dict[str, float] | None:
    present = [v for v in values if v is not None]
    return ({"mean": sum(present) / len(present), "min": min(present), "max": max(present)}
            if present else None)


def summarise(repetitions: list[dict[str, Any]]) -> dict[str, Any]:
    """Mean, min and max over repetitions of each workload's headline figures."""
    summary: dict[str, Any] = {}
    for name in repetitions[0]["workloads"]:
        figures = {metric: _spread([r["workloads"][name][metric] for r in repetitions])
                   for metric in SUMMARY_METRICS}
        figures["latency_mean_s"] = _spread(
            [r["workloads"][name]["latency_s"]["mean"] for r in repetitions])
        summary[name] = figures
    for name in repetitions[0].get("storage", {}).get("jobs", {}):
        summary[name] = {metric: _spread([r["storage"]["jobs"][name].get(metric)
                                          for r in repetitions])
                         for metric in STORAGE_METRICS}
    for name, first in repetitions[0].get("transfers", {}).items():
        summary[name] = {metric: _spread([r["transfers"][name][metric] for r in repetitions])
                         for metric in ("bytes_per_s", "steady_bytes_per_s") if metric in first}
    for kind, groups in repetitions[0].get("fc3", {}).items():
        for name in groups if isinstance(groups, dict) else ():
            summary[name] = {metric: _spread([r["fc3"][kind][name][metric] for r in repetitions])
                             for metric in FC3_METRICS[kind]}
    for tool in ("netperf", "iperf"):
        for name, first in repetitions[0].get(tool, {}).items():
            summary[name] = {metric: _spread([r[tool][name][metric] for r in repetitions])
                             for metric in NETPERF_METRICS if metric in first}
    return summary


def build_network(scenario: Scenario) -> Network:
    """*scenario*'s network, built on a simulation of its seed and not run."""
    return BUILDERS[scenario.topology](Simulation(scenario.run.seed), scenario)


def _repeat(scenario: Scenario, sinks: Sequence[TraceSink],
            progress: Callable[[int, str], None] | None = None,
            series: TimeSeries | None = None, built: Built | None = None) -> dict[str, Any]:
    """Every repetition of *scenario*; *progress(done, label)* in steps of
    :data:`SLICES` per repetition; *series* samples the first, and *built* is
    told its network.

    A first repetition that drew no random number is what every seed gives
    (every random input of a run comes from its seeded streams): the others
    are then its results under their own seeds, not simulated again, and
    ``identical_repetitions`` says so.
    """
    run = scenario.run
    reps: list[dict[str, Any]] = []
    drew = True
    for i in range(run.repetitions):
        def step(now: float, i: int = i) -> None:
            done = i * SLICES + round(now / run.duration * SLICES)
            progress(done, f"repetition {i + 1}, {format_time(now)} of "  # type: ignore[misc]
                     f"{format_time(run.duration)} simulated")
        if not drew:  # the first drew no random number: every seed gives its results
            reps.append({**deepcopy(reps[0]), "seed": run.seed + i})
            if progress is not None:
                progress((i + 1) * SLICES, f"repetition {i + 1}: the same as repetition 1")
            continue
        rep, sim = _run_once(scenario, run.seed + i, sinks if i == 0 else (),
                             step if progress is not None else None,
                             series if i == 0 else None, built if i == 0 else None)
        reps.append(rep)
        if i == 0 and run.repetitions > 1:
            drew = sim.drew_random()
    out = {"summary": summarise(reps), "repetitions": reps}
    return out if drew else {**out, "identical_repetitions": True}


def run_scenario(
    scenario: Scenario,
    sinks: Sequence[TraceSink] = (),
    progress: Callable[[int, str], None] | None = None,
    series: TimeSeries | None = None,
    jobs: int = 1,
    built: Built | None = None,
) -> dict[str, Any]:
    """Every repetition of *scenario* and their summary, as one JSON-ready dict.

    A netperf or iperf sweep gives one entry in ``points`` per socket and send
    size (or window and bandwidth), each with its own summary and repetitions,
    the points after the first run on *jobs* worker processes; *progress(done,
    label)* is called after each point (for a single run, :data:`SLICES` times
    per repetition). Trace *sinks* see the first repetition only (of the first
    point), *series* samples it (not for a sweep), and *built* is told its
    network once it is built.
    """
    run = scenario.run
    out: dict[str, Any] = {
        "fcsim_version": __version__,
        "scenario": {"name": scenario.name, "file": scenario.source,
                     "topology": scenario.topology},
        "run": {"duration_s": run.duration, "warmup_s": run.warmup, "seed": run.seed,
                "repetitions": run.repetitions},
    }
    points = sweep_points(scenario)
    if not points:
        return {**out, **_repeat(scenario, sinks, progress, series, built)}
    done: dict[int, dict[str, Any]] = {}

    def arrived(index: int, repeated: dict[str, Any]) -> None:
        done[index] = {**points[index][0], **repeated}
        if progress is not None:
            progress(len(done), point_label(points[index][0]))
    arrived(0, _repeat(points[0][1], sinks, built=built))  # here: the trace sinks see it
    rest = range(1, len(points))
    if jobs > 1 and len(rest) > 1:
        # Leaving the block, at the end or on Ctrl-C, kills every worker (fcsim/workers.py).
        with closing(run_unordered(lambda i: _repeat(points[i][1], ()), rest, jobs)) as each:
            for index, repeated in each:
                arrived(index, repeated)
    else:
        for index in rest:
            arrived(index, _repeat(points[index][1], ()))
    out["points"] = [done[i] for i in range(len(points))]
    return out
