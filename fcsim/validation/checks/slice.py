"""The claims of the Trapeze/Slice report (``001_7a0bfc567c4a67b6.txt``, Hot
Interconnects 1999): figure 4's dd read and write bandwidths against the
disks and servers, the client's processor at the peaks, the 8 KB page fault
from server memory and Trapeze/IP's netperf peak, from the files of
``scenarios/slice/``.

Rates are in 10^6 bytes a second (the project's unit; the report's "MB/s"
is not defined: in 2^20 bytes the simulated peaks are 4.6 % lower, and each
still lies in its band). A dd point's rate is its rate over the run's
measured interval (the steady state, see the files)."""

from __future__ import annotations

from collections.abc import Callable
from statistics import fmean

from fcsim.validation.checks.common import (
    Check,
    NoFigure,
    Results,
    Verdict,
    bars,
    passes_if,
    repeated,
    values,
)
from fcsim.validation.points import Point

SLICE = "scenarios/slice/"
SERVERS = DISKS = (1, 2, 3, 4)
"""Figure 4's grid: servers, and disks on each."""
FAULT = f"{SLICE}fault-8k-page.toml"
TCP = f"{SLICE}netperf-xp1000-lanai5.toml"
FLAT = 0.01
"""Two rates within 1 % count as equal: the granularity of a measured rate
(a few 64 KiB calls over the 500 ms measured, 0.1-0.7 % a call)."""


def dd_file(direction: str, servers: int, disks: int) -> str:
    """The scenario file of figure 4's point: *direction* ``read`` or ``write``,
    *servers* block servers with *disks* disks each."""
    return f"{SLICE}{direction}-{servers}s-{disks}d.toml"


def dd_points(direction: str) -> list[Point]:
    """Every repetition of every point of one half of figure 4."""
    return [p for s in SERVERS for d in DISKS for p in repeated(dd_file(direction, s, d),
                                                                None, None)]


def dd_figure(results: Results, path: str, figure: str) -> float:
    """The mean over repetitions of a dd file's *figure*: ``rate`` (its only job's
    rate over the measured interval, 10^6 bytes/s) or ``cpu`` (the client's
    processor, %)."""
    out = []
    for point in repeated(path, None, None):
        result = results[point]
        if figure == "cpu":
            out.append(100 * result["hosts"]["client"]["cpu_utilisation"])
            continue
        job = next(iter(result["storage"]["jobs"].values()))
        if not job["ios"]:
            raise NoFigure(f"{point.label()}: dd completed no call")
        out.append(job["throughput_bytes_per_s"] / 1e6)
    return fmean(out)


def grid(results: Results, direction: str) -> dict[tuple[int, int], float]:
    """Figure 4's rates of one direction by (servers, disks each)."""
    return {(s, d): dd_figure(results, dd_file(direction, s, d), "rate")
            for s in SERVERS for d in DISKS}


def _label(point: tuple[int, int]) -> str:
    s, d = point
    return f"{s} server{'s' if s > 1 else ''} x {d} disk{'s' if d > 1 else ''}"


def _plot(claim: str, rates: dict[tuple[int, int], float],
          band: tuple[float, float] | None) -> dict[str, object]:
    return bars(f"{claim}: dd bandwidth by servers x disks", "MB/s",
                [f"{s}x{d}" for s, d in rates], [[v] for v in rates.values()], band)


def _peak_judge(claim: str, direction: str, low: float, high: float,
                cpu_ok: Callable[[float], bool], cpu_text: str) -> Callable[[Results], Verdict]:
    """The judge of a peak of figure 4: the best of its 16 points in [*low*,
    *high*] 10^6 bytes/s, with the client's processor there as *cpu_ok* says."""
    def judge(results: Results) -> Verdict:
        rates = grid(results, direction)
        best = max(rates, key=rates.__getitem__)
        rate = rates[best]
        cpu = dd_figure(results, dd_file(direction, *best), "cpu")
        ok = low <= rate <= high and cpu_ok(cpu)
        return Verdict(f"{rate:.1f} MB/s at {_label(best)}, client CPU {cpu:.1f} %",
                       passes_if(ok),
                       f"peak of the 16 points of figure 4 ({direction}) at {_label(best)}: "
                       f"{rate:.2f} MB/s (band [{low:g}, {high:g}]), client processor "
                       f"{cpu:.1f} % ({cpu_text}); every point: " + ", ".join(
                           f"{s}x{d} {v:.1f}" for (s, d), v in rates.items()),
                       _plot(claim, rates, (low, high)))
    return judge


def _falls(line: list[float]) -> list[int]:
    """The indices where *line* falls by more than :data:`FLAT` from the point before."""
    return [i for i in range(1, len(line)) if line[i] < line[i - 1] * (1 - FLAT)]


def _scale_judge(results: Results) -> Verdict:
    notes, bad, short = [], [], []
    for direction in ("read", "write"):
        rates = grid(results, direction)
        peak = max(rates.values())
        lines = {s: [rates[(s, d)] for d in DISKS] for s in SERVERS}
        for s, line in lines.items():
            for i in _falls(line):
                bad.append(f"{direction}, {s} servers: {line[i - 1]:.1f} -> {line[i]:.1f} "
                           f"at {DISKS[i]} disks")
        # flat at the peak: a line reaches the peak and more disks do not raise it
        flat = [s for s, line in lines.items()
                if all(v >= peak * (1 - FLAT) for v in line[-2:])]
        if not flat:
            bad.append(f"{direction}: no line stays at its peak ({peak:.1f}) as disks are "
                       "added")
        notes.append(f"{direction}: " + "; ".join(
            f"{s}s " + "/".join(f"{v:.0f}" for v in line) for s, line in lines.items())
            + f" (peak {peak:.1f}, flat at it: {', '.join(f'{s} servers' for s in flat)})")
        short.append(f"{direction} peak {peak:.1f} MB/s, flat for "
                     f"{', '.join(map(str, flat)) or 'no'} server lines")
    return Verdict("; ".join(short), passes_if(not bad),
                   "figure 4 lines (MB/s at 1-4 disks per server), a fall of more than 1 % "
                   "counting as a decrease: " + " | ".join(notes)
                   + (f"; not met: {'; '.join(bad)}" if bad else "; met"),
                   _plot("SLICE-SCALE (read)", grid(results, "read"), None))


def _fault_judge(results: Results) -> Verdict:
    latencies, worst = [], []
    for point in repeated(FAULT, None, None):
        job = next(iter(results[point]["storage"]["jobs"].values()))
        if not job["ios"]:
            raise NoFigure(f"{point.label()}: no fault completed")
        latencies.append(job["latency_s"]["mean"] * 1e6)
        worst.append(job["latency_s"]["max"] * 1e6)
    mean = fmean(latencies)
    return Verdict(f"{mean:.1f} us", passes_if(mean < 150),
                   f"mean latency of the faults {mean:.1f} us (slowest {max(worst):.1f} us), "
                   "from the touch to the process going on; criterion < 150 us",
                   bars("SLICE-FAULT: 8 KB page fault from server memory", "µs",
                        ["mean", "slowest"], [latencies, worst], (0, 150)))


def _tcp_judge(results: Results) -> Verdict:
    runs = values(results, TCP, None, None, "throughput_mbit_s")
    rate = fmean(runs)
    return Verdict(f"{rate:.1f} Mbit/s", passes_if(908 <= rate <= 1004),
                   f"netperf TCP_STREAM XP1000 -> XP1000 over LANai 5 cards: {rate:.1f} "
                   "10^6 bits/s; band [908, 1004]",
                   bars("SLICE-TCP: netperf over Trapeze/IP", "Mbit/s", ["TCP_STREAM"],
                        [runs], (908, 1004)))


CHECKS: dict[str, Check] = {
    "SLICE-READ": Check(lambda: dd_points("read"),
                        _peak_judge("SLICE-READ", "read", 90, 104, lambda c: 20 <= c <= 36,
                                    "band [20, 36] %")),
    "SLICE-WRITE": Check(lambda: dd_points("write"),
                         _peak_judge("SLICE-WRITE", "write", 60, 72, lambda c: c >= 95,
                                     "band >= 95 %")),
    "SLICE-SCALE": Check(lambda: dd_points("read") + dd_points("write"), _scale_judge),
    "SLICE-FAULT": Check(lambda: repeated(FAULT, None, None), _fault_judge),
    "SLICE-TCP": Check(lambda: repeated(TCP, None, None), _tcp_judge),
}
"""The checks of the Slice report's claims, by claim ID."""
