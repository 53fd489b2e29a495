"""Frames per wall-second through one switch, against the number of port pairs.

Scenario: a 64-port non-blocking switch (models/switches/generic-nonblocking,
virtual output queues, cut-through; the same with 256 ports for 128 pairs),
1, 8, 32, 128 pairs of N_Ports, each pair a
saturating Class 3 stream of 16 KiB sequences at 1GFC; every pair simulated
for about the same number of frames. Only the event loop is timed. The cost
per frame should not grow with the switch: the target is 32 pairs within
15 % of 1 pair.

With --per-hop, each 1-pair run is paired with the same stream between two
N_Ports on one link (the run after it), and the median of the paired ratios
of their frame rates is printed: the cost of a frame through the switch
against one link, whose target is at most 2.

Usage: python bench/switch_frames_per_second.py [--pairs 1 8 32 128] [--repeat N] [--per-hop]
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import time

from fcsim.build import build_fabric, build_workloads
from fcsim.engine.simulation import Simulation
from fcsim.fabric.switch_model import load_switch_model
from fcsim.fc0.speed import speed_named
from fcsim.scenario.model import LinkConfig, NodeConfig, RunConfig, Scenario, SwitchConfig
from fcsim.scenario.workload_model import StreamConfig
from fcsim.topology.point_to_point import build_point_to_point

FRAMES_PER_RUN = 160_000
"""About how many frames each run forwards (1GFC carries ~49,000 full frames/s a pair)."""


def _stream(i: int) -> StreamConfig:
    """Pair *i*'s saturating stream: 16 KiB Class 3 sequences, four outstanding."""
    return StreamConfig(f"w{i}", f"n{2 * i}", f"n{2 * i + 1}", 8 * 2048, outstanding=4)


def _loop_wall(sim: Simulation, duration: float) -> float:
    """Wall time of the event loop over *duration* s of simulated time."""
    started = time.perf_counter()
    sim.run(duration)
    return time.perf_counter() - started


def run(pairs: int) -> tuple[int, float]:
    """Frames forwarded by the switch and wall time of the event loop."""
    model = dataclasses.replace(load_switch_model("generic-nonblocking"),
                                ports=max(64, 2 * pairs))
    names = [f"n{i}" for i in range(2 * pairs)]
    loads = tuple(_stream(i) for i in range(pairs))
    duration = FRAMES_PER_RUN / 49_000 / pairs
    scenario = Scenario(
        name="switch bench", topology="fabric", run=RunConfig(duration, login=False),
        nodes=tuple(NodeConfig(name) for name in names),
        links=tuple(LinkConfig(f"l{i}", (name, f"sw:{i}"), speed_named("1GFC"))
                    for i, name in enumerate(names)),
        workloads=loads, switches=(SwitchConfig("sw", model),))
    sim = Simulation(1)
    net = build_fabric(sim, scenario)
    build_workloads(sim, scenario, net)
    wall = _loop_wall(sim, duration)
    return net.switches["sw"].stats.forwarded, wall


def run_link() -> tuple[int, float]:
    """The 1-pair stream between two N_Ports on one link: frames delivered and
    wall time of the event loop."""
    duration = FRAMES_PER_RUN / 49_000
    scenario = Scenario(
        name="link bench", topology="point-to-point", run=RunConfig(duration, login=False),
        nodes=(NodeConfig("n0"), NodeConfig("n1")),
        links=(LinkConfig("l", ("n0", "n1"), speed_named("1GFC")),), workloads=(_stream(0),))
    sim = Simulation(1)
    net = build_point_to_point(sim, scenario.nodes, scenario.links)
    build_workloads(sim, scenario, net)
    wall = _loop_wall(sim, duration)
    return net.nodes["n1"].stats.data_frames_rx, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, nargs="+", default=[1, 8, 32, 128])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--per-hop", action="store_true",
                        help="also the cost of a frame through the switch against one link")
    args = parser.parse_args()
    if args.per_hop:
        ratios, links, switched = [], [], []
        for _ in range(args.repeat):
            frames, wall = run(1)
            switched.append(frames / wall)
            frames, wall = run_link()
            links.append(frames / wall)
            ratios.append(links[-1] / switched[-1])
        print(f"one link: {statistics.median(links):10,.0f} frames per wall-second; "
              f"through the switch (1 pair): {statistics.median(switched):10,.0f} "
              f"(medians of {args.repeat})")
        print(f"cost of a frame through the switch against one link: "
              f"{statistics.median(ratios):.2f} (median of the paired ratios; "
              f"runs {min(ratios):.2f}-{max(ratios):.2f})")
    rates = {}
    for pairs in args.pairs:
        runs = [run(pairs) for _ in range(args.repeat)]
        rates[pairs] = statistics.median(frames / wall for frames, wall in runs)
        print(f"{pairs:4d} pairs: {rates[pairs]:10,.0f} frames per wall-second "
              f"(median of {args.repeat})")
    first = rates[args.pairs[0]]
    for pairs in args.pairs[1:]:
        print(f"{pairs} pairs against {args.pairs[0]}: {rates[pairs] / first:.2f}")


if __name__ == "__main__":
    main()
