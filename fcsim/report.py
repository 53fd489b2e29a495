"""Readable reports of :func:`fcsim.runner.run_scenario` results (the CLI's summary)."""

from __future__ import annotations

from typing import Any

from fcsim.fc3.results import fc3_lines
from fcsim.report_faults import fault_lines
from fcsim.report_networks import network_lines
from fcsim.report_totals import link_groups, many, slowest_workloads
from fcsim.units import format_bytes_rate, format_rate, format_size, format_time


def summary_text(results: dict[str, Any]) -> str:
    """The human-readable report of :func:`fcsim.runner.run_scenario` results."""
    run = results["run"]
    sc = results["scenario"]
    lines = [
        f"{sc['name']}  ({sc['file']}, {sc['topology']})",
        f"simulated {format_time(run['duration_s'])} with {format_time(run['warmup_s'])} "
        f"warm-up, seed {run['seed']}, {run['repetitions']} repetition(s)",
        *_ended(results),
        *_identical(results),
        "",
    ]
    warnings = run_warnings(results)
    if warnings:
        lines += [f"WARNING: {text}" for text in warnings] + [""]
    if "points" not in results:
        lines += _details(results)
    elif "socket" in results["points"][0]:
        lines += netperf_table(results)
    elif "iodepth" in results["points"][0]:
        lines += fio_table(results)
    else:
        lines += iperf_table(results)
    lines = [line for i, line in enumerate(lines) if line or i == 0 or lines[i - 1]]
    return "\n".join(lines) + "\n"


def run_warnings(results: dict[str, Any]) -> list[str]:
    """Every distinct warning of the repetitions (of every sweep point), with the
    repetitions it concerns when not all."""
    reps = [rep for point in results.get("points", [results]) for rep in point["repetitions"]]
    seen: dict[str, list[int]] = {}
    for rep in reps:
        for text in rep["warnings"]:
            seen.setdefault(text, []).append(rep["seed"])
    return [text if len(seeds) == len(reps) else
            f"{text} (seed{'s' if len(seeds) > 1 else ''} {', '.join(map(str, seeds))})"
            for text, seeds in seen.items()]


def _ended(results: dict[str, Any]) -> list[str]:
    """A line saying when repetitions that stopped at a steady state ended."""
    reps = [r for p in results.get("points", [results]) for r in p["repetitions"]]
    ends = [r["ended_s"] for r in reps if "ended_s" in r]
    early = [t for t in ends if t < results["run"]["duration_s"]]
    if not early:
        return []
    return [f"steady-state stopping: {len(early)} of {len(reps)} repetition(s) ended early, "
            f"at {format_time(min(early))} to {format_time(max(early))}"]


def _identical(results: dict[str, Any]) -> list[str]:
    """A line saying when repetitions were not simulated, being the first's."""
    points = results.get("points", [results])
    same = sum(1 for point in points if point.get("identical_repetitions"))
    if not same:
        return []
    which = f" ({same} of {len(points)} points)" if "points" in results else ""
    return [f"repetitions 2-{results['run']['repetitions']} not simulated{which}: the run "
            "draws no random number, so every seed gives the results of repetition 1"]


def netperf_table(results: dict[str, Any]) -> list[str]:
    """A netperf sweep as the table netperf users expect: one row per socket and
    send size, mean [min, max] over the repetitions."""
    points = results["points"]
    first = points[0]["repetitions"][0]["netperf"]
    name = next(n for n in first if n in points[0]["summary"])
    test = first[name]["test"]
    stream = test != "TCP_RR"
    metric = "throughput_mbit_s" if stream else "transactions_per_s"
    unit = "10^6 bits/s" if stream else "transactions/s"
    lines = [f"netperf {test} {name}: {unit}, mean [min, max] over "
             f"{results['run']['repetitions']} repetition(s)",
             f"{'socket':>10} {'send size':>10}  {unit}"]
    for point in points:
        figures = point["summary"][name]
        value = figures.get(metric)
        text = "-" if value is None else (
            f"{value['mean']:10.2f} [{value['min']:.2f}, {value['max']:.2f}]")
        trip = figures.get("round_trip_s")
        if trip:
            text += f"  round trip {format_time(trip['mean'])}"
        lines.append(f"{point['socket']:>10} {point['send_size']:>10}  {text}")
    tests = [r["netperf"][name] for p in points for r in p["repetitions"]]
    return lines + _settled(tests)


def _settled(tests: list[dict[str, Any]]) -> list[str]:
    """A line saying how many netperf *tests* ended at a steady state, if any."""
    early = [t["steady_state"] for t in tests if "steady_state" in t]
    if not early:
        return []
    return [f"{len(early)} of {len(tests)} test(s) settled (steady-state stopping) after "
            f"{format_time(min(e['settled_after_s'] for e in early))} to "
            f"{format_time(max(e['settled_after_s'] for e in early))}, within "
            f"{100 * max(e['relative_half_width'] for e in early):.2f} % at "
            f"{100 * early[0]['confidence']:g} % confidence; the rest of each length "
            "is estimated from the steady rate"]


def fio_table(results: dict[str, Any]) -> list[str]:
    """An fio iodepth sweep: one row per depth, the job's IOPS and bandwidth
    (mean over the repetitions) and the first repetition's latencies."""
    points = results["points"]
    name = next(n for n, job in points[0]["repetitions"][0]["storage"]["jobs"].items()
                if "iodepth" in job and n in points[0]["summary"])
    job = points[0]["repetitions"][0]["storage"]["jobs"][name]
    lines = [f"fio {job['rw']} bs={job['bs']} {name}: IOPS and MB/s the mean over "
             f"{results['run']['repetitions']} repetition(s), latency the first's",
             f"{'iodepth':>8} {'IOPS':>10} {'MB/s':>9} {'mean lat':>10} {'p99 lat':>10}"]
    for point in points:
        figures = point["summary"][name]
        latency = point["repetitions"][0]["storage"]["jobs"][name]["latency_s"]

        def show(value: float | None) -> str:
            return "-" if value is None else format_time(value)
        lines.append(f"{point['iodepth']:>8} {figures['iops']['mean']:>10.0f} "
                     f"{figures['throughput_bytes_per_s']['mean'] / 1e6:>9.1f} "
                     f"{show(latency['mean']):>10} {show(latency['p99']):>10}")
    return lines


def iperf_table(results: dict[str, Any]) -> list[str]:
    """An iperf sweep: one row per window and bandwidth, the mean [min, max]
    over the repetitions of the aggregate throughput, and of the median
    interval report (of the sum of the runs' medians, for a mesh) if any."""
    points = results["points"]
    first = points[0]["repetitions"][0]["iperf"]
    name = next(iter(first))
    udp = first[name]["protocol"] == "UDP"
    lines = [f"iperf {first[name]['protocol']} {name}: 10^6 bits/s, mean [min, max] over "
             f"{results['run']['repetitions']} repetition(s)",
             f"{'window':>10} {'bandwidth':>14}  throughput"]
    for point in points:
        figures = point["summary"][name]
        value = figures["throughput_mbit_s"]
        text = f"{value['mean']:10.2f} [{value['min']:.2f}, {value['max']:.2f}]"
        median = figures.get("sum_of_medians_mbit_s") or figures.get("median_mbit_s")
        if median:
            text += f"  median {median['mean']:.2f}"
        rate = format_rate(point["bandwidth"]) if udp else "-"
        lines.append(f"{point['window']:>10} {rate:>14}  {text}")
    return lines


def _netperf_lines(results: dict[str, Any]) -> list[str]:
    first = results["repetitions"][0]
    lines = []
    for name, run in first.get("netperf", {}).items():
        figures = results["summary"][name]
        if run["test"] in ("TCP_STREAM", "UDP_STREAM"):
            value = figures["throughput_mbit_s"]
            lines.append(f"  {name}: {run['test']} {value['mean']:.2f} 10^6 bits/s "
                         f"[{value['min']:.2f}, {value['max']:.2f}]")
        else:
            rate, trip = figures["transactions_per_s"], figures.get("round_trip_s")
            lines.append(f"  {name}: TCP_RR {rate['mean']:.1f} transactions/s, round trip "
                         f"{format_time(trip['mean']) if trip else '-'}")
        lines += ["  " + line for line in _settled([r["netperf"][name]
                                                     for r in results["repetitions"]])]
    for name, run in first.get("iperf", {}).items():
        value = results["summary"][name]["throughput_mbit_s"]
        lost = f", {run['datagrams_lost']} datagrams lost" if run["protocol"] == "UDP" else ""
        median = (f", median of {len(run['intervals_mbit_s'])} interval reports "
                  f"{run['median_mbit_s']:.2f}" if run.get("median_mbit_s") is not None else "")
        mesh = f" over {len(run['runs'])} client-server pairs" if "runs" in run else ""
        lines.append(f"  {name}: iperf {run['protocol']}{mesh} {value['mean']:.2f} 10^6 bits/s "
                     f"[{value['min']:.2f}, {value['max']:.2f}]{lost}{median}")
    for name, host in first.get("hosts", {}).items():
        lines.append(f"  host {name} ({host['model']}): processor "
                     f"{100 * host['cpu_utilisation']:.1f} % (background "
                     f"{100 * host['background_utilisation']:.1f} %), "
                     + (f"buses {', '.join(f'{100 * u:.1f} %' for u in host['bus_utilisations'])}"
                        if "bus_utilisations" in host
                        else f"bus {100 * host['bus_utilisation']:.1f} %"))
    return ["hosts and their applications", *lines, ""] if lines else []


def _transfer_lines(results: dict[str, Any]) -> list[str]:
    """Relayed transfers: bytes, time and rate (mean over repetitions)."""
    transfers = results["repetitions"][0].get("transfers", {})
    lines = []
    for name, t in transfers.items():
        rate = results["summary"][name]["bytes_per_s"]
        done = (f"{t['bytes']} bytes in {format_time(t['elapsed_s'])}, "
                f"{format_bytes_rate(rate['mean'])} [{format_bytes_rate(rate['min'])}, "
                f"{format_bytes_rate(rate['max'])}]" if t["finished"] and rate else
                f"not finished in the run ({t['bytes']} of {t['size']} bytes moved)")
        steady = results["summary"][name].get("steady_bytes_per_s")
        if steady and steady["mean"] is not None:
            done += (f"; steady {format_bytes_rate(steady['mean'])} in the measured interval "
                     f"[{format_bytes_rate(steady['min'])}, {format_bytes_rate(steady['max'])}]")
        lines.append(f"  {name}: {' -> '.join(t['path'])}, blocks of "
                     f"{format_size(t['block'])}: {done}")
    return ["transfers (mean over repetitions; details of the first)", *lines, ""] if lines \
        else []


def _storage_lines(results: dict[str, Any]) -> list[str]:
    """fio and dd jobs (mean over repetitions), then the targets and initiators."""
    storage = results["repetitions"][0].get("storage")
    if not storage:
        return []
    lines = ["block storage (mean over repetitions; details of the first)"]
    for name, job in storage["jobs"].items():
        figures = results["summary"][name]
        if "direction" in job:
            rate = figures["bytes_per_s"]
            done = (f"{job['bytes']} bytes in {format_time(job['elapsed_s'])}, "
                    f"{format_bytes_rate(rate['mean'])}" if job["finished"] else
                    f"not finished in the run ({job['bytes']} bytes moved)")
            if "throughput_bytes_per_s" in job:  # a Slice dd: also its steady rate
                done += (f"; {format_bytes_rate(figures['throughput_bytes_per_s']['mean'])} "
                         "over the measured interval")
            lines.append(f"  {name}: dd {job['direction']} bs={job['bs']} "
                         f"count={job['count']}: {done}")
            continue
        lat = job["latency_s"]
        latency = ("-" if lat["mean"] is None else
                   f"mean {format_time(lat['mean'])}, p50 {format_time(lat['p50'])}, "
                   f"p99 {format_time(lat['p99'])}"
                   + (f", p99.9 {format_time(lat['p99.9'])}" if "p99.9" in lat else ""))
        lines.append(f"  {name}: fio {job['rw']} bs={job['bs']} iodepth={job['iodepth']} "
                     f"numjobs={job['numjobs']}: {figures['iops']['mean']:.0f} IOPS, "
                     f"{format_bytes_rate(figures['throughput_bytes_per_s']['mean'])}, "
                     f"latency {latency}, {job['errors']} errors")
    for name, t in storage["targets"].items():
        lines.append(f"  target {name} ({t['device']}): utilisation "
                     f"{100 * t['utilisation']:.1f} %, queue depth mean "
                     f"{t['mean_queue_depth']:.2f} max {t['max_queue_depth']}, per command: "
                     f"overhead {format_time(t['mean_overhead_s'])}, seek "
                     f"{format_time(t['mean_seek_s'])}, rotation "
                     f"{format_time(t['mean_rotation_s'])}, transfer "
                     f"{format_time(t['mean_transfer_s'])}{_channel(t)}{_fabric(t)}; "
                     f"{t['task_set_full']} TASK SET FULL, "
                     f"{t['aborts']} aborted; limit: {t['limit']} "
                     f"({100 * t['limit_utilisation']:.1f} % busy)")
        disks = t.get("disk_utilisations")
        if disks:
            lines.append("    disk utilisation: " + ", ".join(
                f"{name} {100 * u:.1f} %" for name, u in disks.items()))
    for name, nvme in storage.get("nvme_targets", {}).items():
        closed = sum(1 for c in nvme["connections"].values() if c.get("closed"))
        for ident, c in nvme["connections"].items():
            if c.get("closed"):
                continue
            lines.append(f"  NVMe controller {name}, I/O connection {ident}: sqsize "
                         f"{c['sqsize']}, at most {c['max_outstanding']} outstanding, "
                         f"{c['responses']} responses of which {c['ersp']} ERSP "
                         f"(ersp_ratio {c['ersp_ratio']}), {c['overruns']} over sqsize")
        if closed:
            lines.append(f"  NVMe controller {name}: {closed} I/O connections closed by "
                         "Disconnect Association (in the JSON results)")
        recovery = nvme.get("recovery")
        if recovery:
            lines.append(f"  NVMe controller {name} answered {recovery['retransmissions']} "
                         f"NVMe_SR and {recovery['aborts']} ABTS")
    for name, host in storage.get("nvme_initiators", {}).items():
        recovery = host.get("recovery")
        if recovery:
            sler = ", ".join(recovery["sler"]) or "none"
            lines.append(f"  NVMe host port {name}, recovery (SLER with {sler}): "
                         f"{recovery['recs']} REC, {recovery['retransmission_requests']} "
                         f"NVMe_SR, {recovery['commands_resent']} commands sent again in "
                         f"their exchange, {recovery['timeouts']} timeouts, "
                         f"{recovery['aborts']} ABTS, {recovery['retries']} retries, "
                         f"{recovery['failed']} returned with an error, "
                         f"{recovery['association_resets']} association resets, "
                         f"{recovery['reconnects']} reconnection attempts, "
                         f"{recovery['controllers_lost']} controllers lost")
    for node, local in storage.get("local", {}).items():
        for name, d in local["disks"].items():
            lines.append(f"  disk {node}:{name} ({d['model']} on {d['channel']}): utilisation "
                         f"{100 * d['utilisation']:.1f} %, {d['commands']} commands, per "
                         f"command: overhead {format_time(d['mean_overhead_s'])}, seek "
                         f"{format_time(d['mean_seek_s'])}, rotation "
                         f"{format_time(d['mean_rotation_s'])}, transfer "
                         f"{format_time(d['mean_transfer_s'])}{_channel(d)}")
        for name, c in local["channels"].items():
            lines.append(f"  channel {node}:{name} ({c['model']}): utilisation "
                         f"{100 * c['utilisation']:.1f} %")
    for node, queues in storage.get("queues", {}).items():
        for name, q in queues.items():
            if q["merged"] or q["commands"] != q["requests"] or q["max_depth"] > 1:
                lines.append(f"  queue {node} -> {name}: {q['requests']} requests, "
                             f"{q['merged']} merged, {q['commands']} commands, depth mean "
                             f"{q['mean_depth']:.2f} max {q['max_depth']}")
    lines += _slice_lines(storage)
    lines += _multipath_lines(storage)
    for name, i in storage["initiators"].items():
        if any(i.values()):
            lines.append(f"  initiator {name}: {i['timeouts']} timeouts (ABTS), "
                         f"{i['retries']} commands sent again, {i['queue_full']} TASK SET "
                         f"FULL, {i['short_data']} with read data missing, {i['failed']} "
                         f"returned with an error")
    return [*lines, ""]


MAX_PATH_EVENTS = 20
"""Path events the summary lists per multipath device (all are in the results)."""


def _multipath_lines(storage: dict[str, Any]) -> list[str]:
    """Each multipath device: its requests, each path's share and state, and
    the path events in time order."""
    lines = []
    for name, m in storage.get("multipath", {}).items():
        lines.append(f"  multipath {name}: {m['ios']} requests, {m['requeued']} sent again on "
                     f"another path, {m['failed_ios']} failed for want of a path, "
                     f"{len(m['groups'])} path group(s)")
        for path, p in m["paths"].items():
            lines.append(f"    path {path} (group {p['group']}, prio {p['prio']}): {p['ios']} "
                         f"requests, {p['errors']} failed on it, {p['failures']} failures, "
                         f"{p['state']}{', marginal' if p['marginal'] else ''}")
        lines += _path_event_lines(m["events"], "device")
    for name, m in storage.get("nvme_multipath", {}).items():
        lines.append(f"  NVMe multipath {name} (iopolicy {m['iopolicy']}): {m['ios']} "
                     f"requests, {m['failovers']} failed over to another path, "
                     f"{m['failed_ios']} failed for want of a path")
        for path, p in m["paths"].items():
            lines.append(f"    path {path} (ANA {p['ana_state']}): {p['ios']} requests, "
                         f"{p['errors']} failed over from it, {p['failures']} losses, "
                         f"{'live' if p['live'] else 'not live'}")
        lines += _path_event_lines(m["events"], "namespace")
    return lines


def _path_event_lines(events: list[dict[str, Any]], whole: str) -> list[str]:
    """The first path events in time order (a path's, or the *whole* device's)."""
    lines = [f"    at {format_time(e['time_s'])} {e['path'] or whole}: {e['event']}"
             for e in events[:MAX_PATH_EVENTS]]
    if len(events) > MAX_PATH_EVENTS:
        lines.append(f"    ... {len(events) - MAX_PATH_EVENTS} more events in the results")
    return lines


def _slice_lines(storage: dict[str, Any]) -> list[str]:
    """Slice block servers and the Trapeze endpoints of a Myrinet run."""
    lines = []
    for name, s in storage.get("block_servers", {}).items():
        lines.append(f"  block server {name}: {s['requests']} requests, "
                     f"{format_size(s['bytes_read'])} read, {format_size(s['bytes_written'])} "
                     f"written, {s['cache_hits']} answered from memory")
    for name, t in storage.get("trapeze", {}).items():
        call = t["mean_call_s"]
        lines.append(f"  trapeze {name}: {t['messages_tx']} messages sent in "
                     f"{t['fragments_tx']} packets, {t['messages_rx']} received in "
                     f"{t['fragments_rx']}, {t['dma_transfers']} DMA transfers, "
                     f"{t['interrupts']} interrupts; {t['calls']} calls"
                     + (f" (mean {format_time(call)} to the reply)" if call else ""))
    return lines


def _channel(figures: dict[str, Any]) -> str:
    """', channel T' when the figures have a channel time per command."""
    value = figures.get("mean_channel_s")
    return "" if value is None else f", channel {format_time(value)}"


def _fabric(figures: dict[str, Any]) -> str:
    """', fabric T' when the figures have a fabric time per command."""
    value = figures.get("mean_fabric_s")
    return "" if value is None else f", fabric {format_time(value)}"


def _details(results: dict[str, Any]) -> list[str]:
    """Netperf, block storage, workloads, links, switches, loops and ports of a run."""
    first = results["repetitions"][0]
    lines = (fault_lines(first) + _netperf_lines(results) + _transfer_lines(results)
             + _storage_lines(results))
    names, note, totals = (slowest_workloads(results) if many(first["workloads"])
                           else (list(first["workloads"]), "", []))
    lines += ["workloads (mean over repetitions)" + note, *totals] if names else []
    for name in names:
        w = first["workloads"][name]
        summary = results["summary"][name]
        tput = summary["throughput_bytes_per_s"]["mean"]
        lat = w["latency_s"]
        latency = ("-" if lat["mean"] is None else
                   f"mean {format_time(summary['latency_mean_s']['mean'])}, p50 "
                   f"{format_time(lat['p50'])}, p99 {format_time(lat['p99'])}")
        lines.append(
            f"  {name}: class {w['class']}, {w['sequences']} sequences, {w['frames']} frames, "
            f"{format_bytes_rate(tput)} ({format_rate(8 * tput)}), latency {latency}")
        sender = w["sender"]
        if sender["rejected"] or sender["aborted"]:
            lines.append(f"    sender: {sender['rejected']} rejected, "
                         f"{sender['aborted']} aborted sequences")
    lines += ["", *fc3_lines(first)]
    interval = results["run"]["duration_s"] - results["run"]["warmup_s"]
    networks = first.get("networks", {"": {**first, "topology": results["scenario"]["topology"]}})
    lan = {name for rep in networks.values() if rep["topology"] in LAN
           for name in rep["links"]}  # no credit on their links

    def show(name: str, link: dict[str, Any]) -> list[str]:
        out = [f"  {name}: {link['speed']}, {link['length_m']:g} m"]
        for direction, d in link["directions"].items():
            credit = ("" if name in lan else
                      f" credit wait {100 * d['credit_wait_fraction']:.2f} % "
                      f"({d['credit_stalls']} stalls), {d['r_rdy']} R_RDY,")
            out.append(
                f"    {direction}: utilisation {100 * d['utilisation']:.2f} %, "
                f"{d['frames']} frames,{credit} {d['errors']} errors"
                + (f", {d['eofni']} EOFni (errored upstream)" if d.get("eofni") else "")
                + (f", FEC {d['fec_corrected_codewords']} codewords corrected, "
                   f"{d['fec_uncorrected_codewords']} uncorrectable"
                   if "fec_corrected_codewords" in d else "")
                + (f", {d['stops']} STOPs held it {100 * d['stopped_s'] / interval:.2f} %"
                   if "stops" in d and interval > 0 else ""))
        return out
    if many(first["links"]):
        lines += link_groups(first, show)
    else:
        lines += ["", "links (first repetition)"]
        for name, link in first["links"].items():
            lines += show(name, link)
    for name, network in networks.items():
        lines += ["", f"network {name} ({network['topology']})"] if name else []
        lines += network_lines(network)
    return lines


LAN = ("ethernet", "myrinet")
"""The topologies whose links have no credit."""
