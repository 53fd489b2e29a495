"""The flow model's run: its figures for a scenario (``fcsim run --model
flow``) and their readable summary."""

from __future__ import annotations

import time
from typing import Any

from fcsim.flow.fabric import flow_fabric
from fcsim.flow.model import results, solve
from fcsim.scenario.model import Scenario
from fcsim.units import format_bytes_rate

LEAVES_OUT = (
    "transients (start-up, logins, anything before the steady state)",
    "credit stalls of bursty or open-loop traffic (every stream saturates)",
    "protocol behaviour (Class 1/2 acknowledgements, busy and reject, recovery, "
    "upper layers)",
)
"""What the flow model leaves out, as the summary says it."""
RATES = {
    "round-robin levels": "max-min fair under the switches' round robin",
    "fluid queues": "the steady rates of the switches' queues stepped in time, where the "
                    "round robin's levels did not settle",
    "plain max-min": "plain max-min: neither the round robin's levels nor the queues' steps "
                     "settled",
}
"""How the summary names where the rates come from (the figures' ``rates``)."""
SHOWN = 20
"""Streams and ISL directions the summary lists (the slowest and the busiest)."""


def flow_run(scenario: Scenario, spread: str = "exact") -> dict[str, Any]:
    """The flow model's figures for *scenario* (one the model accepts), its
    exchanges put on paths as *spread* says (:data:`fcsim.flow.fabric.SPREADS`),
    with the scenario's name and file and the wall time it took, s."""
    started = time.perf_counter()
    figures = results(solve(flow_fabric(scenario, spread)))
    figures["spread"] = spread
    figures["scenario"] = {"name": scenario.name, "file": scenario.source,
                           "topology": scenario.topology}
    figures["wall_time_s"] = time.perf_counter() - started
    figures["leaves_out"] = list(LEAVES_OUT)
    return figures


def flow_summary(figures: dict[str, Any]) -> str:
    """The readable summary of :func:`flow_run`'s *figures*."""
    sc = figures["scenario"]
    streams = figures["streams"]
    lines = [f"{sc['name']}  ({sc['file']}, {sc['topology']})",
             f"flow model: steady rates of {len(streams)} saturating Class 3 stream(s) "
             f"({RATES[figures['rates']]}), exchanges on paths "
             f"{figures['spread']} "
             f"(--spread), computed in {figures['wall_time_s']:.2f} s",
             "It leaves out " + "; ".join(LEAVES_OUT) + ". Use the packet model (without "
             "--model flow) for those, for latency and queueing, and to confirm a design.",
             ""]
    caveated = sorted({c for s in streams.values() for c in s["caveats"]})
    if caveated:
        count = sum(1 for s in streams.values() if s["caveats"])
        lines += [f"WARNING: {count} stream(s) where the switches do something the flow "
                  f"model does not compute ({', '.join(caveated)}; docs/model.md, 'Flow "
                  "model'): their packet-model rates may differ", ""]
    total = figures["total_throughput_bytes_per_s"]
    lines.append(f"total {format_bytes_rate(total)} over {len(streams)} stream(s)")
    order = sorted(streams.items(), key=lambda item: item[1]["throughput_bytes_per_s"])
    lines.append(f"streams (slowest {min(SHOWN, len(order))}): rate, bottleneck")
    for name, s in order[:SHOWN]:
        b = s["bottleneck"]
        lines.append(f"  {name:<20} {s['source']} -> {s['destination']}  "
                     f"{format_bytes_rate(s['throughput_bytes_per_s'])}  "
                     f"{b['kind']} of {b['at']}"
                     + (f" for input {b['input']}" if "input" in b else "")
                     + ("  *" if s["caveats"] else ""))
    isl = figures["isl_utilisation"]
    if isl["directions"]:
        lines += ["", f"ISL utilisation over {isl['directions']} direction(s): mean "
                  f"{isl['mean']:.1%}, max {isl['max']:.1%}; busiest:"]
        busiest = sorted(((d["utilisation"], name) for link in figures["links"].values()
                          if link["isl"] for name, d in link["directions"].items()),
                         reverse=True)
        lines += [f"  {name:<28} {u:.1%}" for u, name in busiest[:SHOWN] if u > 0]
    return "\n".join(lines) + "\n"
