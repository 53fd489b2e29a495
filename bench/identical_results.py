"""Are the results of every example and every validation point unchanged?

A change that only restructures the code must leave every result exactly as it
was. ``record FILE`` runs every example scenario (``scenarios/*.toml``, all its
repetitions and sweep points, as ``fcsim run`` does) and every simulation point
of ``fcsim validate`` (its whole results, links and ports included), and writes
one line per run: its name and the SHA-256 of its results as canonical JSON
(sorted keys, floats as Python prints them, so a difference in the last bit
shows; the project folder's path written as ``<project>``, so checkouts in
different folders compare). ``compare FILE`` runs them again and prints every run whose results
differ, then the count of runs compared and of those that differ; its exit
status is 1 if any differs or is missing. ``--only examples|points`` narrows
either to one kind; ``--jobs N`` sets the worker processes (default: all cores).

Usage: python bench/identical_results.py record|compare FILE [--only KIND] [--jobs N]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from contextlib import closing
from pathlib import Path
from typing import Any

from fcsim.resources import DATA_ROOT
from fcsim.runner import run_scenario
from fcsim.scenario.loader import load_scenario
from fcsim.validation.checks import CHECKS
from fcsim.validation.points import Point, simulate
from fcsim.workers import default_jobs, run_unordered

Run = tuple[str, Any]
"""A run to make: ("example", scenario path) or ("point", validation point)."""


def runs(only: str | None) -> list[Run]:
    """Every example scenario and every validation point, in a fixed order."""
    todo: list[Run] = []
    if only in (None, "examples"):
        todo += [("example", str(path))
                 for path in sorted((DATA_ROOT / "scenarios").glob("*.toml"))]
    if only in (None, "points"):
        todo += [("point", point)
                 for point in sorted({p for check in CHECKS.values() for p in check.points()})]
    return todo


def name(run: Run) -> str:
    """A run's name in the record: the example's file name or the point's fields."""
    kind, what = run
    if kind == "example":
        return f"example {Path(what).name}"
    assert isinstance(what, Point)
    return f"point {what!r}"


def digest(run: Run) -> str:
    """SHA-256 of *run*'s results as canonical JSON (the version string left out)."""
    kind, what = run
    if kind == "example":
        out = run_scenario(load_scenario(Path(what)))
        out.pop("fcsim_version", None)
    else:
        out = simulate(what)
    # the folder the project sits in is not a result: a checkout elsewhere gives the same
    text = json.dumps(out, sort_keys=True, default=repr).replace(str(DATA_ROOT), "<project>")
    return hashlib.sha256(text.encode()).hexdigest()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("record", "compare"))
    parser.add_argument("file", type=Path)
    parser.add_argument("--only", choices=("examples", "points"))
    parser.add_argument("--jobs", type=int, default=default_jobs())
    args = parser.parse_args()
    todo = runs(args.only)
    before: dict[str, str] = {}
    if args.action == "compare":
        for line in args.file.read_text().splitlines():
            key, _, value = line.rpartition(" ")
            before[key] = value
    started = time.monotonic()
    got: dict[str, str] = {}
    with closing(run_unordered(digest, todo, args.jobs)) as finished:
        for run, value in finished:
            got[name(run)] = value
            if len(got) % 50 == 0:
                print(f"{len(got)} of {len(todo)} runs, {time.monotonic() - started:.0f} s",
                      file=sys.stderr)
    if args.action == "record":
        args.file.write_text("".join(f"{key} {got[key]}\n" for key in sorted(got)))
        print(f"recorded {len(got)} runs in {time.monotonic() - started:.0f} s")
        return 0
    differ = [key for key in sorted(got) if before.get(key) != got[key]]
    for key in differ:
        print(f"differs: {key}" if key in before else f"not in the record: {key}")
    print(f"compared {len(got)} runs ({sum(k.startswith('example') for k in got)} examples, "
          f"{sum(k.startswith('point') for k in got)} validation points): "
          f"{len(differ)} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
