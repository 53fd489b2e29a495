"""The ``fcsim`` command line.

``fcsim run FILE`` runs a scenario and prints a summary; ``--json`` prints the
results as JSON instead (schema in ``docs/results.md``); ``--pcap FILE`` writes
every frame of the first repetition for Wireshark; ``--trace [FILE]`` writes
the protocol-analyzer timeline of the first repetition. ``fcsim topology
FILE`` draws the scenario's topology as PNG or SVG. ``fcsim validate`` runs
the measured claims of ``validation/claims.toml`` and writes a report;
``fcsim figures PAPER`` draws a paper's figures from simulation.

Exit status: 0 on success, 2 for a bad scenario or bad arguments (one message
on stderr, nothing written); ``validate`` exits 1 when a claim recorded as
passing fails.
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
from fcsim.units import UnitError, parse_size, parse_time
from fcsim.validation.claims import load_claims
from fcsim.validation.figures import PAPERS, figure_points, write_figures
from fcsim.validation.points import ROOT, Progress
from fcsim.validation.validate import finish, select, validate

REPORT_DIR = ROOT / "validation" / "report"
"""Where ``fcsim validate`` writes the report of a full run by default."""
PARTIAL_REPORT_DIR = ROOT / "validation" / "report-partial"
"""Where it writes the report of a quick run or of selected claims by default."""


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
    check = commands.add_parser(
        "validate", help="run the measured claims and report how close the simulation is")
    check.add_argument("--quick", action="store_true",
                       help="only the claims marked quick (a run of under two minutes)")
    check.add_argument("--claims", metavar="ID", nargs="+", default=(),
                       help="only these claims")
    check.add_argument("--jobs", metavar="N", type=_positive, default=None,
                       help="processes to run simulations on (default: every core)")
    check.add_argument("--report", metavar="DIR", default=None,
                       help=f"report folder (default: {REPORT_DIR.relative_to(ROOT)} for a full "
                            f"run, {PARTIAL_REPORT_DIR.relative_to(ROOT)} otherwise)")
    check.add_argument("--record", action="store_true",
                       help="record this run's statuses in validation/claims.toml")
    check.add_argument("--readme", action="store_true",
                       help="refresh the README's validation table (full runs only)")
    figures = commands.add_parser(
        "figures", help="simulate a paper's figures and write them as PNG",
        description="Simulate a paper's figures and write them as PNG. The full grid of "
                    "the paper is long (ong-farrell: about 11 hours on 2 cores; rd11: about "
                    "6 minutes); the options narrow it for drafts.")
    figures.add_argument("paper", choices=PAPERS, help="which paper's figures")
    figures.add_argument("-o", "--output", metavar="DIR", default="figures",
                         help="folder for the PNG files (default: figures)")
    figures.add_argument("--jobs", metavar="N", type=_positive, default=None,
                         help="processes to run simulations on (default: every core)")
    figures.add_argument("--repetitions", metavar="N", type=_positive, default=None,
                         help="repetitions per point (default: the scenario's, 5)")
    figures.add_argument("--length", metavar="TIME", type=_time, default=None,
                         help="netperf -l of every run, e.g. '2 s' (default: the paper's 10 s)")
    figures.add_argument("--sockets", metavar="SIZE", nargs="+", type=_size, default=None,
                         help="only these socket sizes, e.g. '32 KiB' 262143")
    figures.add_argument("--sizes", metavar="SIZE", nargs="+", type=_size, default=None,
                         help="only these message sizes")
    figures.add_argument("--pairs", metavar="PAIR", nargs="+", default=None,
                         help="ong-farrell: only these pairs, e.g. c110-to-c180")
    figures.add_argument("--experiments", metavar="NAME", nargs="+", default=None,
                         help="rd11: only these experiments, e.g. mem-rr")
    return parser


def _time(text: str) -> float:
    try:
        value = parse_time(text)
    except UnitError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a time > 0 such as '2 s', got {text!r}")
    return value


def _size(text: str) -> int:
    try:
        return parse_size(text)
    except UnitError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _figures(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    out = Path(args.output)
    if out.exists() and not out.is_dir():
        parser.error(f"--output: {args.output!r} exists and is not a folder")
    if not out.resolve().parent.is_dir():
        parser.error(f"--output: directory of {args.output!r} does not exist")
    options = {"repetitions": args.repetitions, "length": args.length, "sockets": args.sockets,
               "sizes": args.sizes, "pairs": args.pairs, "experiments": args.experiments}
    try:
        total = len(figure_points(args.paper, **options))
    except (ValueError, FileNotFoundError) as error:
        parser.error(str(error))
    print(f"fcsim figures {args.paper}: {total} simulations", file=sys.stderr)
    out.mkdir(exist_ok=True)
    written = write_figures(args.paper, out, jobs=args.jobs, progress=Progress(total),
                            **options)
    for path in written:
        print(f"wrote {path}")
    return 0


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {text!r}")
    return value


def _validate(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    if args.readme and (args.quick or args.claims):
        parser.error("--readme: the README table comes from a full run (no --quick, --claims)")
    full = not (args.quick or args.claims)
    report = Path(args.report) if args.report else REPORT_DIR if full else PARTIAL_REPORT_DIR
    if not report.resolve().parent.is_dir():
        parser.error(f"--report: directory of {str(report)!r} does not exist")
    try:
        claims = select(load_claims(), args.quick, args.claims)
    except ValueError as error:
        parser.error(f"--claims: {error}")
    outcomes, meta = validate(claims, args.jobs)
    meta["mode"] = "full" if full else "quick" if args.quick else "selected claims"
    return finish(outcomes, meta, report, record=args.record,
                  readme=ROOT / "README.md" if args.readme else None)


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
    if args.command == "validate":
        return _validate(parser, args)
    if args.command == "figures":
        return _figures(parser, args)
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
