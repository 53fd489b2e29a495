"""Sweeps: a netperf or iperf workload that lists several socket and send sizes
(or windows and bandwidths), or an fio job that lists several iodepths, is
run once per point, each a scenario narrowed to that one point."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from fcsim.scenario.model import Scenario
from fcsim.scenario.workload_model import IperfConfig, NetperfConfig
from fcsim.storage.config import FioConfig
from fcsim.units import format_rate


def narrowed(scenario: Scenario, socket: int, send_size: int) -> Scenario:
    """*scenario* with its sweeping netperf workload (at most one sweeps) at
    one *socket* and *send_size*, bytes; unchanged if nothing sweeps."""
    loads = tuple(replace(w, send_sizes=(send_size,), sockets=(socket,))
                  if isinstance(w, NetperfConfig) and w.sweeps else w
                  for w in scenario.workloads)
    return replace(scenario, workloads=loads)


def iperf_narrowed(scenario: Scenario, window: int, bandwidth: float) -> Scenario:
    """*scenario* with its sweeping iperf workload (at most one sweeps) at one
    *window* (bytes) and *bandwidth* (bit/s); unchanged if nothing sweeps."""
    loads = tuple(w.point(window, bandwidth) if isinstance(w, IperfConfig) and w.sweeps else w
                  for w in scenario.workloads)
    return replace(scenario, workloads=loads)


def fio_narrowed(scenario: Scenario, iodepth: int) -> Scenario:
    """*scenario* with its sweeping fio job (at most one sweeps) at one *iodepth*."""
    loads = tuple(replace(w, options=replace(w.options, iodepth=iodepth), iodepths=())
                  if isinstance(w, FioConfig) and w.iodepths else w
                  for w in scenario.workloads)
    return replace(scenario, workloads=loads)


def sweep_points(scenario: Scenario) -> list[tuple[dict[str, Any], Scenario]]:
    """The runs a netperf, iperf or fio sweep asks for: (socket and send size,
    iperf window and bandwidth, or fio iodepth; narrowed scenario)."""
    for w in scenario.workloads:
        if isinstance(w, FioConfig) and w.iodepths:
            return [({"iodepth": depth}, fio_narrowed(scenario, depth)) for depth in w.iodepths]
        if isinstance(w, NetperfConfig) and w.sweeps:
            return [({"socket": socket, "send_size": size}, narrowed(scenario, socket, size))
                    for socket in w.sockets for size in w.send_sizes]
        if isinstance(w, IperfConfig) and w.sweeps:
            return [({"window": window, "bandwidth": rate},
                     iperf_narrowed(scenario, window, rate)) for window, rate in w.points()]
    return []


def point_label(point: dict[str, Any]) -> str:
    """A sweep point in words, for progress lines."""
    if "socket" in point:
        return f"socket {point['socket']} send size {point['send_size']}"
    if "iodepth" in point:
        return f"iodepth {point['iodepth']}"
    return f"window {point['window']} bandwidth {format_rate(point['bandwidth'])}"
