"""Run a scenario: build it, drive it, measure it, once per repetition."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import closing
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from fcsim import __version__
from fcsim.apps.iperf import IperfMesh
from fcsim.apps.netperf import Netperf
from fcsim.apps.transfer import TRANSFER_PORT, Transfer
from fcsim.engine.simulation import Simulation, TraceSink
from fcsim.faults.injector import install as install_faults
from fcsim.fc3.results import FC3_METRICS, striped_stream
from fcsim.host.block import HostIo
from fcsim.host.host import Host
from fcsim.host.host_model import HostModel
from fcsim.loop.builder import build_loop
from fcsim.scenario.model import (
    GeneratorConfig,
    IperfConfig,
    NetperfConfig,
    NodeConfig,
    Scenario,
    StreamConfig,
    TransferConfig,
)
from fcsim.storage.san import Storage
from fcsim.sweep import point_label, sweep_points
from fcsim.topology.ethernet import build_ethernet
from fcsim.topology.fabric import build_fabric
from fcsim.topology.internetwork import build_internetwork
from fcsim.topology.myrinet import build_myrinet
from fcsim.topology.network import Network
from fcsim.topology.point_to_point import build_point_to_point
from fcsim.trace.timeseries import TimeSeries
from fcsim.trapeze.config import SliceJobConfig
from fcsim.trapeze.storage import SliceStorage
from fcsim.units import format_time
from fcsim.workers import run_unordered
from fcsim.workload import Generator, Stream, Workload

if TYPE_CHECKING:
    import simpy

BUILDERS: dict[str, Callable[[Simulation, Scenario], Network]] = {
    "point-to-point": lambda sim, sc: build_point_to_point(sim, sc.nodes, sc.links),
    "fabric": build_fabric,
    "loop": lambda sim, sc: build_loop(sim, sc.nodes, sc.links),
    "ethernet": build_ethernet,
    "myrinet": build_myrinet,
}
"""Topology builders by the scenario's ``topology`` value: (simulation, scenario) -> network."""
BUILDERS["internetwork"] = lambda sim, sc: build_internetwork(sim, sc, BUILDERS)

SUMMARY_METRICS = ("throughput_bytes_per_s", "throughput_bits_per_s", "sequences_per_s")
NETPERF_METRICS = ("throughput_mbit_s", "transactions_per_s", "round_trip_s", "median_mbit_s",
                   "sum_of_medians_mbit_s")
STORAGE_METRICS = ("iops", "throughput_bytes_per_s", "bytes_per_s")


def build_workloads(sim: Simulation, scenario: Scenario, net: Network) -> list[Workload]:
    """Create the scenario's workloads on the built network."""
    workloads: list[Workload] = []
    groups = net.aliases.by_name if getattr(net, "aliases", None) else {}
    for w in scenario.workloads:
        if not isinstance(w, StreamConfig | GeneratorConfig):
            continue
        source, d_id = net.route(w.source, w.destination, fibre_channel=True)
        if isinstance(w, StreamConfig) and w.stripe_ports > 1:
            workloads.append(striped_stream(sim, w, net))
        elif isinstance(w, StreamConfig):
            workloads.append(Stream(sim, w.name, source, d_id, w.size, w.cls, w.max_data_field,
                                    w.outstanding, w.start, w.count))
        else:
            workloads.append(Generator(sim, w.name, source, d_id, w.interarrival, w.size, w.cls,
                                       w.max_data_field, w.start, w.count))
        if w.destination in groups:  # an alias group: sending starts once it is joined
            workloads[-1].waits.append(groups[w.destination].when_ready)
    return workloads


def build_hosts(sim: Simulation, scenario: Scenario, net: Network) -> dict[str, Host]:
    """A host around the link ports of every node that names a host model
    (one interface per network it is on, each card on the bus the node puts
    it on), loaded by the node's own background load and with its own TCP
    timestamps setting where it gives them, and with the node's static
    routes."""
    hosts = {}
    for n in scenario.nodes:
        if n.host is not None:
            host = hosts[n.name] = Host(sim, n.name, _node_host(n), net.attachments(n.name),
                                        n.ip_class, dict(n.buses))
            host.routes.update(n.routes)
    return hosts


def _node_host(node: NodeConfig) -> HostModel:
    """*node*'s host model with the node's own settings in place of the model's."""
    model: HostModel = node.host  # type: ignore[assignment]
    if node.background_load is not None:
        model = replace(model, background_utilisation=node.background_load)
    if node.tcp_timestamps is not None:
        model = replace(model, tcp_timestamps=node.tcp_timestamps)
    return model


def build_netperf(sim: Simulation, scenario: Scenario, hosts: dict[str, Host],
                  settled: simpy.Event | None = None) -> list[Netperf]:
    """The scenario's netperf runs (each already narrowed to one socket and send
    size); with the run's steady-state rule, *settled* succeeds when every one
    of them has settled."""
    configs = [w for w in scenario.workloads if isinstance(w, NetperfConfig)]
    steady = scenario.run.steady_state
    waiting = len(configs)

    def one_settled() -> None:
        nonlocal waiting
        waiting -= 1
        if waiting == 0 and settled is not None:
            settled.succeed()
    return [Netperf(sim, w.name, hosts[w.source], hosts[w.destination],
                    w.point(w.sockets[0], w.send_sizes[0]), w.start, port=index,
                    steady=steady, settled=one_settled)
            for index, w in enumerate(configs)]


def build_iperf(sim: Simulation, scenario: Scenario,
                hosts: dict[str, Host]) -> list[IperfMesh]:
    """The scenario's iperf runs (each a mesh of its clients and servers), every
    client-server pair numbered apart so that their ports differ."""
    meshes, first = [], 0
    for w in (w for w in scenario.workloads if isinstance(w, IperfConfig)):
        meshes.append(IperfMesh(sim, w.name, [hosts[c] for c in w.clients],
                                [hosts[s] for s in w.servers], w.options, w.start, first))
        first += len(w.clients) * len(w.servers)
    return meshes


def build_transfers(sim: Simulation, scenario: Scenario, hosts: dict[str, Host],
                    storage: Storage) -> list[Transfer]:
    """The scenario's relayed transfers, their TCP connections numbered apart;
    a host's block path to a target at an end through *storage*'s initiators."""
    def volume(host: str, target: str) -> HostIo:
        return HostIo(hosts[host], storage.volume(host, (target,), None))
    transfers, port = [], TRANSFER_PORT
    for w in (w for w in scenario.workloads if isinstance(w, TransferConfig)):
        transfers.append(Transfer(sim, w.name, w.path, hosts, volume, w.options, w.start, port))
        port += len(w.path)
    return transfers


def build_slice(sim: Simulation, scenario: Scenario, net: Network, hosts: dict[str, Host],
                storage: Storage) -> SliceStorage | None:
    """The Slice block I/O service over Trapeze of a scenario with block servers
    or jobs against them (None otherwise), on the disks *storage* made."""
    if not (any(n.block_server for n in scenario.nodes)
            or any(isinstance(w, SliceJobConfig) for w in scenario.workloads)):
        return None
    return SliceStorage(sim, scenario, net, hosts, storage.local)


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


def run_once(scenario: Scenario, seed: int, sinks: Sequence[TraceSink] = (),
             progress: Callable[[float], None] | None = None,
             series: TimeSeries | None = None) -> dict[str, Any]:
    """One repetition with *seed*; *sinks* receive every link event;
    *progress(simulated_time)* is called at :data:`SLICES` points of the run;
    *series* samples the network over time."""
    sim = Simulation(seed)
    sim.sinks.extend(sinks)
    net = BUILDERS[scenario.topology](sim, scenario)
    hosts = build_hosts(sim, scenario, net)
    workloads = build_workloads(sim, scenario, net)
    settled = sim.env.event()
    netperfs = build_netperf(sim, scenario, hosts, settled)
    iperfs = build_iperf(sim, scenario, hosts)
    storage = Storage(sim, scenario, net, hosts)
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
    if transfers:
        out["transfers"] = {t.name: t.results() for t in transfers}
    if faults is not None:
        out["faults"] = faults.results()
    return out


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


def port_names(scenario: Scenario) -> set[str]:
    """The names of every link-level port of *scenario* (node names,
    ``switch:port``) as trace sinks see them; the topology is built, not run."""
    net = BUILDERS[scenario.topology](Simulation(scenario.run.seed), scenario)
    return {port.name for port in net.ports()}


def _repeat(scenario: Scenario, sinks: Sequence[TraceSink],
            progress: Callable[[int, str], None] | None = None,
            series: TimeSeries | None = None) -> dict[str, Any]:
    """Every repetition of *scenario*; *progress(done, label)* in steps of
    :data:`SLICES` per repetition; *series* samples the first."""
    run = scenario.run
    reps = []
    for i in range(run.repetitions):
        def step(now: float, i: int = i) -> None:
            done = i * SLICES + round(now / run.duration * SLICES)
            progress(done, f"repetition {i + 1}, {format_time(now)} of "  # type: ignore[misc]
                     f"{format_time(run.duration)} simulated")
        reps.append(run_once(scenario, run.seed + i, sinks if i == 0 else (),
                             step if progress is not None else None,
                             series if i == 0 else None))
    return {"summary": summarise(reps), "repetitions": reps}


def run_scenario(
    scenario: Scenario,
    sinks: Sequence[TraceSink] = (),
    progress: Callable[[int, str], None] | None = None,
    series: TimeSeries | None = None,
    jobs: int = 1,
) -> dict[str, Any]:
    """Every repetition of *scenario* and their summary, as one JSON-ready dict.

    A netperf or iperf sweep gives one entry in ``points`` per socket and send
    size (or window and bandwidth), each with its own summary and repetitions,
    the points after the first run on *jobs* worker processes; *progress(done,
    label)* is called after each point (for a single run, :data:`SLICES` times
    per repetition). Trace *sinks* see the first repetition only (of the first
    point), and *series* samples it (not for a sweep).
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
        return {**out, **_repeat(scenario, sinks, progress, series)}
    done: dict[int, dict[str, Any]] = {}

    def arrived(index: int, repeated: dict[str, Any]) -> None:
        done[index] = {**points[index][0], **repeated}
        if progress is not None:
            progress(len(done), point_label(points[index][0]))
    arrived(0, _repeat(points[0][1], sinks))  # here: the trace sinks see it
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
