"""Frames per wall-second through one switch, against the number of port pairs.

Scenario: a 64-port non-blocking switch (models/switches/generic-nonblocking,
virtual output queues, cut-through; the same with 256 ports for 128 pairs),
1, 8, 32, 128 pairs of N_Ports, each pair a
saturating Class 3 stream of 16 KiB sequences at 1GFC; every pair simulated
for about the same number of frames. Only the event loop is timed. The cost
per frame should not grow with the switch: the target is 32 pairs within
15 % of 1 pair.

Usage: python bench/switch_frames_per_second.py [--pairs 1 8 32 128] [--repeat N]
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import time

from fcsim.build import build_workloads
from fcsim.engine.simulation import Simulation
from fcsim.fabric.switch_model import load_switch_model
from fcsim.fc0.speed import speed_named
from fcsim.scenario.model import LinkConfig, NodeConfig, RunConfig, Scenario, SwitchConfig
from fcsim.scenario.workload_model import StreamConfig
from fcsim.topology.fabric import build_fabric

FRAMES_PER_RUN = 160_000
"""About how many frames each run forwards (1GFC carries ~49,000 full frames/s a pair)."""


def run(pairs: int) -> tuple[int, float]:
    """Frames forwarded by the switch and wall time of the event loop."""
    model = dataclasses.replace(load_switch_model("generic-nonblocking"),
                                ports=max(64, 2 * pairs))
    names = [f"n{i}" for i in range(2 * pairs)]
    loads = tuple(StreamConfig(f"w{i}", f"n{2 * i}", f"n{2 * i + 1}", 8 * 2048, outstanding=4)
                  for i in range(pairs))
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
    started = time.perf_counter()
    sim.run(duration)
    wall = time.perf_counter() - started
    return net.switches["sw"].stats.forwarded, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, nargs="+", default=[1, 8, 32, 128])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
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
