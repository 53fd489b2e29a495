"""Frames per wall-second of a saturated 1GFC Class 3 point-to-point stream.

Scenario: 2112-byte payloads, 1 km of fibre, ample BB credit (R_RDY returned
for every frame), 1 s of simulated time. Next to it, in the same process, a
bare SimPy loop with one timeout per frame: the floor of any SimPy design.
Only the event loops are timed (not start-up or model construction).

Usage: python bench/frames_per_second.py [--seconds S] [--repeat N]
"""

from __future__ import annotations

import argparse
import statistics
import time

import simpy

from fcsim.build import build_workloads
from fcsim.engine.simulation import Simulation
from fcsim.fc0.cable import Cable
from fcsim.fc0.speed import speed_named
from fcsim.fc2.frame import MAX_DATA_FIELD
from fcsim.fc2.login import ServiceParameters
from fcsim.scenario.model import LinkConfig, NodeConfig, RunConfig, Scenario
from fcsim.scenario.workload_model import StreamConfig
from fcsim.topology.point_to_point import build_point_to_point


def fcsim_run(seconds: float) -> tuple[int, float]:
    """Frames delivered and wall time of the fcsim event loop."""
    params = ServiceParameters(bb_credit=64)
    scenario = Scenario(
        "bench", "point-to-point", RunConfig(seconds),
        (NodeConfig("a", params=params), NodeConfig("b", params=params)),
        (LinkConfig("link", ("a", "b"), speed_named("1GFC"), Cable(1000.0)),),
        (StreamConfig("s", "a", "b", 64 * MAX_DATA_FIELD, cls=3, outstanding=2),),
    )
    sim = Simulation(1)
    net = build_point_to_point(sim, scenario.nodes, scenario.links)
    build_workloads(sim, scenario, net)
    start = time.perf_counter()
    sim.run(seconds)
    wall = time.perf_counter() - start
    return net.nodes["b"].stats.data_frames_rx, wall


def simpy_floor(frames: int, frame_time: float) -> float:
    """Wall time of a bare SimPy process doing one timeout per frame."""
    env = simpy.Environment()

    def sender(env: simpy.Environment):
        for _ in range(frames):
            yield env.timeout(frame_time)

    env.process(sender(env))
    start = time.perf_counter()
    env.run()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="simulated seconds")
    parser.add_argument("--repeat", type=int, default=5,
                        help="pairs of runs; medians are reported")
    args = parser.parse_args()
    rates, floors, ratios = [], [], []
    frames = 0
    for _ in range(args.repeat):
        frames, wall = fcsim_run(args.seconds)
        floor = frames / simpy_floor(frames, args.seconds / frames)
        rates.append(frames / wall)
        floors.append(floor)
        ratios.append(frames / wall / floor)
    rate, floor, ratio = (statistics.median(v) for v in (rates, floors, ratios))
    print(f"simulated {args.seconds:g} s of saturated 1GFC Class 3: {frames} frames; "
          f"medians of {args.repeat} runs")
    print(f"fcsim:            {rate:12,.0f} frames per wall-second "
          f"(min {min(rates):,.0f}, max {max(rates):,.0f})")
    print(f"bare SimPy loop:  {floor:12,.0f} timeouts per wall-second")
    print(f"ratio:            {ratio:12.3f} (1/{1 / ratio:.1f} of the floor, "
          f"each run paired with the floor run after it)")


if __name__ == "__main__":
    main()
