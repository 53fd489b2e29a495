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

Figure 16 shows the other side: "the degradation that has been reported on
the load communications, versus the duration of the test, according to the
type of test that was running in parallel", the load's throughput (left) and
overhead (right). It is drawn from the same runs: the small-message load
(``load1`` of the ``*-load-small-1`` files, the one load pair the document
ran with four workstations) while each experiment's test sweeps its message
sizes, each run for the test's length in turn, so that the x axis is the
time since the sweep began; a line per experiment, and the load alone
(``load-small-1-alone.toml``) as a flat line for reference. The text does not
keep the figure, so this reading of its axis is the figures' own.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from fcsim.scenario.loader import load_scenario
from fcsim.validation.figure_plan import (
    FigurePlan,
    Grid,
    Series,
    netperf_metric,
    point_path,
    repetition_values,
    scenario_files,
)
from fcsim.validation.plots import METRICS, degradation_figure, size_label
from fcsim.validation.points import Point, scenario_file, swept_workload

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

LOAD = "small-1"
"""The load variant of figure 16: the small-message load the document ran."""
LOAD_FIGURES = (("throughput", "Throughput on the load"), ("overhead", "Overhead on the load"))
"""Figure 16's two panels: metric and caption."""
BESIDE = {"mem-stream": "beside the memory-to-memory stream",
          "mem-rr": "beside the latency test",
          "send-small": "beside small-message writes",
          "send-large": "beside large-message writes"}
"""Figure 16's legend: the test running beside the load, by experiment."""


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
    return plans + _load_plans(folder, grid, groups, known + sorted(set(groups) - set(known)))


def _load_plans(folder: Path, grid: Grid, groups: dict[str, dict[str, Path]],
                experiments: list[str]) -> list[FigurePlan]:
    """Figure 16's two panels: the :data:`LOAD` pair's ``load1`` during each
    experiment's sweep, and alone; none if the folder has no such files."""
    series = []
    for experiment in experiments:
        path = groups[experiment].get(LOAD)
        if path is None:
            continue
        scenario = load_scenario(path)
        workload = swept_workload(scenario, path)
        label = BESIDE.get(experiment, f"beside {experiment}")
        series.append(Series(label, "load1", grid.points(path, scenario, workload)))
    alone = folder / f"load-{LOAD}-alone.toml"
    if not series or not alone.is_file():
        return []
    repetitions = grid.repetitions or load_scenario(alone).run.repetitions
    name = point_path(alone)
    series.append(Series("no test beside it", "load1",
                         tuple(Point(name, repetition=r, length=grid.length)
                               for r in range(repetitions))))
    return [FigurePlan(f"load-{LOAD}-{metric}.png", f"RD11 loaded fabric – {caption}", metric,
                       tuple(series), x="duration") for metric, caption in LOAD_FIGURES]


def draw_rd11(plan: FigurePlan, results: dict[Point, dict[str, Any]], out: Path) -> None:
    """Write *plan*'s figure to *out*: its metric against the message size (or,
    for figure 16, the time since the test's sweep began), a line per series
    with min/max bars over the repetitions."""
    if plan.x == "duration":
        _draw_load(plan, results, out)
        return
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


def _draw_load(plan: FigurePlan, results: dict[Point, dict[str, Any]], out: Path) -> None:
    """Figure 16: each series' values at the end of each message size's run, the
    sizes in the order the test sweeps them, each run as long as the test; a
    series of one unswept file (the load alone) drawn flat across them."""
    ylabel, scale = METRICS[plan.metric]
    series, ends = [], [0.0]
    for entry in plan.series:
        values = repetition_values(entry, results, plan.metric)
        scaled = {key: [None if v is None else scale * v for v in reps]
                  for key, reps in values.items()}
        if list(scaled) == [(None, None)]:  # the load alone: no sweep
            series.append({"label": entry.label, "flat": scaled[(None, None)]})
            continue
        point = entry.points[0]
        workload = swept_workload(scenario_file(point.scenario), Path(point.scenario))
        length = point.length or workload.options.length
        order = list(workload.send_sizes)
        keys = sorted(scaled, key=lambda key: order.index(key[1]))
        x = [(order.index(size) + 1) * length for _socket, size in keys]
        ends += x
        series.append({"label": entry.label, "x": x, "values": [scaled[k] for k in keys]})
    span = (min(ends), max(ends))
    for entry in series:
        if "flat" in entry:
            entry["x"], entry["values"] = list(span), [entry.pop("flat")] * 2
    degradation_figure(series, plan.title, "Duration of the test (s)", ylabel, out,
                       xlog=False)
