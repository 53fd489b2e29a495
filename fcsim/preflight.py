"""Checks made on a loaded scenario before anything is simulated: the work it asks
for against the limits (:mod:`fcsim.scenario.work`) and the port names a command
line gives against the ports of the network the run builds."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace

from fcsim.scenario.model import Scenario
from fcsim.scenario.work import (
    DEFAULT_MAX_FRAMES,
    DEFAULT_MAX_OPEN_SEQUENCES,
    WARN_FRAMES,
    estimate,
    wall_time,
)
from fcsim.topology.network import Network


def add_limit_options(parser: argparse.ArgumentParser) -> None:
    """``--max-frames`` and ``--max-open-sequences``, for a command that simulates."""
    parser.add_argument("--max-frames", metavar="N", type=_count, default=DEFAULT_MAX_FRAMES,
                        help="refuse a scenario estimated to simulate more frames than this "
                             f"(default: {DEFAULT_MAX_FRAMES:.0e}, about half a day)")
    parser.add_argument("--max-open-sequences", metavar="N", type=_count,
                        default=DEFAULT_MAX_OPEN_SEQUENCES,
                        help="refuse a scenario that keeps more sequences open at once "
                             f"(default: {DEFAULT_MAX_OPEN_SEQUENCES:,})")


def affordable(scenario: Scenario, args: argparse.Namespace,
               frames_at_most: float = float("inf")) -> bool:
    """False, after saying why on standard error, if *scenario* would pass the work
    limits of *args*; a line on how long it may take when it is long but allowed.
    *frames_at_most*: frames after which the command stops whatever the scenario
    asks (``fcsim explain`` with no port named stops at its N-th event)."""
    work = estimate(scenario)
    work = replace(work, frames=min(work.frames, frames_at_most))
    refused = work.refusal(args.max_frames, args.max_open_sequences)
    if refused is not None:
        print(f"fcsim: error: {scenario.source}: {refused}", file=sys.stderr)
        return False
    if work.frames > WARN_FRAMES:
        print(f"fcsim: {scenario.source}: up to {work.frames:.3g} frames and arrivals: this "
              f"may take {wall_time(work.frames)} at most", file=sys.stderr)
    return True


def first_run(scenario: Scenario, until: float) -> Scenario:
    """*scenario* cut to what ``fcsim explain`` simulates of it at most, for its
    estimate: one repetition, no longer than *until* s (a sweep's first point is
    chosen by the caller)."""
    run = scenario.run
    return replace(scenario, run=replace(run, repetitions=1,
                                         duration=min(run.duration, until)))


def port_names(net: Network) -> set[str]:
    """The names of every link-level port of *net* (node names,
    ``switch:port``) as trace sinks see them."""
    return {port.name for port in net.ports()}


def unknown_ports(net: Network, source: str, option: str,
                  given: tuple[str, ...]) -> str | None:
    """Why the port names *given* with *option* do not all name a port of
    *net*, the network of scenario file *source* (node names,
    ``switch:port``), or None if they do."""
    known = port_names(net)
    unknown = [name for name in given if name not in known]
    if not unknown:
        return None
    listed = ", ".join(sorted(known)[:12]) + (", ..." if len(known) > 12 else "")
    return (f"{option}: {source} has no port named "
            f"{', '.join(repr(name) for name in unknown)}; its ports: {listed}")


def _count(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 1:
        raise argparse.ArgumentTypeError(f"expected a number >= 1 such as 1e9, got {text!r}")
    return value
