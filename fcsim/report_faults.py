"""The incident report of a run with faults, for the readable summary: per
fault what happened, when it was noticed and by whom, when service was back,
what was lost and sent again, the throughput before, during and after, and
the ports' and the fabric's timeline; then the ports that suffered."""

from __future__ import annotations

from typing import Any

from fcsim.report_totals import FEW
from fcsim.units import format_bytes_rate, format_size, format_time


def fault_lines(first: dict[str, Any]) -> list[str]:
    """The incident report of repetition *first* (none without faults)."""
    faults = first.get("faults")
    if not faults:
        return []
    lines = ["incidents (first repetition)"]
    records = faults["schedule"]
    for number, record in enumerate(records, 1):
        lines += _incident(number, record)
        earlier = next((i for i, r in enumerate(records[:number - 1], 1)
                        if record["events"] and set(record["events"]) <= set(r["events"])), None)
        if earlier is not None:
            lines.append(f"       (state changes as under #{earlier})")
        else:
            lines += [f"       {event}" for event in record["events"]]
    lines += _ports(faults["ports"])
    lines += [f"  {name}: dropped {d['sequences']} upper-layer sequence(s), "
              f"{format_size(d['bytes'])}, while its link was down"
              for name, d in faults.get("dropped_while_down", {}).items()]
    lines += [f"  repeating fault #{p['fault'] + 1} ({p['label']}): {p['occurrences']} "
              f"occurrence(s), {p['skipped']} skipped while the previous lasted"
              for p in faults.get("processes", ())]
    lines += _sequences(faults.get("sequences", {}))
    fabric = faults.get("fabric")
    if fabric:
        lines.append(f"  fabric: routes computed again {len(fabric['reroutes'])} time(s), "
                     f"{fabric['frames_lost']} frames lost in switches "
                     f"({format_size(fabric['payload_lost_bytes'])}), "
                     f"{fabric['rscn_sent']} RSCN sent")
        if fabric["sw_rscn_sent"] or fabric["rscn_queries"]:
            lines.append(f"  RSCNs: {fabric['sw_rscn_sent']} SW_RSCN between switches, "
                         f"{fabric['rscn_queries']} name-server queries and "
                         f"{fabric['rscn_logins']} PLOGIs after them")
    return [*lines, ""]


def _incident(number: int, r: dict[str, Any]) -> list[str]:
    at = r["at_s"]
    lines = [f"  #{number} {r['kind']} of {r['target']} at {format_time(at)}"]
    if r["detected_s"] is not None:
        lines.append(f"     detected at {format_time(r['detected_s'])} "
                     f"(+{format_time(r['detected_s'] - at)}): {r['detection']}")
    back = r["links_back_s"]
    if r["recovered_s"] is None:
        lines.append("     not recovered by the end of the run" + (
            "" if back is None else
            f": ports and logins back at {format_time(back)}, FSPF not converged"))
    else:
        lines.append(f"     service restored at {format_time(r['recovered_s'])} "
                     f"({r['recovery']}): {format_time(r['time_to_recover_s'])} after the "
                     "fault")
        if back < r["recovered_s"]:
            lines.append(f"     ports and logins back at {format_time(back)}; FSPF converged "
                         f"{format_time(r['recovered_s'] - back)} later")
    lines.append(f"     lost {r['frames_lost']} frame(s), "
                 f"{format_size(r['payload_lost_bytes'])} of payload; "
                 f"{r['frames_errored']} frame(s) dropped with errors; "
                 f"{format_size(r['bytes_retransmitted'])} sent again")
    rates = r["throughput_bytes_per_s"]
    lines.append("     throughput " + ", ".join(
        f"{when} {'-' if rates[when] is None else format_bytes_rate(rates[when])}"
        for when in ("before", "during", "after")))
    return lines


def _ports(ports: dict[str, dict[str, Any]]) -> list[str]:
    """A line per port that failed, reset, lost something or was not Active:
    the :data:`FEW` longest not Active."""
    hit = [(name, p) for name, p in ports.items()
           if p["failures"] or p["resets"] or p["frames_lost"] or p["r_rdy_lost"]
           or p["down_time"]]
    hit.sort(key=lambda item: -item[1]["down_time"])
    lines = [f"  port {name}: {p['failures']} link failure(s), {p['resets']} link reset(s), "
             f"{p['timeouts']} protocol timeout(s), not Active {format_time(p['down_time'])}, "
             f"lost {p['frames_lost']} frame(s) and {p['r_rdy_lost']} R_RDY(s); now {p['state']}"
             + _credit_recovery(p.get("bb_credit_recovery"))
             for name, p in hit[:FEW]]
    if len(hit) > FEW:
        lines.append(f"  ... and {len(hit) - FEW} more ports (all in --json)")
    return lines


def _credit_recovery(recovery: dict[str, int] | None) -> str:
    """What a port's BB credit recovery did, for its line (empty without it)."""
    if recovery is None:
        return ""
    return (f"; BB_SC_N {recovery['bb_sc_n']}: {recovery['bb_scs_tx']} BB_SCs and "
            f"{recovery['bb_scr_tx']} BB_SCr sent, {recovery['frames_recovered']} lost "
            f"frame(s) and {recovery['credit_recovered']} lost R_RDY(s) recovered")


def _sequences(sequences: dict[str, dict[str, Any]]) -> list[str]:
    """A line per N_Port whose Class 1 or 2 sequences needed recovery."""
    return [f"  {name}: {s['gaps_detected']} sequence gap(s) reported, {s['abts_sent']} ABTS "
            f"sent, {s['sequences_retransmitted']} sequence(s) sent again "
            f"({format_size(s['bytes_retransmitted'])}), {s['given_up']} given up"
            for name, s in sequences.items() if s["abts_sent"] or s["gaps_detected"]]
