"""The loaded-fabric figures of RD11 (seed 000), from the files
``<experiment>-load-<variant>.toml`` of ``scenarios/rd11`` (other files there
are not figures).

Each experiment gives the figures of the document's section 2 that show it:
the test pair's throughput (Mbit/s) or TCP_RR latency (µs) against the message
size, and for the stream experiments the sender's processor use (netperf
``-c``, %) and, for the sender-side writes, the time per send() call (µs),
the document's "overhead" (figures 7-10 and 12-15). The document's own
definition of overhead is in an image that the text does not keep; the
figures read it as the sender-side time of one send() call, which is what a
user-level measurement on the sender can see (:mod:`fcsim.apps.netperf`).
One line per load variant (``none``, ``large-1``, ``large-2``, ``small-1``,
``small-2``, ...), with min/max error bars over the repetitions.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from fcsim.scenario.loader import load_scenario
from fcsim.validation.figures import (
    FigurePlan,
    Grid,
    Series,
    netperf_metric,
    repetition_values,
    scenario_files,
)
from fcsim.validation.plots import METRICS, degradation_figure, size_label
from fcsim.validation.points import Point, swept_workload

LOADS = {"none": "no load", "large-1": "1 large-message load pair",
         "large-2": "2 large-message load pairs", "small-1": "1 small-message load pair",
         "small-2": "2 small-message load pairs"}
"""Load variants (file name suffixes after ``-load-``) and their legend labels,
in legend order; other variants follow, labelled by their suffix."""

TITLES = {"mem-stream": "From memory to memory: Throughput",
          "mem-rr": "From memory to memory: Communication latency",
          "send-small": "Throughput (small messages)",
          "send-large": "Throughput (large messages)"}
"""The document's caption of each experiment's first figure, in the document's
order; other experiments follow, captioned with their name and metric."""

MORE = {"mem-stream": (("cpu", "CPU (From memory to memory)"),),
        "send-small": (("overhead", "Overhead (small messages)"),
                       ("cpu", "CPU (small messages)")),
        "send-large": (("overhead", "Overhead (large messages)"),
                       ("cpu", "CPU (large messages)"))}
"""The document's further figures of an experiment's runs: metric and caption
(figures 7 left, 8, 9 right and 10 for the first load; 12-15 for the second)."""

_METRIC_WORDS = {"throughput": "Throughput", "latency": "Communication latency"}


def plan_rd11(folder: Path, grid: Grid, experiments: Sequence[str] | None) -> list[FigurePlan]:
    """The figures of each experiment of the files in *folder*: ``<experiment>.png``
    and one ``<experiment>-<metric>.png`` per further figure (:data:`MORE`)."""
    groups: dict[str, dict[str, Path]] = {}
    for path in scenario_files(folder, "*-load-*.toml", "rd11"):
        experiment, variant = path.stem.rsplit("-load-", 1)
        groups.setdefault(experiment, {})[variant] = path
    if experiments is not None:
        unknown = [name for name in experiments if name not in groups]
        if unknown:
            raise ValueError(f"experiment {', '.join(unknown)} has no files in {folder}; "
                             f"allowed: {', '.join(sorted(groups))}")
        groups = {name: paths for name, paths in groups.items() if name in experiments}
    order = list(LOADS)
    plans = []
    known = [name for name in TITLES if name in groups]
    for experiment in known + sorted(set(groups) - set(known)):
        variants = sorted(groups[experiment],
                          key=lambda v: (order.index(v) if v in order else len(order), v))
        series, metrics = [], set()
        for variant in variants:
            path = groups[experiment][variant]
            scenario = load_scenario(path)
            workload = swept_workload(scenario, path)
            metrics.add(netperf_metric(workload))
            label = LOADS.get(variant, variant)
            sockets = grid.sockets_of(workload, path)
            for socket in sockets:
                text = f"{label}, socket {size_label(socket)}" if len(sockets) > 1 else label
                series.append(Series(text, workload.name,
                                     grid.points(path, scenario, workload, (socket,))))
        if len(metrics) > 1:
            raise ValueError(f"RD11 experiment {experiment}: its files mix TCP_RR and "
                             "stream tests")
        metric = metrics.pop()
        caption = TITLES.get(experiment, f"{experiment}: {_METRIC_WORDS[metric]}")
        plans.append(FigurePlan(f"{experiment}.png", f"RD11 loaded fabric – {caption}",
                                metric, tuple(series)))
        for more, caption in MORE.get(experiment, ()) if metric == "throughput" else ():
            plans.append(FigurePlan(f"{experiment}-{more}.png",
                                    f"RD11 loaded fabric – {caption}", more, tuple(series)))
    return plans


def draw_rd11(plan: FigurePlan, results: dict[Point, dict[str, Any]], out: Path) -> None:
    """Write *plan*'s figure to *out*: its metric against the message size, a line
    per series with min/max bars over the repetitions."""
    ylabel, scale = METRICS[plan.metric]
    series = []
    for entry in plan.series:
        values = repetition_values(entry, results, plan.metric)
        keys = sorted(values, key=lambda key: key[1])
        series.append({"label": entry.label, "x": [size for _socket, size in keys],
                       "values": [[None if v is None else scale * v for v in values[key]]
                                  for key in keys]})
    degradation_figure(series, plan.title, "Message size (bytes)", ylabel, out,
                       label=lambda x: size_label(int(x)))
