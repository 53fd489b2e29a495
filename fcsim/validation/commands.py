"""The ``fcsim validate`` and ``fcsim figures`` commands: a paper's claims and
figures from simulation, with their report or output folder and result store
(the command line itself is :mod:`fcsim.cli`)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from fcsim.output import check_folder
from fcsim.progress import Progress
from fcsim.resources import IN_SOURCE_TREE, SOURCE_ROOT
from fcsim.validation.claims import load_claims
from fcsim.validation.cluster import ClusterError
from fcsim.validation.sensitivity import load_sensitivity, table_markdown
from fcsim.validation.store import FILE_NAME as STORE_FILE
from fcsim.validation.store import ResultStore

QUICK_TIME = "about 20 s on two idle cores"
"""How long ``fcsim validate --quick`` takes (18 s measured on an idle 2-core
Intel Xeon, docs/performance.md); quoted by ``--help``, the README,
docs/validation.md and the CI script."""
REPORTS = SOURCE_ROOT / "validation" if IN_SOURCE_TREE else Path("validation-report")
"""Where ``fcsim validate`` reports by default: ``validation/`` in a source
checkout, ``validation-report/`` in the current folder for an installed fcsim."""
REPORT_DIR = REPORTS / "report"
"""The recorded report: of a full run with ``--record`` (in a source checkout,
the report kept with the code, beside the statuses recorded in
``validation/claims.toml``)."""
LATEST_REPORT_DIR = REPORTS / "report-latest"
"""The report of a full run that is not recorded (ignored by git, so that
validating leaves the checkout as it was)."""
PARTIAL_REPORT_DIR = REPORTS / "report-partial"
"""The report of a quick run or of selected claims (ignored by git)."""


def default_report(full: bool, record: bool) -> Path:
    """The report folder of a run without ``--report``: :data:`REPORT_DIR` for
    a recorded full run, :data:`LATEST_REPORT_DIR` for another full run,
    :data:`PARTIAL_REPORT_DIR` for the rest."""
    if not full:
        return PARTIAL_REPORT_DIR
    return REPORT_DIR if record else LATEST_REPORT_DIR


def figures_command(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """``fcsim figures``: simulate a paper's figures (resuming from the output
    folder's result store) and write them; the exit status."""
    from fcsim.validation.figures import figure_points, write_figures  # draws: loads matplotlib
    out = check_folder("--output", args.output, (STORE_FILE,))
    options = {"repetitions": args.repetitions, "length": args.length, "sockets": args.sockets,
               "sizes": args.sizes, "pairs": args.pairs, "experiments": args.experiments}
    try:
        total = len(figure_points(args.paper, **options))
    except (ValueError, FileNotFoundError) as error:
        parser.error(str(error))
    print(f"fcsim figures {args.paper}: {total} simulations", file=sys.stderr)
    with _store(out, args.no_store) as store, _cluster(parser):
        written = write_figures(args.paper, out, jobs=args.jobs, progress=Progress(total),
                                store=store, scheduler=args.scheduler, **options)
    for path in written:
        print(f"wrote {path}")
    return 0


def validate_command(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """``fcsim validate``: run and judge the claims, write the report; the exit
    status (1 on a regression); with ``--sensitivity``, print the sensitivity
    table and run nothing."""
    from fcsim.validation.validate import finish, select, validate  # draws: loads matplotlib

    if args.sensitivity:
        if args.quick or args.claims or args.record or args.readme:
            parser.error("--sensitivity prints the recorded table and runs nothing: give it "
                         "alone")
        sys.stdout.write(table_markdown(load_sensitivity()))
        return 0
    if args.readme and (args.quick or args.claims):
        parser.error("--readme: the README table comes from a full run (no --quick, --claims)")
    full = not (args.quick or args.claims)
    if (args.record or args.readme) and not IN_SOURCE_TREE:
        parser.error("--record and --readme write the project's files: run them from a "
                     "source checkout (pip install -e .)")
    report = check_folder("--report", args.report or default_report(full, args.record),
                          ("index.html", "results.json", STORE_FILE))
    try:
        claims = select(load_claims(), args.quick, args.claims)
    except ValueError as error:
        parser.error(f"--claims: {error}")
    with _store(report, args.no_store) as store, _cluster(parser):
        outcomes, meta = validate(claims, args.jobs, store=store, scheduler=args.scheduler)
    meta["mode"] = "full" if full else "quick" if args.quick else "selected claims"
    return finish(outcomes, meta, report, record=args.record,
                  readme=SOURCE_ROOT / "README.md" if args.readme else None)


@contextmanager
def _cluster(parser: argparse.ArgumentParser) -> Iterator[None]:
    """A cluster that cannot be used ends the command with one line (exit status 2)."""
    try:
        yield
    except ClusterError as error:
        parser.error(f"--scheduler: {error}")


@contextmanager
def _store(folder: Path, off: bool) -> Iterator[ResultStore | None]:
    """The result store of an output *folder* (made if needed; None and no folder
    made if *off*), closed after use."""
    if off:
        yield None
        return
    folder.mkdir(parents=True, exist_ok=True)
    store = ResultStore(folder / STORE_FILE)
    try:
        yield store
    finally:
        store.close()
