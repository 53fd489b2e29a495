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
from fcsim.report import summary_text
from fcsim.runner import run_scenario
from fcsim.scenario.loader import ScenarioError, load_scenario
from fcsim.scenario.model import Scenario
from fcsim.topology.drawing import FORMATS, draw_topology
from fcsim.trace.pcap import PcapWriter
from fcsim.trace.timeline import Timeline


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


if __name__ == "__main__":
    sys.exit(main())
