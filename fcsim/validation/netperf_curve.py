"""The netperf curve table of ``docs/netperf-curve.md``, computed from the code.

Command (from a source checkout)::

    python -m fcsim.validation.netperf_curve           # print the table
    python -m fcsim.validation.netperf_curve --write   # rewrite it in docs/netperf-curve.md

What is run: Ong & Farrell figure 6 as fcsim simulates it,
``scenarios/ong-farrell/fig06-stream-c110-to-c110.toml`` (netperf TCP_STREAM
``-D -m SIZE -s SOCK -S SOCK`` from one HP C110 to another through the Ancor
FCS 266/16, 10 s tests stopped early by the file's ``[run.steady_state]``
rule), narrowed by :func:`fcsim.validation.points.narrow` to each point of
:func:`grid`: sockets of 32768 and 262143 bytes and every message size the
file lists. Each point is ONE repetition, run with the file's seed
(:func:`fcsim.validation.points.simulate`); the points run in parallel on
``--jobs`` worker processes (default: every core). A run is deterministic for
its seed, so the table is too; ``tests/validation/test_netperf_curve_doc.py``
re-runs a sample of its rows and compares.
"""

from __future__ import annotations

import argparse
import sys
from contextlib import closing
from dataclasses import astuple, dataclass
from pathlib import Path

from fcsim.progress import Progress
from fcsim.resources import SOURCE_ROOT
from fcsim.scenario.workload_model import NetperfConfig
from fcsim.validation.points import Point, scenario_file, simulate, swept_workload
from fcsim.validation.report import update_readme
from fcsim.workers import default_jobs, run_unordered

SCENARIO = "scenarios/ong-farrell/fig06-stream-c110-to-c110.toml"
"""The scenario file the curve comes from (relative to :data:`fcsim.validation.points.ROOT`)."""
SOCKETS = (32768, 262143)
"""The socket buffer sizes of the curve (bytes; netperf -s and -S)."""
DOC = SOURCE_ROOT / "docs" / "netperf-curve.md"
"""The document whose table ``--write`` rewrites."""
BEGIN = "<!-- curve-table:start -->"
"""The line after which the table starts in :data:`DOC`."""
END = "<!-- curve-table:end -->"
"""The line before which the table ends in :data:`DOC`."""
HEADER = ("socket (B)", "message (B)", "Mbit/s", "cpu tx", "cpu rx", "bus tx", "bus rx",
          "ended (s)", "segments", "ACKs", "B/segment", "input drops")
"""The table's column titles, in the order of :class:`CurveRow`'s fields."""


@dataclass(frozen=True)
class CurveRow:
    """One point of the curve. *socket*, *size*: netperf -s/-S and -m (bytes);
    *mbit_s*: netperf's throughput (10^6 bit/s); *cpu_tx*, *cpu_rx*, *bus_tx*,
    *bus_rx*: utilisation (0-1) of the sender's and receiver's processor and
    I/O bus over the run (the result's ``hosts``); *ended_s*: simulated time
    the run ended (s; before the test's 10 s when the steady-state rule
    stopped it); *segments*: IP packets (one FC sequence each) the receiver
    got, i.e. data segments; *acks*: IP packets the sender got (ACKs and
    window updates; both counts include connection set-up); *segment_bytes*:
    mean FC payload of a received packet (bytes: TCP data, 40 bytes of TCP and
    IP header, TCP options, 24 bytes of RFC 2625 network and LLC/SNAP header);
    *drops*: packets the receiver dropped at its full IP input queue."""

    socket: int
    size: int
    mbit_s: float
    cpu_tx: float
    cpu_rx: float
    bus_tx: float
    bus_rx: float
    ended_s: float
    segments: int
    acks: int
    segment_bytes: float
    drops: int

    def cells(self) -> tuple[str, ...]:
        """The row's table cells at the printed precision: 0.01 Mbit/s, 0.01 of
        utilisation, 0.01 s, whole packets and bytes."""
        formats = ("d", "d", ".2f", ".2f", ".2f", ".2f", ".2f", ".2f", "d", "d", ".0f", "d")
        return tuple(format(value, spec) for value, spec in zip(astuple(self), formats,
                                                                 strict=True))


def _workload() -> NetperfConfig:
    """The swept netperf workload of :data:`SCENARIO`."""
    return swept_workload(scenario_file(SCENARIO), Path(SCENARIO))


def grid() -> list[Point]:
    """Every point of the curve: each of :data:`SOCKETS` with each message size
    of :data:`SCENARIO` (bytes), first repetition."""
    return [Point(SCENARIO, socket, size) for socket in SOCKETS
            for size in _workload().send_sizes]


def measure(point: Point) -> CurveRow:
    """Run *point* once with the scenario's seed and reduce its result to a row."""
    out = simulate(point)
    load = _workload()
    test = out["netperf"][load.name]
    tx, rx = out["hosts"][load.source], out["hosts"][load.destination]
    got, back = out["nodes"][load.destination], out["nodes"][load.source]
    segments = int(got["sequences_rx"])
    return CurveRow(
        socket=int(point.socket or 0), size=int(point.size or 0),
        mbit_s=test["throughput_mbit_s"],
        cpu_tx=tx["cpu_utilisation"], cpu_rx=rx["cpu_utilisation"],
        bus_tx=tx["bus_utilisation"], bus_rx=rx["bus_utilisation"],
        ended_s=out["ended_s"], segments=segments, acks=int(back["sequences_rx"]),
        segment_bytes=got["payload_rx"] / segments if segments else 0.0,
        drops=int(rx["ip_input_drops"]))


def measure_all(jobs: int | None = None, show: bool = True) -> list[CurveRow]:
    """Every row of the curve, in :func:`grid` order, run on *jobs* processes
    (default: every core), with a progress line on stderr if *show*."""
    points = grid()
    progress = Progress(len(points)) if show else None
    rows: dict[Point, CurveRow] = {}
    with closing(run_unordered(measure, points, jobs or default_jobs())) as finished:
        for point, row in finished:
            rows[point] = row
            if progress is not None:
                progress(len(rows), point.label())
    return [rows[point] for point in points]


def render(rows: list[CurveRow]) -> str:
    """*rows* as a Markdown table, numbers right-aligned."""
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---:|" * len(HEADER)]
    lines += ["| " + " | ".join(row.cells()) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def parse(text: str) -> dict[tuple[int, int], tuple[str, ...]]:
    """The table between :data:`BEGIN` and :data:`END` in the Markdown *text*:
    each row's cells by its (socket, message size) in bytes."""
    body = text.split(BEGIN, 1)[1].split(END, 1)[0]
    rows: dict[tuple[int, int], tuple[str, ...]] = {}
    for line in body.splitlines():
        cells = tuple(cell.strip() for cell in line.strip().strip("|").split("|"))
        if len(cells) == len(HEADER) and cells[0].isdigit():
            rows[(int(cells[0]), int(cells[1]))] = cells
    return rows


def main(argv: list[str] | None = None) -> int:
    """The command line: print the table, or with ``--write`` rewrite it in :data:`DOC`."""
    parser = argparse.ArgumentParser(prog="python -m fcsim.validation.netperf_curve",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true",
                        help=f"rewrite the table between the markers of {DOC}")
    parser.add_argument("--jobs", type=int, default=None,
                        help="worker processes (default: every core)")
    args = parser.parse_args(argv)
    if args.jobs is not None and args.jobs < 1:
        parser.error(f"--jobs: {args.jobs} given, a whole number of at least 1 allowed")
    table = render(measure_all(args.jobs))
    if not args.write:
        sys.stdout.write(table)
        return 0
    if not DOC.is_file() or not update_readme(DOC, table, BEGIN, END):
        parser.error(f"--write: {DOC} has no lines {BEGIN} and {END}")
    print(f"updated the table in {DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
