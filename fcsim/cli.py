"""The ``fcsim`` command line.

``fcsim run FILE`` runs a scenario and prints a summary; ``--json`` prints the
results as JSON instead (schema in ``docs/results.md``); ``--pcap FILE`` writes
every frame of the first repetition for Wireshark; ``--trace [FILE]`` writes
the protocol-analyzer timeline of the first repetition. ``fcsim topology
FILE`` draws the scenario's topology as PNG or SVG. ``fcsim validate`` runs
the measured claims of ``validation/claims.toml`` and writes a report;
``fcsim figures PAPER`` draws a paper's figures from simulation.

Exit status: 0 on success, 2 for a bad scenario, bad arguments, an output
path that cannot be written, a closed standard output or a run past a work
limit (one message on stderr, checked before any simulation, nothing
written); 1 when an output fails while it is written (a full disk: one line,
no partial file left) and when ``validate`` finds that a claim recorded as
passing fails; 130 when interrupted (Ctrl-C or SIGTERM: one line, worker
processes stopped, no partial or temporary file left). Output files are
written by :mod:`fcsim.output`; docs/cli.md.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from fcsim.arguments import UsageError, build_parser
from fcsim.credits import credits_text, simulated_knee
from fcsim.drawing import FORMATS
from fcsim.fabric.credit_planning import plan
from fcsim.fc0.cable import Cable
from fcsim.fc0.speed import CATALOG, FIBRE_CHANNEL_SPEEDS
from fcsim.fc2.frame import MAX_DATA_FIELD
from fcsim.flow.fabric import unsupported
from fcsim.flow.summary import flow_run, flow_summary
from fcsim.output import (
    Capped,
    OutputError,
    WriteError,
    check_file,
    check_folder,
    guarded_stdout,
    is_stdout,
    open_output,
    same_file,
    write_output,
)
from fcsim.preflight import affordable, first_run, unknown_ports
from fcsim.progress import Progress, end_progress_line
from fcsim.report import summary_text
from fcsim.runner import SLICES, build_network, run_once, run_scenario
from fcsim.scenario.loader import ScenarioError, load_scenario
from fcsim.scenario.model import Scenario
from fcsim.scenario.reference import SCHEMAS, schema_text
from fcsim.sweep import sweep_points
from fcsim.topology.network import Network
from fcsim.trace.capture import CableCaptures, PcapSink, linktypes
from fcsim.trace.ladder import Enough, Ladder, draw_ladder, ladder_text
from fcsim.trace.pcap import FILE_HEADER_SIZE, PcapWriter
from fcsim.trace.pcapng import SECTION_HEADER_SIZE, PcapngWriter
from fcsim.trace.timeline import Timeline
from fcsim.trace.timeseries import TimeSeries
from fcsim.units import UnitError, format_size, parse_baud, parse_length
from fcsim.validation.commands import (
    figures_command,
    validate_command,
)
from fcsim.workers import default_jobs


class Interrupted(Exception):
    """SIGTERM, handled as Ctrl-C is."""


def _stop(signum: int, frame: object) -> None:
    """The first Ctrl-C or SIGTERM: ignore any further one, so the clean-up it starts
    (temporary files removed, worker processes ended) is not cut short, and stop."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise KeyboardInterrupt if signum == signal.SIGINT else Interrupted


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``fcsim`` console script; returns the exit status."""
    previous = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)}
    for signum, handler in previous.items():
        if handler is not signal.SIG_IGN:  # left ignored by nohup or a shell's '&'
            signal.signal(signum, _stop)
    interrupted = False
    try:
        if sys.stdout is None:  # started with standard output closed ('>&-')
            print("fcsim: error: standard output is closed; redirect it to a file or "
                  "/dev/null instead", file=sys.stderr)
            return 2
        with guarded_stdout():
            return _main(argv)
    except (OutputError, UsageError) as error:
        print(f"fcsim: error: {error}", file=sys.stderr)
        return 2
    except WriteError as error:
        end_progress_line()
        print(f"fcsim: error: {error}", file=sys.stderr)
        return 1
    except (KeyboardInterrupt, Interrupted):
        interrupted = True  # a second Ctrl-C stays ignored while the process exits
        end_progress_line()
        print("fcsim: interrupted; nothing more written", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into a reader that stopped (| head)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    finally:
        if not interrupted:
            for signum, handler in previous.items():
                signal.signal(signum, handler)


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    command = args.subparser
    if unknown:  # named by the command they were given to (parse_args names only 'fcsim')
        command.error(f"unrecognized arguments: {' '.join(unknown)}")
    if args.command == "topology":
        return _topology(args)
    if args.command == "validate":
        return validate_command(command, args)
    if args.command == "figures":
        return figures_command(command, args)
    if args.command == "explain":
        return _explain(args)
    if args.command == "credits":
        return _credits(args)
    if args.command == "schema":
        sys.stdout.write(schema_text(SCHEMAS[args.kind]()))
        return 0
    return _run(args)


def _credits(args: argparse.Namespace) -> int:
    fibre = ", ".join(FIBRE_CHANNEL_SPEEDS)
    try:
        speed = parse_baud(args.speed)
    except UnitError:
        speed = None
    if speed is None or (speed.name in CATALOG and speed.name not in FIBRE_CHANNEL_SPEEDS):
        raise UsageError(f"--speed: given {args.speed!r}; a Fibre Channel speed ({fibre}) "
                         "or a baud rate such as '8.5 Gbaud'")
    try:
        length = parse_length(args.length)
    except UnitError as error:
        raise UsageError(f"--length: {error}") from None
    if length < 0:
        raise UsageError(f"--length: given {args.length!r}; a length >= 0 such as '10km'")
    try:
        size = int(args.frame_size)
    except ValueError:
        size = -1
    if not 1 <= size <= MAX_DATA_FIELD:
        raise UsageError(f"--frame-size: given {args.frame_size!r}; an integer 1..2112 (bytes "
                         "of a frame's data field)")
    answer = plan(speed, Cable(length), size)
    sys.stdout.write(credits_text(answer, simulated_knee(answer) if args.simulate else None))
    return 0


def _run(args: argparse.Namespace) -> int:
    if args.json and args.trace == "-":
        raise UsageError("--trace: given no file with --json, and the timeline on standard "
                         "output would mix with the JSON; give --trace FILE")
    if args.pcap_ports and not args.pcap:
        raise UsageError("--pcap-ports: given without --pcap; give --pcap FILE too")
    if args.report_interval is not None and not args.report:
        raise UsageError("--report-interval: given without --report; give --report DIR too")
    pcap = _output("--pcap", args.pcap, args.scenario) if args.pcap else None
    trace = (_output("--trace", args.trace, args.scenario) if args.trace not in (None, "-")
             else None)
    report = (check_folder("--report", args.report, ("index.html",)) if args.report
              else None)
    if pcap is not None and trace is not None and same_file(pcap, trace):
        raise OutputError("--trace", args.trace, "--pcap writes the same file; give two files")
    on_stdout = [option for option, path in (("--pcap", pcap), ("--trace", trace))
                 if path is not None and is_stdout(path)]  # the results go to stderr
    if on_stdout and args.trace == "-":
        raise UsageError(f"{on_stdout[0]} and --trace both go to standard output; give "
                         "--trace FILE")
    if pcap is not None:
        kind, header = (("pcapng", SECTION_HEADER_SIZE) if pcap.suffix == ".pcapng" else
                        ("libpcap", FILE_HEADER_SIZE))
        if args.pcap_limit < header:
            raise UsageError(f"--pcap-limit: given {args.pcap_limit} B; at least {header} B, "
                             f"the header of a {kind} file of no frame (more to hold frames)")
    scenario = _load(args.scenario)
    if scenario is None:
        return 2
    if args.model == "flow":
        return _flow(args, scenario)
    if args.spread is not None:
        raise UsageError(f"--spread: given {args.spread!r}; only with --model flow")
    if pcap is not None and pcap.suffix != ".pcapng" and len(linktypes(scenario)) > 1:
        raise UsageError(f"--pcap: given {args.pcap!r}; a file ending in .pcapng for a "
                         "scenario whose networks carry frames of several link types (a "
                         "libpcap file holds one)")
    if not affordable(scenario, args):
        return 2
    if report is not None:
        from fcsim.run_report import run_page, topology_svg  # draws: loads matplotlib
    drawing = topology_svg(scenario) if report is not None else None  # before the run
    with ExitStack() as stack:
        sinks: list[Any] = []
        writer = None
        capped: Capped | None = None
        cables: CableCaptures | None = None
        if pcap is not None and (not pcap.exists() or pcap.is_file()):
            cables = writer = CableCaptures(pcap, pcap.suffix == ".pcapng",
                                            min(linktypes(scenario)), args.pcap_limit,
                                            frozenset(args.pcap_ports))
            stack.callback(_discard_unless_closed, cables)
            sinks.append(cables)
        elif pcap is not None:  # a device or FIFO: every cable's frames into it
            # Its header goes out as it opens and cannot be taken back, so the
            # names are checked first, on a network built for it.
            _PortCheck(scenario.source, "--pcap-ports", args.pcap_ports)(
                build_network(scenario))
            handle = stack.enter_context(open_output(pcap, "wb", "--pcap"))
            writer = (PcapngWriter(handle, args.pcap_limit) if pcap.suffix == ".pcapng" else
                      stack.enter_context(PcapWriter(handle, limit=args.pcap_limit,
                                                     linktype=min(linktypes(scenario)))))
            sinks.append(PcapSink(writer, frozenset(args.pcap_ports)))
        if args.trace == "-":
            sinks.append(Timeline(sys.stdout))
        elif trace is not None:
            capped = Capped(stack.enter_context(open_output(trace, "w", "--trace")),
                            args.trace_limit)
            sinks.append(Timeline(capped))
        steps = len(sweep_points(scenario)) or scenario.run.repetitions * SLICES
        progress = Progress(steps) if sys.stderr.isatty() else None
        series = TimeSeries(interval=args.report_interval) if report is not None else None
        results = run_scenario(scenario, sinks, progress, series,
                               args.jobs or default_jobs(),
                               _PortCheck(scenario.source, "--pcap-ports", args.pcap_ports))
        if cables is not None:
            files = cables.close()
            if len(files) > 1:
                print(f"fcsim: --pcap: {len(files)} cables, one file each (as one analyzer "
                      f"on each): {pcap.stem}.*{pcap.suffix}", file=sys.stderr)
    if writer is not None and writer.left_out:
        print(f"fcsim: --pcap: stopped at {format_size(args.pcap_limit)} (--pcap-limit); "
              f"{writer.left_out} later frames not written", file=sys.stderr)
    if capped is not None and capped.left_out:
        print(f"fcsim: --trace: stopped at {format_size(args.trace_limit)} (--trace-limit); "
              f"{capped.left_out} later lines not written", file=sys.stderr)
    if report is not None and series is not None and drawing is not None:
        page = run_page(scenario, results, series, drawing)  # then the folder
        made = not report.exists()
        report.mkdir(parents=True, exist_ok=True)
        try:
            write_output(report / "index.html", page, "--report")
        except BaseException:
            if made:  # no empty report folder left behind
                report.rmdir()
            raise
        print(f"fcsim: run report {report / 'index.html'}", file=sys.stderr)
    out = sys.stderr if on_stdout else sys.stdout
    if args.json:
        json.dump(results, out, indent=2, sort_keys=True)
        out.write("\n")
    else:
        out.write(summary_text(results))
    return 0


def _flow(args: argparse.Namespace, scenario: Scenario) -> int:
    """``run --model flow``: the flow model's figures, or one line naming what
    of the scenario it cannot represent (exit 2)."""
    for option in ("pcap", "trace", "report"):
        if getattr(args, option):
            raise UsageError(f"--{option}: not with --model flow (it has no frames or "
                             "time series)")
    missing = unsupported(scenario)
    if missing is not None:
        print(f"fcsim: {args.scenario}: --model flow cannot represent {missing}; run it "
              "with the packet model (without --model flow)", file=sys.stderr)
        return 2
    try:
        figures = flow_run(scenario, args.spread or "exact")
    except ValueError as error:
        print(f"fcsim: {args.scenario}: --model flow: {error}", file=sys.stderr)
        return 2
    if args.json:
        json.dump(figures, sys.stdout, indent=2, sort_keys=True)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(flow_summary(figures))
    return 0


def _discard_unless_closed(cables: CableCaptures) -> None:
    """Remove the cable files of a run that did not finish (no partial capture)."""
    if not cables.closed:
        cables.discard()


def _explain(args: argparse.Namespace) -> int:
    output = Path(args.output) if args.output else None
    target = _image("--output", output, args.scenario) if output is not None else None
    scenario = _load(args.scenario)
    if scenario is None:
        return 2
    points = sweep_points(scenario)
    until = args.until if args.until is not None else float("inf")
    first = points[0][1] if points else scenario
    if not affordable(first_run(first, until), args,
                      float("inf") if args.ports else args.events):
        return 2
    ladder = Ladder(args.events, until, tuple(args.ports))
    check = _PortCheck(scenario.source, "--ports", args.ports)
    try:
        run_once(first, first.run.seed, [ladder], built=check)
    except Enough:
        if not check.done:  # the ladder filled with the frames sent as the network was built
            check(build_network(first))
    if not ladder.rungs:
        print("fcsim: no event matched (check --ports and --until)", file=sys.stderr)
        return 1
    if target is None:
        ladder_text(ladder.rungs, sys.stdout)
        return 0
    with open_output(target, "wb", "--output") as handle:
        draw_ladder(ladder.rungs, handle, target.suffix.lower(),
                    f"{scenario.name}: the first {len(ladder.rungs)} events")
    print(f"wrote {output}")
    return 0


class _PortCheck:
    """The port names given with a command's *option*, checked against the
    network its run builds (:data:`fcsim.runner.Built`): a :class:`UsageError`
    names those that name no port of it, before anything is simulated."""

    def __init__(self, source: str, option: str, given: Sequence[str]) -> None:
        self.source, self.option, self.given = source, option, tuple(given)
        self.done = not self.given
        """Whether the names were checked (no name given: nothing to check)."""

    def __call__(self, net: Network) -> None:
        if self.done:
            return
        self.done = True
        wrong = unknown_ports(net, self.source, self.option, self.given)
        if wrong is not None:
            raise UsageError(wrong)


def _load(path: str) -> Scenario | None:
    """The scenario at *path*, or None after printing why it cannot be used."""
    try:
        return load_scenario(path)
    except ScenarioError as error:
        for line in str(error).splitlines():
            print(f"fcsim: error: {line}", file=sys.stderr)
        return None


def _output(option: str, path: str | Path, scenario: str) -> Path:
    """Where the output file *path* given with *option* is written
    (:func:`check_file`); :class:`OutputError` if it is the *scenario* file."""
    if same_file(path, scenario):
        raise OutputError(option, path, "it is the scenario file being read; give another "
                                        "file")
    return check_file(option, path)


def _image(option: str, output: Path, scenario: str) -> Path:
    """Where the image *output* given with *option* is written (:func:`_output`);
    :class:`UsageError` unless its name ends in an image format's suffix."""
    target = _output(option, output, scenario)
    if output.suffix.lower() not in FORMATS:
        raise UsageError(f"{option}: given {str(output)!r}; an image file ending in "
                         f"{' or '.join(FORMATS)}")
    return target


def _topology(args: argparse.Namespace) -> int:
    output = Path(args.output) if args.output else Path(Path(args.scenario).stem + ".png")
    target = _image("--output", output, args.scenario)
    scenario = _load(args.scenario)
    if scenario is None:
        return 2
    from fcsim.drawing.topology import draw_topology  # draws: loads matplotlib

    with open_output(target, "wb", "--output") as handle:
        draw_topology(scenario, handle, output.suffix.lower())
    print(f"wrote {output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
