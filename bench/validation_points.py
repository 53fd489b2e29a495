"""Processor time of a fixed sample of `fcsim validate`'s simulation points.

Draws *count* points at random (seeded, so every run draws the same ones) from
the points of every claim of `fcsim validate` and runs them one after another
in this process, after one warm-up point and with the objects then alive
frozen out of the collector's reach as in a worker of the pool
(fcsim/workers.py), timing each with the processor clock (not affected by
other work on the machine as wall time is). Prints the total and, per
scenario folder, the mean per point, and the sample's estimate of the whole
run's processor time: the sample's mean per point times the number of
points, and that divided by the cores for the wall time of a run on all of
them.

Usage: python bench/validation_points.py [--count N] [--seed S]
"""

from __future__ import annotations

import argparse
import gc
import random
import time
from collections import defaultdict
from pathlib import Path

from fcsim.validation.checks import CHECKS
from fcsim.validation.points import run_point
from fcsim.workers import default_jobs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=60, help="points to run (default 60)")
    parser.add_argument("--seed", type=int, default=1, help="sample seed (default 1)")
    args = parser.parse_args()
    points = sorted({p for check in CHECKS.values() for p in check.points()})
    sample = random.Random(args.seed).sample(points, min(args.count, len(points)))
    run_point(sample[0])  # imports, scenario files read once
    gc.freeze()  # as the pool's workers start (fcsim/workers.py)
    by_folder: dict[str, list[float]] = defaultdict(list)
    started = time.process_time()
    for point in sample:
        by_folder[Path(point.scenario).parent.name].append(run_point(point)["cpu_s"])
    total = time.process_time() - started
    print(f"{len(sample)} of {len(points)} points of fcsim validate, seed {args.seed}: "
          f"{total:.1f} processor-s, {total / len(sample):.3f} s a point")
    for folder, times in sorted(by_folder.items()):
        print(f"  {folder:12s} {len(times):4d} points, {sum(times) / len(times):.3f} s a point")
    whole = total / len(sample) * len(points)
    print(f"estimate for the whole run: {whole:.0f} processor-s, "
          f"{whole / default_jobs():.0f} s of wall time on {default_jobs()} cores")


if __name__ == "__main__":
    main()
