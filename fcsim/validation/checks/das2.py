"""The claims of the DAS-2 report (``003_219b629cc3da6126.txt``): iperf TCP and
UDP between DAS-2 nodes in two VLANs joined through a Force10 loop-back, from
the files of ``scenarios/das2/``.

The TCP files (``tcp-<F>-flows.toml``) each sweep the window sum 32, 64, 128
and 256 KiB (each flow's -w the sum over the F flows); the UDP files
(``udp-<P>-pairs-<K>-flows.toml``) each sweep the shaping bandwidth 50, 500
and 950 Mbit/s (-b of each of K flows on each of P node pairs).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fcsim.ethernet.frame import GAP, JUMBO_MTU, MTU, frame_chars
from fcsim.transport.segment import HEADER_BYTES, TIMESTAMP_OPTION_BYTES
from fcsim.transport.udp import UDP_IP_HEADER_BYTES
from fcsim.validation.checks.common import Check, NoFigure, Results, Verdict, passes_if
from fcsim.validation.points import Point, scenario_file

DAS2 = "scenarios/das2/"
KIB = 1024
FLOWS = (1, 2, 4, 6, 12)
"""TCP flow counts (source-destination host pairs) of the files."""
WINDOW_SUMS = (32 * KIB, 64 * KIB, 128 * KIB, 256 * KIB)
"""TCP window sums over all flows, bytes."""
UDP_RUNS = ((1, 1), (1, 5), (2, 3), (4, 1), (4, 5))
"""(node pairs, flows per pair) of the UDP files."""
SHAPING = (50e6, 500e6, 950e6)
"""UDP shaping bandwidths of the files, bit/s."""
GIGABIT = 1e9
"""The loop-back's data rate, bit/s (1000BASE-X)."""
JUMBO, STANDARD = JUMBO_MTU, MTU
"""IP MTUs: the files' jumbo frames, and standard Ethernet."""
UDP_DATAGRAM = 1470
"""iperf 2's default UDP datagram, bytes."""

TCP_FLOOR = 970.0
"""DAS2-TCP: the least summed throughput outside the corner, 10^6 bit/s."""
CORNER_WINDOW = 64 * KIB
CORNER_FLOWS = 4
"""The small-window/few-flow corner of the claim's reading: window sums up to
64 KB (here KiB, the files' unit) combined with up to 4 flows."""
UDP_TOLERANCE = 0.05
"""DAS2-UDP: delivered within 5 % of the shaped rate, up to the loop-back's capacity."""


def tcp_file(flows: int) -> str:
    """The TCP scenario file of *flows* flows."""
    return f"{DAS2}tcp-{flows}-flow{'s' if flows > 1 else ''}.toml"


def udp_file(pairs: int, parallel: int) -> str:
    """The UDP scenario file of *pairs* node pairs with *parallel* flows each."""
    return (f"{DAS2}udp-{pairs}-pair{'s' if pairs > 1 else ''}-"
            f"{parallel}-flow{'s' if parallel > 1 else ''}.toml")


def per_flow_window(window_sum: int, flows: int) -> int:
    """Each flow's -w for a window sum over *flows* flows, bytes (rounded down)."""
    return window_sum // flows


def line_bytes(packet: int) -> int:
    """Line time of a frame carrying an IP packet of *packet* bytes, with its
    gap, bytes (*packet* + 38)."""
    return frame_chars(packet) + GAP


def tcp_goodput(mtu: int) -> float:
    """TCP's data rate on a gigabit link at IP MTU *mtu* with the timestamps
    option, 10^6 bit/s: (MTU - 52) data bytes per MTU + 38 bytes of line time."""
    data = mtu - HEADER_BYTES - TIMESTAMP_OPTION_BYTES
    return GIGABIT * data / line_bytes(mtu) / 1e6


def udp_capacity() -> float:
    """The loop-back's rate of iperf datagrams, 10^6 bit/s of UDP data."""
    return GIGABIT * UDP_DATAGRAM / line_bytes(UDP_DATAGRAM + UDP_IP_HEADER_BYTES) / 1e6


def in_corner(window_sum: int, flows: int) -> bool:
    """Whether a grid point lies in the small-window/few-flow corner."""
    return window_sum <= CORNER_WINDOW and flows <= CORNER_FLOWS


def _repetitions(path: str) -> range:
    return range(scenario_file(path).run.repetitions)


def _tcp_points() -> list[Point]:
    return [Point(tcp_file(f), per_flow_window(w, f), None, rep)
            for f in FLOWS for w in WINDOW_SUMS for rep in _repetitions(tcp_file(f))]


def _udp_points() -> list[Point]:
    return [Point(udp_file(p, k), None, None, rep, rate=b)
            for p, k in UDP_RUNS for b in SHAPING for rep in _repetitions(udp_file(p, k))]


def mesh_figure(run: Mapping[str, Any]) -> float:
    """The report's figure of one iperf mesh run, 10^6 bit/s: the sum over its
    runs of each run's median interval report (one run: its median)."""
    value = run.get("sum_of_medians_mbit_s", run.get("median_mbit_s"))
    if value is None:
        raise NoFigure("the iperf run gave no interval report")
    return float(value)


def delivered(run: Mapping[str, Any]) -> float:
    """The delivered UDP rate of one iperf mesh run, 10^6 bit/s: the median of
    its interval reports of the data all servers read (the report does not say
    how it took its UDP figures; the sum over the mesh is the rate the
    loop-back delivers, where per-run medians of unequal, fluctuating shares
    would not add up to it)."""
    value = run.get("median_mbit_s")
    if value is None:
        raise NoFigure("the iperf run gave no interval report")
    return float(value)


def _mean(results: Results, points: list[Point], figure: Any = mesh_figure) -> float:
    figures = [figure(results[p]["iperf"]["mesh"]) for p in points]
    return sum(figures) / len(figures)


def tcp_grid(results: Results) -> dict[tuple[int, int], float]:
    """(window sum, flows) -> summed TCP throughput, 10^6 bit/s (mean over repetitions)."""
    grid = {}
    for f in FLOWS:
        for w in WINDOW_SUMS:
            path, window = tcp_file(f), per_flow_window(w, f)
            grid[w, f] = _mean(results, [Point(path, window, None, rep)
                                         for rep in _repetitions(path)])
    return grid


def udp_grid(results: Results) -> dict[tuple[int, int, float], float]:
    """(pairs, flows per pair, shaping bit/s) -> delivered UDP rate, 10^6 bit/s."""
    grid = {}
    for p, k in UDP_RUNS:
        for b in SHAPING:
            path = udp_file(p, k)
            grid[p, k, b] = _mean(results, [Point(path, None, None, rep, rate=b)
                                            for rep in _repetitions(path)], delivered)
    return grid


def _tcp_name(key: tuple[int, int]) -> str:
    """'32 KiB/4 flows'."""
    return f"{key[0] // KIB} KiB/{key[1]} flow{'s' if key[1] > 1 else ''}"


def _udp_name(key: tuple[int, int, float]) -> str:
    """'4x5 at 950' (pairs x flows at -b Mbit/s)."""
    return f"{key[0]}x{key[1]} at {key[2] / 1e6:g}"


def judge_tcp(grid: Mapping[tuple[int, int], float]) -> Verdict:
    """DAS2-TCP on a grid of (window sum, flows) -> summed throughput."""
    corner = {k: v for k, v in grid.items() if in_corner(*k)}
    rest = {k: v for k, v in grid.items() if not in_corner(*k)}
    low = {k: v for k, v in rest.items() if v < TCP_FLOOR}
    lower = bool(corner) and min(corner.values()) < TCP_FLOOR
    framing = (f"Framing: jumbo frames (IP MTU {JUMBO}) assumed, as no other framing reaches "
               f"980 Mbit/s: TCP with timestamps carries at most {tcp_goodput(STANDARD):.1f} "
               f"Mbit/s at MTU {STANDARD} and {tcp_goodput(JUMBO):.1f} at MTU {JUMBO}. ")
    detail = (framing + f"Outside the corner (window sum <= {CORNER_WINDOW / KIB:g} KiB with "
              f"<= {CORNER_FLOWS:g} flows) {len(rest)} points span "
              f"{min(rest.values()):.1f}-{max(rest.values()):.1f} Mbit/s"
              + (f"; below {TCP_FLOOR:g}: " + ", ".join(f"{_tcp_name(k)} {v:.1f}"
                                                        for k, v in sorted(low.items()))
                 if low else f", all >= {TCP_FLOOR:g}")
              + f". The corner's {len(corner)} points: "
              + ", ".join(f"{_tcp_name(k)} {v:.1f}" for k, v in sorted(corner.items()))
              + ("" if lower else f", none below {TCP_FLOOR:g}, where the report has it lower")
              + ".")
    series = [{"label": f"{f} flow{'s' if f > 1 else ''}",
               "x": [w / KIB for w in WINDOW_SUMS if (w, f) in grid],
               "y": [grid[w, f] for w in WINDOW_SUMS if (w, f) in grid]}
              for f in sorted({f for _w, f in grid})]
    plot = {"kind": "curves", "title": "DAS2-TCP: summed throughput across the loop-back",
            "ylabel": "Mbit/s", "xlabel": "TCP window sum (KiB)", "xlog": True,
            "series": series, "band": [TCP_FLOOR, tcp_goodput(JUMBO)]}
    return Verdict(f"{min(rest.values()):.0f}-{max(rest.values()):.0f} Mbit/s outside the "
                   f"corner; corner down to {min(corner.values()):.0f}" if corner else
                   f"{min(rest.values()):.0f}-{max(rest.values()):.0f} Mbit/s",
                   passes_if(not low and lower), detail, plot)


def judge_udp(grid: Mapping[tuple[int, int, float], float]) -> Verdict:
    """DAS2-UDP on a grid of (pairs, flows, shaping) -> delivered rate."""
    capacity = udp_capacity()
    off = {}
    for (p, k, b), delivered in grid.items():
        expected = min(p * k * b / 1e6, capacity)
        off[p, k, b] = (delivered - expected) / expected
    bad = {key: v for key, v in off.items() if abs(v) > UDP_TOLERANCE}
    detail = (f"delivered against min(offered, {capacity:.1f} Mbit/s: the loop-back's rate of "
              f"{UDP_DATAGRAM}-byte datagrams, {UDP_DATAGRAM} of every "
              f"{line_bytes(UDP_DATAGRAM + UDP_IP_HEADER_BYTES)} bytes of line time), "
              f"offered = pairs x flows x shaping; {len(off)} points within "
              f"{100 * min(off.values()):+.2f} to {100 * max(off.values()):+.2f} %"
              + ("; beyond 5 %: " + ", ".join(f"{_udp_name(k)} ({100 * v:+.1f} %)"
                                              for k, v in sorted(bad.items())) if bad else "")
              + ". The report's 10-20 % broken connections are not modelled: iperf's "
              "closing exchange (the client's last datagram and the server's report) is "
              "not simulated.")
    series = [{"label": f"{p} pair{'s' if p > 1 else ''} x {k} flow{'s' if k > 1 else ''}",
               "x": [b / 1e6 for b in SHAPING if (p, k, b) in grid],
               "y": [grid[p, k, b] for b in SHAPING if (p, k, b) in grid]}
              for p, k in sorted({(p, k) for p, k, _b in grid})]
    plot = {"kind": "curves", "title": "DAS2-UDP: delivered rate against the shaping rate",
            "ylabel": "Mbit/s delivered", "xlabel": "shaping bandwidth per flow (Mbit/s)",
            "series": series, "band": [capacity * (1 - UDP_TOLERANCE), capacity]}
    return Verdict(f"within {100 * max(abs(v) for v in off.values()):.2f} % of "
                   "min(offered, capacity)", passes_if(not bad), detail, plot)


CHECKS: dict[str, Check] = {
    "DAS2-TCP": Check(_tcp_points, lambda results: judge_tcp(tcp_grid(results))),
    "DAS2-UDP": Check(_udp_points, lambda results: judge_udp(udp_grid(results))),
}
"""The checks of the DAS-2 report's claims, by claim ID."""
