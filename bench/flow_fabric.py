"""The flow model on the largest fabric: 239 domains, every N_Port streaming.

Scenario: the core-edge fabric of ``fabric_scale.py`` (4 cores of
generic-director-256, 235 edges of generic-nonblocking, 17 N_Ports on each,
4GFC, 3,995 N_Ports), carrying the stride permutation (traffic =
"permutation": every N_Port sends one saturating Class 3 stream of 16 KiB
sequences, two exchanges each, and receives one), with exchange-based
routing and login. Timed: reading the table into a checked scenario, the
flow model's paths (FSPF's table and every exchange through the switches'
routing), the max-min fair rates, and the figures as the JSON gives them.
Target (docs/performance.md, "Flow model"): under a minute on 2 cores.

Usage: python bench/flow_fabric.py [--domains 16 64 239]
"""

from __future__ import annotations

import argparse
import resource
import time

from fcsim.flow.fabric import flow_fabric
from fcsim.flow.model import results, solve
from fcsim.scenario.loader import scenario_from_document
from fcsim.scenario.model import Scenario

CORES = 4
PER_EDGE = 17


def core_edge(domains: int) -> Scenario:
    """The fabric of *domains* switches the module docstring describes."""
    return scenario_from_document({
        "topology": "fabric", "description": "flow model bench",
        "run": {"duration": "1 s", "login": True},
        "fabric": {"kind": "core-edge", "switches": domains, "cores": CORES,
                   "model": "generic-nonblocking", "core_model": "generic-director-256",
                   "nodes_per_switch": PER_EDGE, "speed": "4GFC",
                   "traffic": "permutation", "stream_size": "16 KiB", "outstanding": 2}},
        "bench/flow_fabric.py")


def measure(domains: int) -> None:
    """Print the figures of one fabric size."""
    started = time.perf_counter()
    scenario = core_edge(domains)
    read = time.perf_counter()
    fabric = flow_fabric(scenario)
    routed = time.perf_counter()
    solved = solve(fabric)
    filled = time.perf_counter()
    figures = results(solved)
    done = time.perf_counter()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    caveated = sum(1 for c in solved.caveats.values() if c)
    print(f"{domains:4d} domains, {len(fabric.streams):5d} streams, "
          f"{len(solved.resources):6d} resources: read {read - started:5.1f} s, "
          f"paths {routed - read:5.1f} s, rates {filled - routed:5.1f} s, "
          f"figures {done - filled:5.1f} s, total {done - started:5.1f} s; "
          f"{figures['total_throughput_bytes_per_s'] / 1e9:.1f} GB/s, ISL max "
          f"{figures['isl_utilisation']['max']:.1%}, {caveated} senders with caveats, "
          f"peak memory {rss:.0f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--domains", type=int, nargs="+", default=[16, 64, 239])
    for domains in parser.parse_args().domains:
        measure(domains)


if __name__ == "__main__":
    main()
