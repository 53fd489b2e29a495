"""Ethernet and Fibre Channel frames per wall-second on the same link machinery.

Ethernet: one NIC sends 1500-byte frames back to back to another over
1000BASE-X (a source refills its transmit ring as it drains). Fibre Channel:
the saturated 1GFC Class 3 stream of ``frames_per_second.py``. Both run 1 s
of simulated time in this process; only the event loops are timed.

Usage: python bench/ethernet_frames_per_second.py [--seconds S]
"""

from __future__ import annotations

import argparse
import time

from fcsim.engine.simulation import Simulation
from fcsim.ethernet.nic import Nic
from fcsim.fc0.cable import Cable
from fcsim.fc0.speed import speed_named
from fcsim.link.link import Link

try:  # run from the project root or bench/
    from frames_per_second import fcsim_run
except ImportError:
    from bench.frames_per_second import fcsim_run


def ethernet_run(seconds: float) -> tuple[int, float]:
    """Frames received and wall time of back-to-back 1500-byte frames."""
    sim = Simulation(1)
    a, b = Nic(sim, "a", 1), Nic(sim, "b", 2)
    Link("l", a.port, b.port, speed_named("1000BASE-X"), Cable(1000.0))
    received = [0]
    b.deliver = lambda frame: received.__setitem__(0, received[0] + 1)
    next_frame = a.next_frame

    def refill(port: object) -> object:
        if len(a._queue) < 2:
            for _ in range(32):
                a.send(2, 1500, None)
        return next_frame(port)
    a.next_frame = refill  # type: ignore[method-assign]
    a.send(2, 1500, None)
    start = time.perf_counter()
    sim.run(seconds)
    return received[0], time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="simulated seconds")
    args = parser.parse_args()
    frames, wall = ethernet_run(args.seconds)
    eth = frames / wall
    fc_frames, fc_wall = fcsim_run(args.seconds)
    fc = fc_frames / fc_wall
    print(f"Ethernet 1000BASE-X, 1500 B: {frames:8d} frames in {wall:5.2f} s = "
          f"{eth:9,.0f} frames per wall-second")
    print(f"FC 1GFC Class 3, 2112 B:    {fc_frames:8d} frames in {fc_wall:5.2f} s = "
          f"{fc:9,.0f} frames per wall-second")
    print(f"Ethernet / FC cost per frame: {fc / eth:.2f}")


if __name__ == "__main__":
    main()
