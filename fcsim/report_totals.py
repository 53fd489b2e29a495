"""The summary of a large run: totals, then the few entries worth reading.

When a run has more workloads, links, switches or N_Ports than
:data:`~fcsim.report_networks.SHOWN`, the summary gives their totals and lists
only the slowest workloads, the busiest inter-switch links and links to
N_Ports, the busiest switches and the slowest logins; ``--json`` keeps every
entry. Runs with fewer are summarised entry by entry as before."""

from __future__ import annotations

from collections.abc import Callable
from statistics import fmean
from typing import Any

from fcsim.units import format_bytes_rate, format_time

SHOWN = 20
"""Links, switches or ports the summary lists at most; the JSON has them all."""
FEW = 10
"""Entries listed per group (inter-switch links, N_Port links, switches) in a
large run's summary."""
LOGINS_SHOWN = 5
"""Slowest logins named in a large fabric's summary."""


def busiest(entries: dict[str, Any], load: Callable[[Any], float], most: int = SHOWN,
             ) -> tuple[list[tuple[str, Any]], str]:
    """The entries to list and a note for their heading: all *entries* in order
    if at most *most*, otherwise the *most* busiest by *load*."""
    if len(entries) <= most:
        return list(entries.items()), ""
    shown = sorted(entries.items(), key=lambda item: load(item[1]), reverse=True)[:most]
    return shown, f": the {most} busiest of {len(entries)} (all in --json)"


def many(entries: dict[str, Any]) -> bool:
    """Whether *entries* are too many to list one by one."""
    return len(entries) > SHOWN


def slowest_workloads(results: dict[str, Any]) -> tuple[list[str], str, list[str]]:
    """The names of the workloads to list (the slowest by mean throughput),
    the note for their heading and a totals line."""
    summary = results["summary"]
    names = list(results["repetitions"][0]["workloads"])
    rates = {name: summary[name]["throughput_bytes_per_s"]["mean"] for name in names}
    shown = sorted(names, key=lambda name: rates[name])[:FEW]
    values = list(rates.values())
    total = (f"  all {len(names)}: {format_bytes_rate(sum(values))} in all; per workload min "
             f"{format_bytes_rate(min(values))}, mean {format_bytes_rate(fmean(values))}, "
             f"max {format_bytes_rate(max(values))}")
    return shown, f": the {FEW} slowest of {len(names)} (all in --json)", [total]


def _switch_names(first: dict[str, Any]) -> set[str]:
    networks = first.get("networks", {"": first})
    return {name for rep in networks.values() for name in rep.get("switches", {})}


def _is_isl(link: dict[str, Any], switches: set[str]) -> bool:
    """A link whose both ends are switch ports ``switch:port``."""
    direction = next(iter(link["directions"]), "")
    return all(end.partition(":")[0] in switches for end in direction.split("->"))


def _peak(link: dict[str, Any]) -> float:
    return max((d["utilisation"] for d in link["directions"].values()), default=0.0)


def link_groups(first: dict[str, Any], show: Callable[[str, dict[str, Any]], list[str]],
                ) -> list[str]:
    """The links of a large run: totals of the inter-switch links and of the
    other links, then the :data:`FEW` busiest of each, each written by *show*."""
    switches = _switch_names(first)
    isls = {n: link for n, link in first["links"].items() if _is_isl(link, switches)}
    others = {n: link for n, link in first["links"].items() if n not in isls}
    lines = ["", f"links (first repetition): {len(first['links'])} (all in --json)"]
    groups = (("inter-switch links", isls), ("links to N_Ports and hosts", others))
    for label, group in groups:
        if group:
            peaks = [_peak(link) for link in group.values()]
            frames = sum(d["frames"] for link in group.values()
                         for d in link["directions"].values())
            lines.append(f"  {label}: {len(group)}, {frames} frames; utilisation of the "
                         f"busier direction mean {100 * fmean(peaks):.2f} %, max "
                         f"{100 * max(peaks):.2f} %")
    for label, group in groups:
        shown, note = busiest(group, _peak, FEW)
        if shown:
            lines += ["", f"{label} (first repetition){note}"]
            for name, link in shown:
                lines += show(name, link)
    return lines


def switch_totals(switches: dict[str, Any]) -> list[str]:
    """One line of the totals over many *switches*."""
    total = {key: sum(sw[key] for sw in switches.values())
             for key in ("frames_forwarded", "f_bsy", "f_rjt", "discarded")}
    return [f"  all {len(switches)}: {total['frames_forwarded']} frames forwarded, "
            f"{total['f_bsy']} F_BSY, {total['f_rjt']} F_RJT, {total['discarded']} discarded"]


def port_totals(first: dict[str, Any]) -> list[str]:
    """Totals over many N_Ports, and their logins: when the last one was
    done, the mean, and the slowest."""
    nodes = first["nodes"]
    total = {key: sum(n[key] for n in nodes.values()) for key in (
        "data_frames_tx", "data_frames_rx", "dropped_frames", "discarded_frames")}
    lines = [f"  all {len(nodes)}: data {total['data_frames_tx']} tx / "
             f"{total['data_frames_rx']} rx, dropped {total['dropped_frames']}, discarded "
             f"{total['discarded_frames']}"]
    logins = first.get("login_s", {})
    done = {name: t for name, t in logins.items() if t is not None}
    if done and max(done.values()) > 0:
        slow = sorted(done, key=lambda name: done[name], reverse=True)[:LOGINS_SHOWN]
        lines.append(
            f"  logins: {len(done)} of {len(logins)} done, mean {format_time(fmean(done.values()))}"
            f", last {format_time(done[slow[0]])}; slowest "
            + ", ".join(f"{name} {format_time(done[name])}" for name in slow))
    return lines
