"""Peak memory against simulated time: does a long run hold more than a short one?

Two workloads, each simulated for a short and a long time in a fresh process
(so each peak is its own): the saturated 1GFC Class 3 stream of
``frames_per_second.py`` and a netperf TCP_STREAM of 64-byte messages between
two C110s through the Ancor switch (the costliest kind of validation point:
many small segments, timers, socket buffers). Prints each run's peak resident
set size (``ru_maxrss`` of the child) and the long run's peak against the
short one's.

Usage: python bench/memory.py [--short S] [--long S]
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from dataclasses import replace
from multiprocessing import get_context
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from frames_per_second import fcsim_run  # noqa: E402

from fcsim.runner import run_once  # noqa: E402
from fcsim.validation.points import Point, narrow  # noqa: E402

SMALL_SEGMENTS = Point("scenarios/ong-farrell/fig06-stream-c110-to-c110.toml", 262143, 64)
"""netperf TCP_STREAM, 64-byte messages, 256 KB sockets, C110 to C110."""


def _stream(seconds: float) -> None:
    fcsim_run(seconds)


def _netperf(seconds: float) -> None:
    scenario = narrow(Point(SMALL_SEGMENTS.scenario, SMALL_SEGMENTS.socket,
                            SMALL_SEGMENTS.size, length=seconds))
    scenario = replace(scenario, run=replace(scenario.run, steady_state=None))  # whole length
    run_once(scenario, scenario.run.seed)


def _child(work: str, seconds: float, answer) -> None:
    started = time.perf_counter()
    {"stream": _stream, "netperf": _netperf}[work](seconds)
    answer.send((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                 time.perf_counter() - started))


def peak(work: str, seconds: float) -> tuple[float, float]:
    """Peak resident set size (MB) and wall time (s) of *work* simulated for
    *seconds*, in a fresh process."""
    ours, theirs = get_context("spawn").Pipe()
    process = get_context("spawn").Process(target=_child, args=(work, seconds, theirs))
    process.start()
    result = ours.recv()
    process.join()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", type=float, default=1.0, help="short run, simulated s")
    parser.add_argument("--long", type=float, default=100.0,
                        help="long run, simulated s (stream; netperf runs a tenth of it)")
    args = parser.parse_args()
    print(f"{'workload':<10} {'simulated':>10} {'wall':>8} {'peak RSS':>10}")
    for work, scale in (("stream", 1.0), ("netperf", 0.1)):
        short, long_ = max(args.short * scale, 0.2), args.long * scale
        rss_short, wall_short = peak(work, short)
        rss_long, wall_long = peak(work, long_)
        print(f"{work:<10} {short:>9g}s {wall_short:>7.1f}s {rss_short:>8.1f}MB")
        print(f"{work:<10} {long_:>9g}s {wall_long:>7.1f}s {rss_long:>8.1f}MB"
              f"  ({100 * (rss_long / rss_short - 1):+.1f} % against {short:g} s)")


if __name__ == "__main__":
    main()
