"""Processor time and the cyclic garbage collector's share of it on chosen Ong &
Farrell stream points, with a digest of each point's whole results.

Runs each point one after another in this process, after one warm-up point and
with the objects then alive frozen out of the collector's reach as in a worker
of the pool (fcsim/workers.py). Times each point with the processor clock and
each collection with ``gc.callbacks`` (processor clock too), and prints per
point the processor seconds, the collector's seconds and share, the objects the
collector found unreachable (freed only by it) and the SHA-256 of the point's
results (as ``bench/identical_results.py`` takes it), so two checkouts' runs
compare point by point. ``--sample N --seed S`` adds N points drawn at random
(seeded) from every Ong & Farrell point of ``fcsim validate``.

Usage: python bench/stream_points_collector.py [--sample N] [--seed S]
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import random
import time
from pathlib import Path
from typing import Any

from fcsim.resources import DATA_ROOT
from fcsim.validation.checks import CHECKS
from fcsim.validation.points import Point, simulate

FOLDER = "scenarios/ong-farrell"
STREAMS = ("fig06-stream-c110-to-c110", "fig09-stream-c110-to-735",
           "fig16-stream-735-to-c110", "fig15-stream-j210-to-735")
"""The streams timed: C110 to C110 and the three with the HP 9000/735."""
SIZES = (256, 1024, 4096, 262144)
"""Message sizes timed, bytes (the small messages and one large), on 245760-byte sockets."""


class CollectorClock:
    """The processor time the cyclic collector takes (s) and the objects it
    finds unreachable, summed over its collections while installed."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.collected = 0
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        """``gc.callbacks`` hook: *phase* "start" or "stop"."""
        if phase == "start":
            self._started = time.process_time()
        else:
            self.seconds += time.process_time() - self._started
            self.collected += info["collected"]


def digest(out: dict[str, Any]) -> str:
    """SHA-256 of a point's whole results as canonical JSON."""
    text = json.dumps(out, sort_keys=True, default=repr).replace(str(DATA_ROOT), "<project>")
    return hashlib.sha256(text.encode()).hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=0, help="random Ong & Farrell points")
    parser.add_argument("--seed", type=int, default=1, help="sample seed (default 1)")
    args = parser.parse_args()
    points = [Point(f"{FOLDER}/{stream}.toml", 245760, size) for stream in STREAMS
              for size in SIZES]
    ong = sorted({p for check in CHECKS.values() for p in check.points()
                  if p.scenario.startswith(FOLDER)})
    points += random.Random(args.seed).sample(ong, min(args.sample, len(ong)))
    simulate(points[-1])  # imports, scenario files read once
    gc.collect()
    gc.freeze()  # as the pool's workers start (fcsim/workers.py)
    clock = CollectorClock()
    gc.callbacks.append(clock)
    total = spent = 0.0
    for point in points:
        seconds, collected = clock.seconds, clock.collected
        started = time.process_time()
        out = simulate(point)
        cpu = time.process_time() - started
        gc_s = clock.seconds - seconds
        total, spent = total + cpu, spent + gc_s
        print(f"{Path(point.scenario).stem} {point.socket} {point.size} {point.repetition}: "
              f"{cpu:.3f} s, collector {gc_s:.3f} s ({100 * gc_s / cpu:.1f} %), "
              f"{clock.collected - collected} freed by it, {digest(out)}")
    gc.callbacks.remove(clock)
    print(f"{len(points)} points: {total:.2f} processor-s, collector {spent:.2f} s "
          f"({100 * spent / total:.1f} %)")


if __name__ == "__main__":
    main()
