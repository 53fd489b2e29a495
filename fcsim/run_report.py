"""The run report: one self-contained HTML page of a run (``fcsim run FILE --report DIR``).

The page holds the readable summary, the topology drawing and plots over time
of the first repetition (:class:`~fcsim.trace.timeseries.TimeSeries`): link
utilisation per direction, BB credit available, switch output queue lengths
and workload throughput, each switch port's TxWait and transitions to zero
transmit credit (when a port waited for credit: docs/congestion.md) and
each rate-limited F_Port's ingress limit (dynamic ingress rate limiting), the
queue depth of storage targets and block-layer request queues (when the run
has block storage), each multipath path's requests and its state (active,
marginal, failed) over time, then each workload's latency (mean, p50, p99,
max); with fabric notifications (``[fpin]``), when each N_Port received each kind and
how each throttled initiator's limit moved.
Plots are inline SVG; a small script lets the reader zoom a plot (click to
enlarge, click again to restore). Nothing is loaded from the network.
"""

from __future__ import annotations

import html
from io import BytesIO, StringIO
from typing import Any

from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from fcsim.drawing.topology import draw_topology
from fcsim.plot_layout import COLOURS, make_readable
from fcsim.report import summary_text
from fcsim.report_routing import least_even
from fcsim.scenario.model import Scenario
from fcsim.trace.timeseries import TimeSeries

LINES = 12
"""Lines a plot over time shows at most: the busiest."""

SCRIPT = """
window.addEventListener("error", e => { document.body.dataset.scriptError = e.message; });
document.querySelectorAll("figure.plot").forEach(f =>
  f.addEventListener("click", () => f.classList.toggle("zoomed")));
document.body.dataset.rendered = document.querySelectorAll("figure svg").length;
"""
STYLE = """
body { font-family: sans-serif; margin: 2em; max-width: 80em; }
pre { background: #f6f6f6; padding: 1em; overflow-x: auto; font-size: 85%; }
figure.plot { cursor: zoom-in; display: inline-block; width: 48%; margin: 0.5%; }
figure.plot.zoomed { cursor: zoom-out; width: 98%; }
figure svg { width: 100%; height: auto; }
table.groups { border-collapse: collapse; font-size: 90%; }
table.groups td, table.groups th { border: 1px solid #ccc; padding: 0.2em 0.5em;
  text-align: right; }
table.groups td:first-child, table.groups th:first-child { text-align: left; }
"""


def _svg(fig: Figure) -> str:
    out = StringIO()
    fig.savefig(out, format="svg")
    text = out.getvalue()
    return text[text.index("<svg"):]


def _plot(title: str, ylabel: str, time: list[float], lines: dict[str, list[float]],
          empty: str = "none in this run") -> str:
    """A plot over time of the *lines* (the :data:`LINES` with the largest peak);
    *empty* says why there are none."""
    fig = Figure(figsize=(7, 3.6), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    busiest = sorted(lines.items(), key=lambda item: max(item[1], default=0), reverse=True)
    for k, (name, values) in enumerate(busiest[:LINES]):  # colours repeat after ten
        ax.plot([t * 1e3 for t in time], values, label=name, linewidth=1,
                linestyle="-" if k < COLOURS else "--")
    ax.set_title(title + (f" ({LINES} of {len(lines)} shown)" if len(lines) > LINES else ""))
    ax.set_xlabel("simulated time (ms)")
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    if not busiest:
        _nothing(ax, empty)
    make_readable(fig, ax, "x-small")
    return _svg(fig)


NO_SEQUENCES = "no FC-2 sequence workloads (block jobs: see the summary)"
"""What the throughput and latency plots say when the run has none to draw."""


def _nothing(ax: Axes, why: str) -> None:
    """Say on an empty plot *why* the run has nothing to draw there."""
    ax.text(0.5, 0.5, why, transform=ax.transAxes, ha="center", va="center", color="gray")


def _latency(results: dict[str, Any]) -> str:
    """Bars of each workload's latency figures, first repetition, in microseconds."""
    fig = Figure(figsize=(7, 3.6), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    workloads = results["repetitions"][0]["workloads"] if "repetitions" in results else {}
    names = [n for n, w in workloads.items() if w["latency_s"]["mean"] is not None]
    for k, figure in enumerate(("mean", "p50", "p99", "max") if names else ()):
        values = [workloads[n]["latency_s"][figure] * 1e6 for n in names]
        ax.bar([i + 0.2 * k for i in range(len(names))], values, width=0.2, label=figure)
    ax.set_xticks([i + 0.3 for i in range(len(names))], names, fontsize="small")
    ax.set_ylabel("latency (µs)")
    ax.set_title("Sequence latency, hand-over to FC-2 to last frame at the recipient")
    if not names:
        _nothing(ax, NO_SEQUENCES)
    make_readable(fig, ax)
    return _svg(fig)


def _notifications(results: dict[str, Any]) -> list[str]:
    """The FPINs and congestion signals each N_Port received over time and the
    limit of each throttled initiator (docs/fpin.md); none without ``[fpin]``."""
    first = results["repetitions"][0] if "repetitions" in results else {}
    view = first.get("fpin")
    if view is None:
        return []
    fig = Figure(figsize=(7, 3.6), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    names = sorted(set(view["received"]) | set(view["signals_received"]))
    kinds = sorted({e["kind"] for events in view["received"].values() for e in events})
    for kind in kinds:
        points = [(e["time_s"] * 1e3, names.index(n)) for n, events in view["received"].items()
                  for e in events if e["kind"] == kind]
        ax.scatter([t for t, _ in points], [y for _, y in points], s=12, label=kind)
    ax.set_yticks(range(len(names)), names, fontsize="small")
    ax.set_xlabel("simulated time (ms)")
    ax.set_title("FPINs received (signals: counts in the summary)")
    ax.grid(True, alpha=0.3)
    if not kinds:
        _nothing(ax, "no FPIN received in this run")
    make_readable(fig, ax, "x-small")
    plots = [_svg(fig)]
    throttles = {name: t for name, t in first.get("throttles", {}).items() if t["changes"]}
    if throttles:
        fig = Figure(figsize=(7, 3.6), layout="constrained")
        FigureCanvasAgg(fig)
        ax = fig.add_subplot()
        for name, t in sorted(throttles.items()):
            times = [c[0] * 1e3 for c in t["changes"]]
            limits = [float("nan") if c[1] is None else c[1] for c in t["changes"]]
            ax.step(times, limits, where="post", label=name, linewidth=1)
        ax.set_xlabel("simulated time (ms)")
        ax.set_ylabel("commands (gap: no limit)")
        ax.set_title("Throttled initiators' limit on outstanding commands")
        ax.grid(True, alpha=0.3)
        make_readable(fig, ax, "x-small")
        plots.append(_svg(fig))
    return plots


PATH_STATES = (("active", "tab:green"), ("marginal", "tab:orange"), ("failed", "tab:red"))
"""A path's states on the timeline, with their colours: failed over marginal."""


def path_states(device: dict[str, Any], end: float) -> dict[str, list[tuple[float, float, str]]]:
    """Per path of the multipath *device*'s results, its states over [0, *end*] s
    from the device's events: (from s, to s, state), failed from a failure to
    its reinstatement, marginal from an FPIN to the link coming back, active
    otherwise."""
    out = {}
    for name in device["paths"]:
        spans: list[tuple[float, float, str]] = []
        failed = marginal = False
        since = 0.0
        for event in (e for e in device["events"] if e["path"] == name):
            what, at = event["event"], event["time_s"]
            was = "failed" if failed else "marginal" if marginal else "active"
            if what.startswith("failed"):
                failed = True
            elif what.startswith("reinstated"):
                failed = False
            elif what.startswith("marginal"):
                marginal = True
            elif what.startswith("no longer marginal"):
                marginal = False
            now = "failed" if failed else "marginal" if marginal else "active"
            if now != was:
                spans.append((since, at, was))
                since = at
        spans.append((since, end, "failed" if failed else "marginal" if marginal else "active"))
        out[name] = [span for span in spans if span[1] > span[0]]
    return out


def _path_timeline(results: dict[str, Any]) -> list[str]:
    """A timeline of every multipath path's state (docs/multipath.md); none
    without a multipath device."""
    first = results["repetitions"][0] if "repetitions" in results else {}
    devices = first.get("storage", {}).get("multipath", {})
    if not devices:
        return []
    end = results["run"]["duration_s"]
    rows = [(f"{d} {p}", spans) for d, device in sorted(devices.items())
            for p, spans in path_states(device, end).items()]
    fig = Figure(figsize=(7, 1.2 + 0.4 * len(rows)), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    colour = dict(PATH_STATES)
    for y, (_, spans) in enumerate(rows):
        for start, stop, state in spans:
            ax.broken_barh([(start * 1e3, (stop - start) * 1e3)], (y - 0.35, 0.7),
                           color=colour[state])
    for state, c in PATH_STATES:
        ax.bar(0, 0, color=c, label=state)  # the legend's entries
    ax.set_yticks(range(len(rows)), [name for name, _ in rows], fontsize="small")
    ax.set_xlabel("simulated time (ms)")
    ax.set_title("Multipath: each path's state (events in the summary)")
    make_readable(fig, ax, "x-small")
    return [_svg(fig)]


def _groups(results: dict[str, Any]) -> str:
    """A table of the equal-cost groups of the first repetition, each ISL's
    utilisation leaving the switch and how evenly the group's load falls (the
    least even when there are many); empty when the run has none."""
    first = results["repetitions"][0] if "repetitions" in results else {}
    groups = first.get("routing", {}).get("groups", [])
    if not groups:
        return ""
    shown, note = least_even(groups)
    rows = []
    for g in shown:
        b = g["balance"]
        isls = ", ".join(f"{m['isl']} {100 * m['utilisation']:.1f} %" for m in g["isls"])
        rows.append(f"<tr><td>{html.escape(g['switch'])}</td><td>{html.escape(g['policy'])}"
                    f"</td><td>{len(g['domains'])}</td><td>{html.escape(isls)}</td>"
                    f"<td>{100 * b['mean']:.1f} %</td><td>{b['max_over_mean']:.2f}</td>"
                    f"<td>{b['cv']:.2f}</td></tr>")
    return (f"<h2>Equal-cost groups{html.escape(note)}</h2>\n<table class=\"groups\">"
            "<tr><th>switch</th><th>policy</th><th>domains</th><th>ISLs: utilisation "
            "leaving the switch</th><th>mean</th><th>max/mean</th><th>cv</th></tr>"
            + "".join(rows) + "</table>\n")


def topology_svg(scenario: Scenario) -> str:
    """The drawing of *scenario*'s topology for its page, as SVG: made before the
    run (it needs only the scenario), so that a run is not lost to it."""
    topology = BytesIO()
    draw_topology(scenario, topology, ".svg")
    return topology.getvalue().decode()


def _steps(changes: list[tuple[str, float, float]], times: list[float],
           start: float) -> dict[str, list[float]]:
    """Per name, the value at each of *times* of a quantity that is *start*
    until its first change and then steps at each change (name, time s, new
    value; in time order)."""
    lines: dict[str, list[float]] = {}
    for name in sorted({c[0] for c in changes}):
        steps = [(at, value) for n, at, value in changes if n == name]
        value, k, values = start, 0, []
        for t in times:
            while k < len(steps) and steps[k][0] <= t:
                value = steps[k][1]
                k += 1
            values.append(value)
        lines[name] = values
    return lines


def _ingress_limits(results: dict[str, Any], times: list[float]) -> dict[str, list[float]]:
    """Each rate-limited F_Port's ingress limit at each sample time, from the
    first repetition's changes (docs/congestion.md); empty without them."""
    first = results["repetitions"][0] if "repetitions" in results else {}
    changes = first.get("cures", {}).get("ingress_limit", {}).get("changes", [])
    return _steps([(c["port"], c["at_s"], c["limit"]) for c in changes], times, 1.0)


def _isolated(results: dict[str, Any], times: list[float]) -> dict[str, list[float]]:
    """Each device congestion isolation moved, 1 at each sample time it is
    isolated and 0 when not, from the first repetition's events
    (docs/congestion.md); empty without them."""
    first = results["repetitions"][0] if "repetitions" in results else {}
    events = first.get("cures", {}).get("isolation", {}).get("events", [])
    return _steps([(e["device"], e["time_s"], 1.0 if e["action"] == "isolated" else 0.0)
                   for e in events], times, 0.0)


def run_page(scenario: Scenario, results: dict[str, Any], series: TimeSeries,
             drawing: str) -> str:
    """The report page of *scenario*'s *results* with its sampled *series* and
    the *drawing* of its topology (:func:`topology_svg`)."""
    plots = [_plot("Link utilisation per direction", "fraction of time sending", series.time,
                   series.utilisation),
             _plot("BB credit available to each transmitter", "frames", series.time,
                   {k: [float(v) for v in vs] for k, vs in series.credit.items()}),
             _plot("Switch output queue length", "frames", series.time,
                   {k: [float(v) for v in vs] for k, vs in series.queue.items()}),
             _plot("Workload throughput", "throughput (MB/s)", series.time,
                   {k: [v / 1e6 for v in vs] for k, vs in series.throughput.items()},
                   NO_SEQUENCES)]
    waited = {k: vs for k, vs in series.txwait.items() if any(vs)}
    if waited:  # switch ports that waited for credit (congestion, docs/congestion.md)
        plots.append(_plot("TxWait per switch port (frames ready, no transmit credit)",
                           "fraction of each interval", series.time, waited))
        plots.append(_plot("Transitions to zero transmit credit per switch port",
                           "per interval", series.time,
                           {k: [float(v) for v in series.credit_zero[k]] for k in waited}))
    limits = _ingress_limits(results, series.time)
    if limits:
        plots.append(_plot("Ingress limit per F_Port (dynamic ingress rate limiting)",
                           "fraction of the full rate", series.time, limits))
    isolated = _isolated(results, series.time)
    if isolated:
        plots.append(_plot("Devices on the low-priority virtual channel (congestion "
                           "isolation)", "isolated (1) or not (0)", series.time, isolated))
    if series.depth:
        plots.append(_plot("Storage queue depth: target task sets, block request queues",
                           "commands", series.time,
                           {k: [float(v) for v in vs] for k, vs in series.depth.items()}))
    if series.paths:
        plots.append(_plot("Multipath: requests sent down each path", "requests/s",
                           series.time, series.paths))
    plots += _path_timeline(results)
    plots.append(_latency(results))
    plots += _notifications(results)
    figures = "\n".join(f'<figure class="plot">{svg}</figure>' for svg in plots)
    return (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(scenario.name)}: fcsim run report</title>"
            f"<style>{STYLE}</style></head><body>\n"
            f"<h1>{html.escape(scenario.name)}</h1>\n"
            f"<p>{html.escape(scenario.description)}</p>\n"
            f"<h2>Summary</h2>\n<pre>{html.escape(summary_text(results))}</pre>\n"
            f"{_groups(results)}"
            f"<h2>Topology</h2>\n<figure>{drawing[drawing.index('<svg'):]}</figure>\n"
            f"<h2>Over time (first repetition)</h2>\n{figures}\n"
            f"<script>{SCRIPT}</script>\n</body></html>\n")
