"""Processor time of the full grid of `fcsim figures ong-farrell`, estimated.

The full grid (28 figures x 9 sockets x 16 message sizes x 5 repetitions,
and the TCP_RR command as printed) is hours of processor time, too long to
run for a figure. Its cost depends mostly on the test and the message size
(a stream of 1-64 B messages never settles and runs its whole 10 s; most
other points settle within about a second), so the points are grouped by
test (stream, TCP_RR of the message size, TCP_RR as printed) and message
size, *per-group* points of each group are drawn at random (seeded, so every
run draws the same ones) and run one after another in this process, each
timed with the processor clock, and the whole grid is estimated as the sum
over the groups of their mean per point times their number of points
(stratified sampling). Prints each group and the estimate, and that divided
by the cores for the wall time of a run on all of them.

Usage: python bench/figures_grid.py [--per-group N] [--seed S]
"""

from __future__ import annotations

import argparse
import random
from collections import defaultdict
from statistics import fmean

from fcsim.validation.figures import plan_figures
from fcsim.validation.points import Point, run_point
from fcsim.workers import default_jobs


def _group(point: Point) -> tuple[str, int]:
    """The test and message size of *point*: its stratum."""
    if "-stream-" in point.scenario:
        return "stream", point.size or 0
    return ("TCP_RR -r m,m" if point.sized else "TCP_RR as printed"), point.size or 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-group", type=int, default=2,
                        help="points run per test and message size (default 2)")
    parser.add_argument("--seed", type=int, default=1, help="sample seed (default 1)")
    args = parser.parse_args()
    points = sorted({p for plan in plan_figures("ong-farrell") for p in plan.points})
    groups: dict[tuple[str, int], list[Point]] = defaultdict(list)
    for point in points:
        groups[_group(point)].append(point)
    rng = random.Random(args.seed)
    run_point(points[0])  # imports, scenario files read once
    total = 0.0
    ran = 0
    print(f"{len(points)} points in the full grid; {args.per_group} run per group")
    print(f"  {'test':18s} {'message':>9s} {'points':>7s} {'s a point':>10s} {'processor-s':>12s}")
    for (test, size), members in sorted(groups.items()):
        sample = rng.sample(members, min(args.per_group, len(members)))
        mean = fmean(run_point(point)["cpu_s"] for point in sample)
        ran += len(sample)
        total += mean * len(members)
        print(f"  {test:18s} {size:9d} {len(members):7d} {mean:10.3f} {mean * len(members):12.0f}")
    cores = default_jobs()
    print(f"estimate for the full grid from {ran} points: {total / 3600:.1f} processor-hours, "
          f"{total / cores / 3600:.1f} hours of wall time on {cores} cores")


if __name__ == "__main__":
    main()
