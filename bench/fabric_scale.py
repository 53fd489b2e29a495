"""Build time, login time and frames per wall-second against fabric size.

Scenario: a core-edge fabric of D domains at 4GFC: 4 core switches, D - 4
edge switches each joined to every core, 17 N_Ports on each edge switch (239
domains: 3,995 N_Ports); every N_Port logs in frame by frame (FLOGI, name
server PLOGI and GID_FT, PLOGI to its peer); one saturating Class 3 stream
from each edge switch to the next. Timed: building the fabric, simulating
until the last N_Port has logged in, and simulating 1 ms of traffic after it.

Usage: python bench/fabric_scale.py [--domains 16 64 239]
"""

from __future__ import annotations

import argparse
import dataclasses
import resource
import time

from fcsim.engine.simulation import Simulation
from fcsim.fabric.switch_model import load_switch_model
from fcsim.fc0.speed import speed_named
from fcsim.runner import build_workloads
from fcsim.scenario.model import (
    LinkConfig,
    NodeConfig,
    RunConfig,
    Scenario,
    StreamConfig,
    SwitchConfig,
)
from fcsim.topology.fabric import build_fabric

CORES = 4
PER_EDGE = 17
TRAFFIC = 1e-3
"""Simulated traffic after the last login, s."""


def core_edge(domains: int) -> Scenario:
    """The core-edge fabric of *domains* switches described in the module docstring."""
    edges = domains - CORES
    model = dataclasses.replace(load_switch_model("generic-nonblocking"), ports=255)
    switches = ([SwitchConfig(f"core{c}", model) for c in range(CORES)]
                + [SwitchConfig(f"edge{e}", model) for e in range(edges)])
    speed = speed_named("4GFC")
    links, nodes = [], []
    for e in range(edges):
        links += [LinkConfig(f"isl{e}-{c}", (f"edge{e}:{PER_EDGE + c}", f"core{c}:{e}"), speed)
                  for c in range(CORES)]
        for p in range(PER_EDGE):
            name = f"n{e}-{p}"
            nodes.append(NodeConfig(name))
            links.append(LinkConfig(f"l{name}", (name, f"edge{e}:{p}"), speed))
    loads = tuple(StreamConfig(f"w{e}", f"n{e}-0", f"n{(e + 1) % edges}-1", 8 * 2048,
                               outstanding=2) for e in range(edges))
    return Scenario("core-edge", "fabric", RunConfig(1.0, login=True), tuple(nodes),
                    tuple(links), loads, switches=tuple(switches))


def measure(domains: int) -> None:
    """Print the figures of one fabric size."""
    scenario = core_edge(domains)
    started = time.perf_counter()
    sim = Simulation(1)
    net = build_fabric(sim, scenario)
    build_workloads(sim, scenario, net)
    built = time.perf_counter()
    while any(node.ready_at is None for node in net.nodes.values()):
        sim.run(sim.now + 10e-6)
    logged_in = time.perf_counter()
    before = sum(s.stats.forwarded for s in net.switches.values())
    sim.run(sim.now + TRAFFIC)
    frames = sum(s.stats.forwarded for s in net.switches.values()) - before
    ran = time.perf_counter()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{domains:4d} domains, {len(net.nodes):5d} N_Ports: build {built - started:5.1f} s, "
          f"login {logged_in - built:5.1f} s (done at {sim.now * 1e6 - TRAFFIC * 1e6:.0f} us "
          f"simulated), {frames / (ran - logged_in):9,.0f} frames forwarded per wall-second, "
          f"peak memory {rss:.0f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--domains", type=int, nargs="+", default=[16, 64, 239])
    args = parser.parse_args()
    for domains in args.domains:
        if not CORES < domains <= 239:
            parser.error(f"--domains: {domains}; a fabric has {CORES + 1}..239 domains here")
        measure(domains)


if __name__ == "__main__":
    main()
