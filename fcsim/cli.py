"""The ``fcsim`` command line.

``fcsim run FILE`` runs a scenario and prints a summary; ``--json`` prints the
results as JSON instead (schema in ``docs/results.md``); ``--pcap FILE`` writes
every frame of the first repetition for Wireshark; ``--trace [FILE]`` writes
the protocol-analyzer timeline of the first repetition. ``fcsim topology
FILE`` draws the scenario's topology as PNG or SVG.

Exit status: 0 on success, 2 for a bad scenario or bad arguments (one message
on stderr, nothing written).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import IO, Any

from fcsim import __version__
from fcsim.runner import run_scenario
from fcsim.scenario.loader import ScenarioError, load_scenario
from fcsim.scenario.model import Scenario
from fcsim.topology.drawing import FORMATS, draw_topology
from fcsim.trace.pcap import PcapWriter
from fcsim.trace.timeline import Timeline
from fcsim.units import format_bytes_rate, format_rate, format_size, format_time


class PcapSink:
    """Trace sink that stamps each frame with the time its EOF left the sender."""

    def __init__(self, writer: PcapWriter) -> None:
        self.writer = writer

    def frame(self, time: float, port: Any, frame: Any, start: float, end: float) -> None:
        self.writer.write(end, frame)

    def primitive(self, time: float, port: Any, name: str, start: float) -> None:
        """Primitive signals have no libpcap form; they are left out."""


@contextmanager
def _atomic(path: str, mode: str) -> Iterator[IO[Any]]:
    """Open a temporary file next to *path*; rename it to *path* only on success."""
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(fd, mode) as handle:
            yield handle
        os.replace(tmp, target)
    except BaseException:
        os.unlink(tmp)
        raise


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="fcsim", description="Discrete-event simulator for Fibre Channel.")
    parser.add_argument("--version", action="version", version=f"fcsim {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    run = commands.add_parser("run", help="run a scenario file and report its results")
    run.add_argument("scenario", metavar="FILE", help="scenario file (TOML)")
    run.add_argument("--json", action="store_true", help="print results as JSON")
    run.add_argument("--pcap", metavar="FILE",
                     help="write every frame of the first repetition to a libpcap file")
    run.add_argument("--trace", metavar="FILE", nargs="?", const="-",
                     help="write the protocol-analyzer timeline (default: standard output)")
    draw = commands.add_parser("topology", help="draw a scenario's topology (PNG or SVG)")
    draw.add_argument("scenario", metavar="FILE", help="scenario file (TOML)")
    draw.add_argument("-o", "--output", metavar="IMAGE",
                      help="image file, .png or .svg (default: FILE with .png)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``fcsim`` console script; returns the exit status."""
    try:
        return _main(argv)
    except BrokenPipeError:  # output piped into a reader that stopped (| head)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _main(argv: Sequence[str] | None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command == "topology":
        return _topology(parser, args)
    if args.json and args.trace == "-":
        parser.error("--trace to standard output would mix with --json; give --trace FILE")
    for option, path in (("--pcap", args.pcap), ("--trace", args.trace)):
        if path not in (None, "-") and not Path(path).resolve().parent.is_dir():
            parser.error(f"{option}: directory of {path!r} does not exist")
    scenario = _load(args.scenario)
    if scenario is None:
        return 2
    with ExitStack() as stack:
        sinks: list[Any] = []
        if args.pcap:
            handle = stack.enter_context(_atomic(args.pcap, "wb"))
            sinks.append(PcapSink(stack.enter_context(PcapWriter(handle))))
        if args.trace == "-":
            sinks.append(Timeline(sys.stdout))
        elif args.trace:
            sinks.append(Timeline(stack.enter_context(_atomic(args.trace, "w"))))
        results = run_scenario(scenario, sinks)
    if args.json:
        json.dump(results, sys.stdout, indent=2, sort_keys=True)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(summary_text(results))
    return 0


def _load(path: str) -> Scenario | None:
    """The scenario at *path*, or None after printing why it cannot be used."""
    try:
        return load_scenario(path)
    except ScenarioError as error:
        print(f"fcsim: error: {error}", file=sys.stderr)
        return None


def _topology(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    output = Path(args.output) if args.output else Path(args.scenario).with_suffix(".png")
    if output.suffix.lower() not in FORMATS:
        parser.error(f"--output: given {str(output)!r}; an image file ending in "
                     f"{' or '.join(FORMATS)}")
    if not output.resolve().parent.is_dir():
        parser.error(f"--output: directory of {str(output)!r} does not exist")
    scenario = _load(args.scenario)
    if scenario is None:
        return 2
    with _atomic(str(output), "wb") as handle:
        draw_topology(scenario, handle, output.suffix.lower())
    print(f"wrote {output}")
    return 0


def summary_text(results: dict[str, Any]) -> str:
    """The human-readable report of :func:`fcsim.runner.run_scenario` results."""
    run = results["run"]
    sc = results["scenario"]
    lines = [
        f"{sc['name']}  ({sc['file']}, {sc['topology']})",
        f"simulated {format_time(run['duration_s'])} with {format_time(run['warmup_s'])} "
        f"warm-up, seed {run['seed']}, {run['repetitions']} repetition(s)",
        "",
        "workloads (mean over repetitions)",
    ]
    first = results["repetitions"][0]
    for name, w in first["workloads"].items():
        summary = results["summary"][name]
        tput = summary["throughput_bytes_per_s"]["mean"]
        lat = w["latency_s"]
        latency = ("-" if lat["mean"] is None else
                   f"mean {format_time(summary['latency_mean_s']['mean'])}, p50 "
                   f"{format_time(lat['p50'])}, p99 {format_time(lat['p99'])}")
        lines.append(
            f"  {name}: class {w['class']}, {w['sequences']} sequences, {w['frames']} frames, "
            f"{format_bytes_rate(tput)} ({format_rate(8 * tput)}), latency {latency}")
        sender = w["sender"]
        if sender["rejected"] or sender["aborted"]:
            lines.append(f"    sender: {sender['rejected']} rejected, "
                         f"{sender['aborted']} aborted sequences")
    lines += ["", "links (first repetition)"]
    for name, link in first["links"].items():
        lines.append(f"  {name}: {link['speed']}, {link['length_m']:g} m")
        for direction, d in link["directions"].items():
            lines.append(
                f"    {direction}: utilisation {100 * d['utilisation']:.2f} %, "
                f"{d['frames']} frames, credit wait {100 * d['credit_wait_fraction']:.2f} % "
                f"({d['credit_stalls']} stalls), {d['r_rdy']} R_RDY, {d['errors']} errors")
    for name, sw in first.get("switches", {}).items():
        if name == next(iter(first["switches"])):
            lines += ["", "switches (first repetition)"]
        lines.append(
            f"  {name} (domain {sw['domain']}, {sw['model']}): {sw['frames_forwarded']} frames "
            f"forwarded, {sw['f_bsy']} F_BSY, {sw['f_rjt']} F_RJT, {sw['discarded']} discarded")
    lines += ["", "ports (first repetition)"]
    for name, n in first["nodes"].items():
        lines.append(
            f"  {name} ({n['port_id']}): data {n['data_frames_tx']} tx / {n['data_frames_rx']} rx, "
            f"ACK {n['acks_tx']} tx / {n['acks_rx']} rx, busy {n['busy_tx']} tx / "
            f"{n['busy_rx']} rx, reject {n['reject_tx']} tx / {n['reject_rx']} rx, "
            f"dropped {n['dropped_frames']}, discarded {n['discarded_frames']}, "
            f"connections {n['connections']}")
    if "loop" in first:
        lines += _loop_text(first)
    return "\n".join(lines) + "\n"


def _loop_text(rep: dict[str, Any]) -> list[str]:
    """The arbitrated-loop part of the summary: the loop, then each loop port."""
    loop = rep["loop"]
    lines = ["", f"loop {loop['name']} (first repetition): {loop['ports']} ports, master "
             f"{loop['master']}, round trip {format_time(loop['round_trip_s'])}, "
             f"{loop['tenancies']} tenancies, held {100 * loop['held_fraction']:.2f} %, "
             f"utilisation {100 * loop['utilisation']:.2f} %, "
             f"{format_bytes_rate(loop['throughput_bytes_per_s'])}",
             "  initialisations: " + ", ".join(
                 f"{format_time(i['duration_s'])} at {format_time(i['start_s'])}"
                 + ("" if i["completed"] else " (cut short)") for i in loop["initialisations"])]
    for name, n in rep["nodes"].items():
        lines.append(
            f"  {name} (AL_PA {n['al_pa']}, {'fair' if n['fair'] else 'unfair'}): "
            f"{n['tenancies']} tenancies won, opened {n['opened']} times, arbitration wait "
            f"{format_time(n['arbitration_wait_s'])}, holding the loop "
            f"{100 * n['hold_fraction']:.2f} %, {n['data_frames_tx']} frames / "
            f"{format_size(n['payload_tx'])} sent, {format_size(n['payload_rx'])} received")
    return lines


if __name__ == "__main__":
    sys.exit(main())
