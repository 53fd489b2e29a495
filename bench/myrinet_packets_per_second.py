"""Myrinet packets and Fibre Channel frames per wall-second.

Myrinet: one NIC sends 1500-byte packets back to back to another over
Myrinet-1280, cabled straight and through one m2f-sw8 switch (a source
refills its transmit queue as it drains). Fibre Channel: the saturated 1GFC
Class 3 stream of ``frames_per_second.py``. Each runs the same simulated
time in this process; only the event loops are timed.

Usage: python bench/myrinet_packets_per_second.py [--seconds S]
"""

from __future__ import annotations

import argparse
import time

from fcsim.engine.simulation import Simulation
from fcsim.fc0.cable import Cable
from fcsim.fc0.speed import speed_named
from fcsim.link.link import Link
from fcsim.myrinet.nic import MyrinetNic
from fcsim.myrinet.switch import MyrinetSwitch, load_myrinet_switch_model

try:  # run from the project root or bench/
    from frames_per_second import fcsim_run
except ImportError:
    from bench.frames_per_second import fcsim_run


def myrinet_run(seconds: float, switched: bool) -> tuple[int, float]:
    """Packets received and wall time of back-to-back 1500-byte packets."""
    sim = Simulation(1)
    speed = speed_named("Myrinet-1280")
    a, b = MyrinetNic(sim, "a", 1), MyrinetNic(sim, "b", 2)
    if switched:
        switch = MyrinetSwitch(sim, "sw", load_myrinet_switch_model("m2f-sw8"))
        Link("l0", a.port, switch.ports[0], speed, Cable(3.0))
        Link("l1", switch.ports[1], b.port, speed, Cable(3.0))
        a.routes[2] = (1,)
    else:
        Link("l", a.port, b.port, speed, Cable(3.0))
        a.routes[2] = ()
    received = [0]
    b.deliver = lambda packet: received.__setitem__(0, received[0] + 1)
    sent = a.sent

    def refill(port: object, segment: object) -> None:
        sent(port, segment)  # type: ignore[arg-type]
        if a.queue.held < 2:
            for _ in range(32):
                a.send(2, 1500, None)
    a.sent = refill  # type: ignore[method-assign]
    a.send(2, 1500, None)
    start = time.perf_counter()
    sim.run(seconds)
    return received[0], time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="simulated seconds")
    args = parser.parse_args()
    fc_frames, fc_wall = fcsim_run(args.seconds)
    fc = fc_frames / fc_wall
    for switched, label in ((False, "cabled straight  "), (True, "through a switch")):
        packets, wall = myrinet_run(args.seconds, switched)
        rate = packets / wall
        print(f"Myrinet-1280 {label}, 1500 B: {packets:8d} packets in {wall:5.2f} s = "
              f"{rate:9,.0f} per wall-second, {fc / rate:.2f} of an FC frame's cost")
    print(f"FC 1GFC Class 3, 2112 B:               {fc_frames:8d} frames in {fc_wall:5.2f} s = "
          f"{fc:9,.0f} per wall-second")


if __name__ == "__main__":
    main()
