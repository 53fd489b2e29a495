"""The network part of a run's summary: per network its switches and ports (FC),
NICs and switches (Ethernet, Myrinet) or loop, busiest first when there are
many (every one is in ``--json``)."""

from __future__ import annotations

from typing import Any

from fcsim.report_routing import routing_lines
from fcsim.report_totals import FEW, SHOWN, busiest, many, port_totals, switch_totals
from fcsim.units import format_bytes_rate, format_size, format_time


def network_lines(first: dict[str, Any]) -> list[str]:
    """The switches and ports (or NICs) of one network of the first repetition
    (its figures, with its ``topology``)."""
    if first["topology"] == "ethernet":
        return _ethernet_lines(first)
    if first["topology"] == "myrinet":
        return _myrinet_lines(first)
    lines = []
    every = first.get("switches", {})
    large = many(every)  # totals, then fewer switches and outputs each
    switches, note = busiest(every, lambda sw: sw["frames_forwarded"], FEW if large else SHOWN)
    if switches:
        lines += ["", "switches (first repetition)" + note]
        lines += switch_totals(every) if large else []
    for name, sw in switches:
        lines.append(
            f"  {name} (domain {sw['domain']}, {sw['model']}): {sw['frames_forwarded']} frames "
            f"forwarded, {sw['f_bsy']} F_BSY, {sw['f_rjt']} F_RJT, {sw['discarded']} discarded")
        used = {i: q for i, q in sw["output_queues"].items() if q["frames"]}
        outputs, _ = busiest(used, lambda q: q["wait_s"]["mean"],
                             FEW_OUTPUTS if large else OUTPUTS_SHOWN)
        for index, q in outputs:
            wait, length = q["wait_s"], q["length"]
            lines.append(
                f"    output {index}: {q['frames']} frames queued, wait mean "
                f"{format_time(wait['mean'])} p99 {format_time(wait['p99'])} max "
                f"{format_time(wait['max'])}; queue length mean {length['mean']:.2f} "
                f"p99 {length['p99']} max {length['max']} frames")
        if len(used) > len(outputs):
            lines.append(f"    ({len(used) - len(outputs)} more outputs with shorter waits "
                         "in --json)")
    dropped = first.get("zoning", {}).get("dropped")
    if dropped is not None:  # hard zoning
        ports = ", ".join(f"{port} {n}" for port, n in sorted(dropped.items()) if n)
        lines.append(f"  hard zoning: {sum(dropped.values())} frames between unzoned N_Ports "
                     f"dropped at their F_Port" + (f" ({ports})" if ports else ""))
    for port, n in sorted(first.get("npiv", {}).get("fdisc", {}).items()):
        lines.append(f"  NPIV at {port}: {n['accepted']} FDISC logins accepted, "
                     f"{n['refused']} refused (LS_RJT)")
    lines += _congestion_lines(first)
    lines += _cure_lines(first)
    lines += _fpin_lines(first)
    lines += routing_lines(first)
    ports, note = busiest(first["nodes"], lambda n: n["data_frames_tx"] + n["data_frames_rx"],
                          FEW if many(first["nodes"]) else SHOWN)
    lines += ["", "ports (first repetition)" + note]
    lines += port_totals(first) if many(first["nodes"]) else []
    for name, n in ports:
        lines.append(
            f"  {name} ({n['port_id']}): data {n['data_frames_tx']} tx / {n['data_frames_rx']} rx, "
            f"ACK {n['acks_tx']} tx / {n['acks_rx']} rx, busy {n['busy_tx']} tx / "
            f"{n['busy_rx']} rx, reject {n['reject_tx']} tx / {n['reject_rx']} rx, "
            f"dropped {n['dropped_frames']}, discarded {n['discarded_frames']}, "
            f"connections {n['connections']}")
    if "loop" in first:
        lines += _loop_text(first)
    return lines


def _fpin_lines(first: dict[str, Any]) -> list[str]:
    """The notifications each N_Port received and how throttled initiators
    answered (docs/fpin.md); nothing without ``[fpin]``."""
    view = first.get("fpin")
    if view is None:
        return []
    sent = ", ".join(f"{n} {kind}" for kind, n in sorted(view["sent"].items())) or "none"
    lines = ["", f"fabric notifications (first repetition, whole run): sent {sent}; "
                 f"{view['signals_sent']} congestion signals"]
    for name, events in sorted(view["received"].items()):
        kinds: dict[str, int] = {}
        for event in events:
            kinds[event["kind"]] = kinds.get(event["kind"], 0) + 1
        told = ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items()))
        lines.append(f"  {name} received {told}, first at {format_time(events[0]['time_s'])}, "
                     f"last at {format_time(events[-1]['time_s'])}")
    for name, s in sorted(view["signals_received"].items()):
        lines.append(f"  {name} received {s['warning']} warning and {s['alarm']} alarm "
                     f"signals, {format_time(s['first_s'])} to {format_time(s['last_s'])}")
    for name, t in sorted(first.get("throttles", {}).items()):
        if t["falls"]:
            limit = "none" if t["limit"] is None else t["limit"]
            lines.append(f"  {name} throttled: {t['falls']} falls, {t['rises']} rises, lowest "
                         f"limit {t['min_limit']} commands, at the end {limit}; "
                         f"{t['held_back']} commands held back")
    return lines


def _congestion_lines(first: dict[str, Any]) -> list[str]:
    """The switch ports that held traffic back (TxWait over the threshold), the
    culprits and their victims (:mod:`fcsim.fabric.congestion`); nothing if none."""
    view = first.get("congestion")
    if not view or not view["holding_back"]:
        return []
    lines = ["", f"congestion (first repetition; ports with TxWait >= "
                 f"{100 * view['txwait_threshold']:g} % of the interval)"]
    for where in view["holding_back"]:
        at, _, channel = where.partition(" VC ")
        switch, _, index = at.rpartition(":")
        port = first["switches"][switch]["ports"][index]
        tx = port["tx"]
        if channel:  # one virtual channel of an ISL port
            vc = tx["virtual_channels"][int(channel)]
            lines.append(
                f"  {where} -> {port['peer']}: TxWait {100 * vc['txwait_fraction']:.2f} % "
                f"({vc['txwait_2_5us']} x 2.5 us), {vc['credit_zero']} transitions to zero "
                f"credit ({format_time(vc['credit_zero_s'])} at zero), {vc['frames']} "
                f"frames; the link's utilisation {100 * tx['utilisation']:.2f} %")
            continue
        lines.append(
            f"  {where} -> {port['peer']}: TxWait {100 * tx['txwait_fraction']:.2f} % "
            f"({tx['txwait_2_5us']} x 2.5 us), {tx['credit_zero']} transitions to zero "
            f"credit ({format_time(tx['credit_zero_s'])} at zero), utilisation "
            f"{100 * tx['utilisation']:.2f} %, {tx['hold_time_removed']} removed after the "
            "hold time" + (f", {tx['link_resets']} link resets, {tx['frames_lost']} frames lost"
                           if tx.get("link_resets") else ""))
    for culprit in view["culprits"]:
        victims = ", ".join(f"{v['flow']} (at {', '.join(v['shared'])})"
                            for v in culprit["victims"]) or "none"
        spreading = ", ".join(culprit["spreading"]) or "no other port"
        lines.append(f"  culprit: {culprit['device']} behind {culprit['port']} "
                     f"({culprit['kind']}); spreading to {spreading}; victims: {victims}")
    return lines


def _cure_lines(first: dict[str, Any]) -> list[str]:
    """What the fabric's congestion cures did (:mod:`fcsim.fabric.cures`);
    nothing without them."""
    cures = first.get("cures")
    if not cures:
        return []
    lines = ["", "congestion cures (first repetition)"]
    fencing = cures.get("fencing")
    if fencing is not None:
        for fence in fencing["fenced"]:
            lines.append(f"  fenced {fence['port']} ({fence['device']}) at "
                         f"{format_time(fence['at_s'])}: TxWait "
                         f"{100 * fence['txwait_fraction']:.1f} % of the "
                         f"{format_time(fencing['window_s'])} window, {fence['credit_zero']} "
                         "transitions to zero credit")
        if not fencing["fenced"]:
            lines.append("  fencing: no port fenced")
    limit = cures.get("ingress_limit")
    if limit is not None:
        ports: dict[str, int] = {}
        for change in limit["changes"]:
            ports[change["port"]] = ports.get(change["port"], 0) + 1
        for port, count in sorted(ports.items()):
            now = limit["limits"].get(port, 1.0)
            lines.append(f"  ingress limit of {port}: changed {count} times, "
                         + (f"{100 * now:.3g} % of its full rate at the end" if now < 1
                            else "no limit at the end"))
        if not ports:
            lines.append("  ingress limit: no port limited")
    isolation = cures.get("isolation")
    if isolation is not None:
        lines += _isolation_lines(isolation)
    return lines


def _isolation_lines(iso: dict[str, Any]) -> list[str]:
    """Congestion isolation's rule and each of its events (from the run's
    start), from its results *iso*."""
    recover = (f"back under {100 * iso['falling_threshold']:g} %" if iso["recover"]
               else "no automatic recovery")
    lines = [f"  isolation (TxWait read every {format_time(iso['window_s'])}: isolated at "
             f"{100 * iso['rising_threshold']:g} % of it, {recover}):"]
    for event in iso["events"]:
        lines.append(f"    at {format_time(event['time_s'])}: {event['device']} "
                     f"({event['port']}) {event['action']}, TxWait "
                     f"{100 * event['txwait_fraction']:.2f} % of the window")
    if not iso["events"]:
        lines.append("    no device isolated")
    return lines


def _ethernet_lines(first: dict[str, Any]) -> list[str]:
    """Ethernet switches and NICs of the first repetition."""
    lines = []
    switches, note = busiest(first.get("switches", {}), lambda sw: sw["forwarded"])
    if switches:
        lines += ["", "Ethernet switches (first repetition)" + note]
    for name, sw in switches:
        fullest = max(sw["max_queued_bytes"].items(), key=lambda kv: kv[1], default=None)
        lines.append(f"  {name} ({sw['model']}): {sw['forwarded']} frames forwarded, "
                     f"{sw['flooded']} flooded, {sw['tail_drops']} dropped at full outputs, "
                     f"{sw['fcs_errors']} bad FCS"
                     + (f"; fullest output {fullest[0]}: {fullest[1]} bytes" if fullest else ""))
    nics, note = busiest(first["nodes"], lambda n: n["frames_tx"] + n["frames_rx"])
    lines += ["", "NICs (first repetition)" + note]
    for name, n in nics:
        lines.append(f"  {name} ({n['mac']}, MTU {n['mtu']}): {n['frames_tx']} frames tx / "
                     f"{n['frames_rx']} rx, {n['ring_drops']} dropped at a full ring, "
                     f"{n['fcs_errors']} bad FCS"
                     + (f", {n['length_errors']} too long" if n['length_errors'] else ""))
    return lines


def _myrinet_lines(first: dict[str, Any]) -> list[str]:
    """Myrinet switches and NICs of the first repetition."""
    lines = []
    switches, note = busiest(first.get("switches", {}), lambda sw: sw["forwarded"])
    if switches:
        lines += ["", "Myrinet switches (first repetition)" + note]
    for name, sw in switches:
        inputs = sw["inputs"].items()
        fullest = max(inputs, key=lambda kv: kv[1]["max_slack_chars"], default=None)
        stops = sum(i["stops_sent"] for i in sw["inputs"].values())
        lines.append(f"  {name} ({sw['model']}): {sw['forwarded']} packets forwarded, "
                     f"{stops} STOPs sent" + (
                         f"; fullest slack buffer {fullest[0]}: "
                         f"{fullest[1]['max_slack_chars']:.0f} of {sw['slack_chars']} "
                         "characters" if fullest else ""))
    nics, note = busiest(first["nodes"], lambda n: n["packets_tx"] + n["packets_rx"])
    lines += ["", "NICs (first repetition)" + note]
    for name, n in nics:
        lines.append(f"  {name} (address {n['address']}, MTU {n['mtu']}): {n['packets_tx']} "
                     f"packets tx / {n['packets_rx']} rx, {n['ring_drops']} dropped at a "
                     "full transmit queue")
    return lines


OUTPUTS_SHOWN = 5
"""Switch output queues listed per switch at most (the longest mean waits)."""
FEW_OUTPUTS = 2
"""Output queues listed per switch when there are many switches."""


def _loop_text(rep: dict[str, Any]) -> list[str]:
    """The arbitrated-loop part of the summary: the loop, then each loop port."""
    loop = rep["loop"]
    lines = ["", f"loop {loop['name']} (first repetition): {loop['ports']} ports, master "
             f"{loop['master']}, round trip {format_time(loop['round_trip_s'])}, "
             f"{loop['tenancies']} tenancies, held {100 * loop['held_fraction']:.2f} %, "
             f"utilisation {100 * loop['utilisation']:.2f} %, "
             f"{format_bytes_rate(loop['throughput_bytes_per_s'])}",
             "  initialisations: " + ", ".join(
                 f"{format_time(i['duration_s'])} at {format_time(i['start_s'])}"
                 + ("" if i["completed"] else " (cut short)") for i in loop["initialisations"])]
    for name, n in rep["nodes"].items():
        lines.append(
            f"  {name} (AL_PA {n['al_pa']}, {'fair' if n['fair'] else 'unfair'}): "
            f"{n['tenancies']} tenancies won, opened {n['opened']} times, arbitration wait "
            f"{format_time(n['arbitration_wait_s'])}, holding the loop "
            f"{100 * n['hold_fraction']:.2f} %, {n['data_frames_tx']} frames / "
            f"{format_size(n['payload_tx'])} sent, {format_size(n['payload_rx'])} received")
    return lines
