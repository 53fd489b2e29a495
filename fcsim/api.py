"""fcsim from Python and notebooks: open a scenario, change values, run, tabulate.

::

    from fcsim.api import Study

    study = Study("scenarios/p2p-long-link-credit.toml")
    study.set("links[0].length", "50 km")        # checked as the file would be
    results = study.run()                         # the JSON results, as a dict
    table = study.table(results)                  # pandas DataFrame, a row a figure
    lengths = study.sweep("links[0].length", ["1 km", "10 km", "50 km"])

A key path names a value of the scenario file as it is written:
``run.duration``, ``links[0].length``, ``workloads[1].send_size``. A changed
document is checked by the scenario loader exactly as a file is, so a bad
value is refused with the loader's own one-line message naming the file and
the key path. Tables need pandas (``pip install 'fcsim[notebook]'``).
"""

from __future__ import annotations

import copy
import os
import re
from typing import Any

from fcsim.runner import run_scenario
from fcsim.scenario.loader import read_document, scenario_from_document
from fcsim.scenario.model import Scenario

_STEP = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)((?:\[\d+\])*)")


class KeyPathError(ValueError):
    """A key path that names nothing in the scenario document; one line."""


def _steps(path: str) -> list[str | int]:
    """``links[0].length`` -> ["links", 0, "length"]."""
    steps: list[str | int] = []
    for part in path.split("."):
        match = _STEP.fullmatch(part)
        if match is None:
            raise KeyPathError(f"{path!r} is not a key path such as 'links[0].length'")
        steps.append(match[1])
        steps += [int(index) for index in re.findall(r"\[(\d+)\]", match[2])]
    return steps


class Study:
    """The scenario file *path*, opened to change values, run and tabulate."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.file = os.fspath(path)
        self.document = read_document(path)
        self.scenario: Scenario = scenario_from_document(self.document, self.file)

    def set(self, path: str, value: Any) -> Study:
        """Give the value at key *path* (see the module docstring) *value*, as it
        would be written in the file (``"50 km"``, ``4``, ``["1 B", "2 KiB"]``);
        the whole scenario is checked again. Returns the study, changed."""
        document = copy.deepcopy(self.document)
        steps = _steps(path)
        where: Any = document
        for done, step in enumerate(steps[:-1]):
            nxt = steps[done + 1]
            try:
                where = where[step]
            except (KeyError, IndexError, TypeError):
                if isinstance(step, str) and isinstance(where, dict) and isinstance(nxt, str):
                    where = where.setdefault(step, {})
                    continue
                raise KeyPathError(f"{self.file}: {path}: no such table or entry") from None
        last = steps[-1]
        if isinstance(last, int):
            if not isinstance(where, list) or last >= len(where):
                raise KeyPathError(f"{self.file}: {path}: no such entry")
        elif not isinstance(where, dict):
            raise KeyPathError(f"{self.file}: {path}: not a table")
        where[last] = value
        self.scenario = scenario_from_document(document, self.file)
        self.document = document
        return self

    def copy(self) -> Study:
        """An independent copy of the study."""
        return copy.deepcopy(self)

    def run(self) -> dict[str, Any]:
        """Run every repetition (and sweep point) of the scenario: the results as
        ``fcsim run --json`` prints them (``docs/results.md``)."""
        return run_scenario(self.scenario)

    def table(self, results: dict[str, Any] | None = None) -> Any:
        """*results* (default: a new :meth:`run`) as a pandas DataFrame with one
        row per figure: columns ``socket`` and ``send_size`` (netperf sweeps),
        ``seed``, ``kind`` (workload, netperf, iperf), ``name``, ``metric`` and
        ``value`` (SI units, as in the JSON). Without pandas, ImportError before
        anything is simulated."""
        pandas = _pandas()
        results = results if results is not None else self.run()
        rows = []
        for point in results.get("points", [results]):
            where = {key: point[key] for key in ("socket", "send_size") if key in point}
            for rep in point["repetitions"]:
                for kind in ("workloads", "netperf", "iperf"):
                    for name, figures in rep.get(kind, {}).items():
                        rows += [{**where, "seed": rep["seed"], "kind": kind, "name": name,
                                  "metric": metric, "value": value}
                                 for metric, value in figures.items()
                                 if isinstance(value, int | float) and not isinstance(value, bool)]
        return pandas.DataFrame(rows)

    def sweep(self, path: str, values: list[Any]) -> Any:
        """Run the study once per value at key *path*; the :meth:`table` rows of
        every run, with a column named *path* holding the value. Every value is
        checked (and pandas looked for) before anything is simulated."""
        pandas = _pandas()
        studies = [self.copy().set(path, value) for value in values]
        frames = []
        for value, study in zip(values, studies, strict=True):
            frame = study.table()
            frame.insert(0, path, [value] * len(frame))
            frames.append(frame)
        return pandas.concat(frames, ignore_index=True)


def _pandas() -> Any:
    try:
        import pandas
    except ImportError:
        raise ImportError("fcsim's tables need pandas: pip install 'fcsim[notebook]'") from None
    return pandas
