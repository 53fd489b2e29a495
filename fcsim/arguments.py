"""The ``fcsim`` command line's arguments: the parser of every command and the
types that read option values (sizes and times through :mod:`fcsim.units`)."""

from __future__ import annotations

import argparse
import re
from typing import NoReturn

from fcsim import __version__
from fcsim.preflight import add_limit_options
from fcsim.scenario.reference import SCHEMAS
from fcsim.units import UnitError, parse_size, parse_time
from fcsim.validation.commands import (
    LATEST_REPORT_DIR,
    PARTIAL_REPORT_DIR,
    QUICK_TIME,
    REPORT_DIR,
    STORE_FILE,
)
from fcsim.validation.figure_plan import PAPERS

DEFAULT_PCAP_LIMIT = 1 << 30
"""Bytes a ``--pcap`` file may reach before writing stops (``--pcap-limit``)."""
DEFAULT_TRACE_LIMIT = 1 << 30
"""Bytes a ``--trace FILE`` may reach before writing stops (``--trace-limit``)."""
SCHEDULER_HELP = ("run the simulations on the Dask cluster whose scheduler is at ADDRESS, "
                  "e.g. tcp://10.0.0.1:8786 (every worker needs the same fcsim: "
                  "pip install 'fcsim[cluster]'; see docs/performance.md)")
"""Help of ``--scheduler``."""


class UsageError(Exception):
    """Arguments that parse but cannot be used (together, or with the scenario):
    ``str()`` is one line naming the option, what was given and what is allowed;
    the command exits with status 2 before any work, as for a bad scenario."""


class CommandParser(argparse.ArgumentParser):
    """A command's argument parser whose refusals (a missing argument, an
    unknown option or command, a value that does not parse, the commands' own
    checks) are one line like every other refusal: a :class:`UsageError`
    naming the option, what was given and what is allowed, then where the
    usage is, instead of argparse's usage block and exit. Its commands'
    parsers are of the same class (argparse makes them so)."""

    def error(self, message: str) -> NoReturn:
        """Refuse the arguments: *message* as argparse words it, an option's
        ``argument `` prefix dropped so that it begins with the option."""
        message = re.sub(r"^argument (\S+): ", r"\1: ", message)
        raise UsageError(f"{message} (see '{self.prog} --help')")


def build_parser() -> CommandParser:
    """The parser of the command line, each command's own parser kept as its
    ``subparser`` default (errors name that command's help)."""
    parser = CommandParser(
        prog="fcsim", description="Discrete-event simulator for Fibre Channel and the "
        "networks and storage around it.")
    parser.add_argument("--version", action="version", version=f"fcsim {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    run = commands.add_parser("run", help="run a scenario file and report its results")
    run.add_argument("scenario", metavar="FILE", help="scenario file (TOML)")
    run.add_argument("--json", action="store_true", help="print results as JSON")
    run.add_argument("--model", choices=("packet", "flow"), default="packet",
                     help="'packet' (default): simulate frame by frame; 'flow': the steady "
                          "max-min fair rates of a fabric's saturating Class 3 streams, for "
                          "capacity planning (docs/model.md, 'Flow model')")
    run.add_argument("--spread", choices=("exact", "average"), default=None,
                     help="with --model flow, how exchanges take equal-cost paths: 'exact' "
                          "(default), each on the path its switches' routing gives it; "
                          "'average', exchange-based switches spread each evenly (the "
                          "hash's expected share)")
    run.add_argument("--jobs", metavar="N", type=_positive, default=None,
                     help="processes to run a sweep's points on (default: every core)")
    run.add_argument("--pcap", metavar="FILE",
                     help="write every frame of the first repetition to a libpcap file, or "
                          "to pcapng with one interface per link direction if FILE ends in "
                          ".pcapng (Myrinet: the IP packet of each Myrinet packet, as raw "
                          "IP); one file per cable (FILE's name with the cable's ports) "
                          "when frames cross several, as one analyzer on each cable")
    run.add_argument("--pcap-ports", metavar="PORT", nargs="+", default=(),
                     help="capture only the cables of these ports (node names, "
                          "'switch:port'), as an analyzer on a cable (default: every link)")
    run.add_argument("--pcap-limit", metavar="SIZE", type=_size, default=DEFAULT_PCAP_LIMIT,
                     help="stop writing the pcap file at this size, as tcpdump -C caps a "
                          "file (default: 1 GiB)")
    run.add_argument("--trace", metavar="FILE", nargs="?", const="-",
                     help="write the protocol-analyzer timeline (default: standard output)")
    run.add_argument("--trace-limit", metavar="SIZE", type=_size, default=DEFAULT_TRACE_LIMIT,
                     help="stop writing the --trace FILE at this size (default: 1 GiB)")
    run.add_argument("--report", metavar="DIR",
                     help="also write a self-contained HTML run report, DIR/index.html: "
                          "summary, topology and plots over time")
    run.add_argument("--report-interval", metavar="TIME", type=_time, default=None,
                     help="with --report: sample the plots over time every TIME of "
                          "simulated time, such as '100 us' (default: 200 samples a run)")
    add_limit_options(run)
    draw = commands.add_parser("topology", help="draw a scenario's topology (PNG or SVG)")
    draw.add_argument("scenario", metavar="FILE", help="scenario file (TOML)")
    draw.add_argument("-o", "--output", metavar="IMAGE",
                      help="image file, .png or .svg (default: the scenario's name with "
                           ".png, in the current folder)")
    check = commands.add_parser(
        "validate", help="run the measured claims and report how close the simulation is")
    check.add_argument("--quick", action="store_true",
                       help=f"only the claims marked quick ({QUICK_TIME})")
    check.add_argument("--claims", metavar="ID", nargs="+", default=(),
                       help="only these claims")
    check.add_argument("--jobs", metavar="N", type=_positive, default=None,
                       help="processes to run simulations on (default: every core)")
    check.add_argument("--scheduler", metavar="ADDRESS", default=None, help=SCHEDULER_HELP)
    check.add_argument("--report", metavar="DIR", default=None,
                       help=f"report folder (default: {REPORT_DIR} for a full run with "
                            f"--record, {LATEST_REPORT_DIR} for one without, "
                            f"{PARTIAL_REPORT_DIR} otherwise)")
    check.add_argument("--record", action="store_true",
                       help="record this run's statuses in validation/claims.toml and, for "
                            f"a full run, its report in {REPORT_DIR}")
    check.add_argument("--readme", action="store_true",
                       help="refresh the README's validation table (full runs only)")
    check.add_argument("--sensitivity", action="store_true",
                       help="print which verdicts rest on which assumptions (the table of "
                            "validation/sensitivity.toml beside the recorded statuses) and "
                            "run nothing")
    check.add_argument("--no-store", action="store_true",
                       help=f"simulate every point again, ignoring the report folder's "
                            f"{STORE_FILE}")
    figures = commands.add_parser(
        "figures", help="simulate a paper's figures (or the SCSI against NVMe comparison's) "
                        "and write them as PNG",
        description="Simulate a paper's figures, or nvme-vs-fcp's (SCSI-FCP against NVMe/FC, "
                    "IOPS and latency against the queue depth), and write them as PNG. The "
                    "full grid of the paper is long (ong-farrell: hours on 2 cores; rd11: "
                    "about 6 minutes; slice and nvme-vs-fcp: about 10 s); the options "
                    "narrow it for drafts.")
    figures.add_argument("paper", choices=PAPERS, help="which paper's figures (or "
                                                       "nvme-vs-fcp)")
    figures.add_argument("-o", "--output", metavar="DIR", default="figures",
                         help="folder for the PNG files (default: figures)")
    figures.add_argument("--jobs", metavar="N", type=_positive, default=None,
                         help="processes to run simulations on (default: every core)")
    figures.add_argument("--scheduler", metavar="ADDRESS", default=None, help=SCHEDULER_HELP)
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
    figures.add_argument("--no-store", action="store_true",
                         help=f"simulate every point again, ignoring the output folder's "
                              f"{STORE_FILE}")
    explain = commands.add_parser(
        "explain", help="a ladder diagram of the first events of a run (text, SVG or PNG)")
    explain.add_argument("scenario", metavar="FILE", help="scenario file (TOML)")
    explain.add_argument("--events", metavar="N", type=_positive, default=40,
                         help="how many frames and ordered sets (default: 40)")
    explain.add_argument("--until", metavar="TIME", type=_time, default=None,
                         help="only events that start by this simulated time, e.g. '50 us'")
    explain.add_argument("--ports", metavar="PORT", nargs="+", default=(),
                         help="only events sent or received by these ports (node names, "
                              "'switch:port')")
    explain.add_argument("-o", "--output", metavar="IMAGE",
                         help="draw into an .svg or .png file (default: text on standard "
                              "output)")
    add_limit_options(explain)
    schema = commands.add_parser(
        "schema", help="print the JSON Schema of scenario or model files (for editors)",
        description="Print the JSON Schema of scenario files or of device model files, for "
                    "editors and TOML language servers (see docs/scenarios.md).")
    schema.add_argument("kind", nargs="?", choices=SCHEMAS, default="scenario",
                        help="which files (default: scenario)")
    credits = commands.add_parser(
        "credits", help="the buffer credits a link needs for full rate, and the switches "
                        "that have them",
        description="The buffer-to-buffer credits a link of this speed and length needs to "
                    "run at full rate with frames of this size (closed form), and the "
                    "catalog switches whose ports have that many; --simulate confirms it "
                    "with a short simulated sweep (docs/cli.md).")
    credits.add_argument("--speed", metavar="SPEED", required=True,
                         help="a Fibre Channel speed name such as 32GFC, or a baud rate")
    credits.add_argument("--length", metavar="LENGTH", required=True,
                         help="the cable's length, e.g. '10km'")
    credits.add_argument("--frame-size", metavar="N", default="2112",
                         help="bytes in each frame's data field, 1..2112 (default: 2112, "
                              "the full frames vendors' calculators assume)")
    credits.add_argument("--simulate", action="store_true",
                         help="also find the knee (the fewest credits at full rate) by a "
                              "short simulated sweep and print its rates beside the formula's")
    # errors name their own help
    for command in (run, draw, check, figures, explain, schema, credits):
        command.set_defaults(subparser=command)
    return parser


def _size(text: str) -> int:
    try:
        return parse_size(text)
    except UnitError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _time(text: str) -> float:
    """A positive time with its unit, s."""
    try:
        value = parse_time(text)
    except UnitError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"a time > 0 such as '100 us', got {text!r}")
    return value


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {text!r}")
    return value
