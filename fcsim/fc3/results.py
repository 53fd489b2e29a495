"""FC-3 in a run's results: the figures the summary spreads over repetitions,
and the lines of the readable report."""

from __future__ import annotations

from typing import Any

from fcsim.units import format_bytes_rate, format_size

FC3_METRICS = {"hunt_groups": ("exchanges", "refused", "busy", "discarded"),
               "multicast_groups": ("frames_in", "copies", "member_frames_min")}
"""The figures of each kind of alias group that the summary gives (mean, min,
max over repetitions)."""


def fc3_lines(first: dict[str, Any]) -> list[str]:
    """The FC-3 part of the readable summary, from the first repetition."""
    lines = []
    for name, w in first["workloads"].items():
        stripe = w.get("striping")
        if stripe:
            pairs = ", ".join(f"{p['source']} {p['units']} units" for p in stripe["per_pair"])
            lines.append(f"  {name}: striped over {stripe['ports']} N_Port pairs in "
                         f"{format_size(stripe['stripe_unit'])} units ({pairs}); "
                         f"{format_size(stripe['delivered_bytes'])} delivered in order, "
                         f"reorder buffer max {format_size(stripe['reorder_max_bytes'])}, "
                         f"{stripe['abandoned_ius']} IUs abandoned")
    fc3 = first.get("fc3", {})
    for name, g in fc3.get("hunt_groups", {}).items():
        members = ", ".join(f"{m} {v['exchanges']}" for m, v in g["per_member"].items())
        lines.append(f"  hunt group {name} ({g['alias_id']}): {g['exchanges']} exchanges "
                     f"({members}); with every member busy {g['refused']} new exchanges "
                     f"refused, {g['busy']} F_BSY, {g['discarded']} frames discarded")
    for name, g in fc3.get("multicast_groups", {}).items():
        members = ", ".join(f"{m} {v['frames']} ({format_bytes_rate(v['throughput_bytes_per_s'])})"
                            for m, v in g["per_member"].items())
        lines.append(f"  multicast group {name} ({g['alias_id']}): {g['frames_in']} frames in, "
                     f"{g['copies']} copies; frames accepted: {members}")
    return ["FC-3 common services (first repetition)", *lines, ""] if lines else []
