"""``fcsim validate``: run every claim's simulations, judge them, report.

All claims' points are pooled and run once each on every core; each claim's
check then judges the shared results. The outcome of a claim is compared with
the status recorded in ``validation/claims.toml``: a claim recorded as passing
that now fails is a regression.
"""

from __future__ import annotations

import datetime
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any, TextIO

from fcsim import __version__
from fcsim.progress import Progress
from fcsim.validation.batch import run_points
from fcsim.validation.checks import CHECKS, NoFigure, Results, Verdict
from fcsim.validation.claims import Claim, record_statuses
from fcsim.validation.report import (
    readme_table,
    regressions,
    table_text,
    update_readme,
    write_report,
)
from fcsim.validation.store import ResultStore
from fcsim.workers import default_jobs


def select(claims: Sequence[Claim], quick: bool = False,
           only: Sequence[str] = ()) -> list[Claim]:
    """The claims a run covers: *only* these IDs if given (ValueError naming
    unknown ones), else the quick subset or all."""
    if only:
        known = {c.id: c for c in claims}
        unknown = [i for i in only if i not in known]
        if unknown:
            raise ValueError(f"unknown claim {', '.join(unknown)}; known: {', '.join(known)}")
        return [known[i] for i in only]
    return [c for c in claims if c.quick] if quick else list(claims)


def outcome(claim: Claim, verdict: Verdict) -> dict[str, Any]:
    """A claim and its verdict as one JSON-ready report entry: the claim's
    fields (its recorded status as ``recorded``) and the verdict's."""
    entry = asdict(claim)
    del entry["quick"]
    entry["recorded"] = entry.pop("status")
    return {**entry, **asdict(verdict)}


def validate(claims: Sequence[Claim], jobs: int | None = None,
             stream: TextIO = sys.stderr, store: ResultStore | None = None,
             scheduler: str | None = None) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Run and judge *claims* on *jobs* processes or the Dask cluster at
    *scheduler*; returns the outcomes and the run's meta data.
    Points held by *store* are not simulated again. ValueError for a claim
    that has no check in :data:`CHECKS`."""
    started = time.monotonic()
    unchecked = [c.id for c in claims if c.id not in CHECKS]
    if unchecked:
        raise ValueError(f"no check for claim {', '.join(unchecked)} "
                         "(fcsim/validation/checks/)")
    points = {p for c in claims for p in CHECKS[c.id].points()}
    jobs = jobs or default_jobs()
    where = f"the Dask cluster at {scheduler}" if scheduler else f"{jobs} processes"
    stream.write(f"fcsim validate: {len(claims)} claims, {len(points)} simulations "
                 f"on {where}\n")
    results = run_points(points, jobs, Progress(len(points), stream), store, scheduler)
    outcomes = [outcome(c, _judge(c, results)) for c in claims]
    meta = {"fcsim version": __version__,
            "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "claims": len(claims), "simulations": len(points), "processes": scheduler or jobs,
            "wall time": f"{time.monotonic() - started:.0f} s",
            "simulation processor time": f"{sum(r['cpu_s'] for r in results.values()):.0f} s"}
    return outcomes, meta


def _judge(claim: Claim, results: Results) -> Verdict:
    """The claim's verdict; a run that gave no figure fails the claim, saying which."""
    try:
        return CHECKS[claim.id].judge(results)
    except NoFigure as error:
        return Verdict("-", "fails", f"no simulated figure: {error}")


def finish(outcomes: list[dict[str, Any]], meta: dict[str, Any], report: Path,
           out: TextIO = sys.stdout, record: bool = False, readme: Path | None = None) -> int:
    """Print the table, write the report folder, optionally record statuses and
    refresh the README table; the exit status (1 on a regression)."""
    out.write(table_text(outcomes) + "\n")
    write_report(report, outcomes, meta)
    out.write(f"report: {report / 'index.html'}\n")
    if record:
        record_statuses({o["id"]: o["status"] for o in outcomes})
        out.write("recorded these statuses in validation/claims.toml\n")
    if readme is not None and update_readme(readme, readme_table(outcomes)):
        out.write(f"updated the table in {readme}\n")
    lost = regressions(outcomes)
    if lost:
        out.write(f"regression: recorded as passing, now failing: {', '.join(lost)}"
                  + (" (recorded as failing now)\n" if record else "\n"))
    return 1 if lost and not record else 0
