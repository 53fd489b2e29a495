"""The routing part of a fabric run's summary: each ISL trunk's members and
their load, each switch's equal-cost groups (next hops that some destination
domains share) and how evenly their load falls, the least even first when
there are many (every one is in ``--json``, under ``trunks`` and
``routing``)."""

from __future__ import annotations

from statistics import fmean
from typing import Any

from fcsim.report_totals import FEW, SHOWN

DOMAINS_NAMED = 6
"""Destination domains a group's line names before it gives only their count."""
ISLS_NAMED = 8
"""ISLs a group's line lists one by one at most."""


def least_even(groups: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], str]:
    """The groups to list: all in order if at most :data:`SHOWN`, otherwise the
    :data:`FEW` with the largest max/mean, and the note for their heading."""
    if len(groups) <= SHOWN:
        return groups, ""
    shown = sorted(groups, key=lambda g: g["balance"]["max_over_mean"], reverse=True)[:FEW]
    return shown, f": the {FEW} least even of {len(groups)} (all in --json)"


def routing_lines(first: dict[str, Any]) -> list[str]:
    """The equal-cost groups of one fabric's first repetition (nothing when it
    has none)."""
    lines = trunk_lines(first)
    groups = first.get("routing", {}).get("groups", [])
    if not groups:
        return lines
    shown, note = least_even(groups)
    lines += ["", "equal-cost groups (first repetition): utilisation of each ISL direction "
                 "leaving the switch" + note]
    if note:
        ratios = [g["balance"]["max_over_mean"] for g in groups]
        lines.append(f"  all {len(groups)}: max/mean mean {fmean(ratios):.2f}, largest "
                     f"{max(ratios):.2f}")
    for g in shown:
        b, domains = g["balance"], g["domains"]
        plural = "s" if len(domains) > 1 else ""
        towards = (f"domain{plural} " + ", ".join(map(str, domains))
                   if len(domains) <= DOMAINS_NAMED else f"{len(domains)} domains")
        lines.append(
            f"  {g['switch']} ({g['policy']}) to {towards} over {len(g['isls'])} ISLs: "
            f"utilisation min {100 * b['min']:.1f} %, mean {100 * b['mean']:.1f} %, "
            f"max {100 * b['max']:.1f} %; max/mean {b['max_over_mean']:.2f}, cv {b['cv']:.2f}")
        if len(g["isls"]) <= ISLS_NAMED:
            lines.append("    " + ", ".join(f"{m['isl']} {100 * m['utilisation']:.1f} % "
                                           f"({m['share']:.2f} of mean)" for m in g["isls"]))
    return lines


def trunk_lines(first: dict[str, Any]) -> list[str]:
    """Each ISL trunk of one fabric's first repetition: per direction, its
    utilisation, each member's and what its far end's deskew held and lost."""
    trunks = first.get("trunks", {})
    if not trunks:
        return []
    lines = ["", "ISL trunks (first repetition): utilisation of each member, per direction"]
    for name, trunk in trunks.items():
        lines.append(f"  {name}: {len(trunk['members'])} members, master {trunk['master']}")
        for direction, d in trunk["directions"].items():
            members = ", ".join(f"{m} {100 * v['utilisation']:.1f} %"
                                for m, v in d["members"].items())
            lines.append(f"    {direction}: {100 * d['utilisation']:.1f} % ({members}); "
                         f"{d['frames']} frames, {d['deskewed']} held for deskew, "
                         f"{d['lost']} lost")
    return lines
