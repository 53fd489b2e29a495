"""Simulation points, run in parallel: one repetition of one sweep point of a
scenario file, reduced to the figures a check or a figure needs."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from fcsim.resources import DATA_ROOT
from fcsim.runner import run_once
from fcsim.scenario.loader import load_scenario
from fcsim.scenario.model import Scenario
from fcsim.scenario.workload_model import IperfConfig, NetperfConfig
from fcsim.storage.config import FioConfig
from fcsim.sweep import fio_narrowed, iperf_narrowed, narrowed

ROOT = DATA_ROOT
"""The folder point scenario paths are relative to (the project folder in a
source checkout; see :mod:`fcsim.resources`)."""


@dataclass(frozen=True, order=True)
class Point:
    """Repetition *repetition* of the scenario file *scenario* (relative to
    :data:`ROOT`), its swept netperf workload narrowed to *socket* and *size*
    bytes, or its swept iperf workload to the window *socket* bytes (-w) and
    the bandwidth *rate* bit/s (-b), or its swept fio job to *iodepth* commands
    outstanding (None: the file's first value); *length*:
    netperf ``-l`` in s instead of the file's (None: the file's); *sized*: a
    TCP_RR runs ``-r size,size`` whatever the file says (False: as the file
    says)."""

    scenario: str
    socket: int | None = None
    size: int | None = None
    repetition: int = 0
    length: float | None = None
    sized: bool = False
    rate: float | None = None
    iodepth: int | None = None

    def label(self) -> str:
        """Short human-readable name, for progress lines."""
        parts = [Path(self.scenario).stem]
        if self.socket is not None:
            parts.append(f"socket {self.socket}")
        if self.size is not None:
            parts.append(f"msg {self.size}")
        if self.sized:
            parts.append("-r m,m")
        if self.rate is not None:
            parts.append(f"-b {self.rate / 1e6:g} Mbit/s")
        if self.iodepth is not None:
            parts.append(f"iodepth {self.iodepth}")
        return " ".join(parts) + f" rep {self.repetition + 1}"


POINT_RESULTS = ("netperf", "iperf", "hosts", "workloads", "storage", "transfers")
"""The parts of a repetition's results a point keeps (links and ports are left out)."""


@lru_cache(maxsize=512)
def scenario_file(path: str) -> Scenario:
    """The scenario in *path* (relative to :data:`ROOT`), read once per process:
    the cache has room for every file the points of ``fcsim validate`` read
    (110), so the worker processes, forked after the points are listed,
    inherit them all and parse none again."""
    return load_scenario(ROOT / path)


def swept_workload(scenario: Scenario, path: Path) -> NetperfConfig:
    """The swept netperf workload of *scenario* (the figure's test pair)."""
    swept = [w for w in scenario.workloads if isinstance(w, NetperfConfig) and w.sweeps]
    if len(swept) != 1:
        raise ValueError(f"{path.name}: expected one swept netperf workload, found {len(swept)}")
    return swept[0]


def narrow(point: Point) -> Scenario:
    """The scenario of *point*: its sweeping netperf workload at one socket and
    size, its sweeping iperf workload at one window and bandwidth, or its
    sweeping fio job at one iodepth (as ``fcsim run`` runs a sweep's point), TCP_RR
    transactions of that size if *sized*, every netperf run's length and the
    run's duration set by *length*."""
    scenario = scenario_file(point.scenario)
    swept = next((w for w in scenario.workloads if isinstance(w, NetperfConfig) and w.sweeps),
                 None)
    if swept is not None:
        scenario = narrowed(scenario,
                            swept.sockets[0] if point.socket is None else point.socket,
                            swept.send_sizes[0] if point.size is None else point.size)
    iperf = next((w for w in scenario.workloads if isinstance(w, IperfConfig) and w.sweeps),
                 None)
    if iperf is not None:
        window, rate = iperf.points()[0]
        scenario = iperf_narrowed(scenario, window if point.socket is None else point.socket,
                                  rate if point.rate is None else point.rate)
    fio = next((w for w in scenario.workloads if isinstance(w, FioConfig) and w.iodepths),
               None)
    if fio is not None:
        scenario = fio_narrowed(scenario,
                                fio.iodepths[0] if point.iodepth is None else point.iodepth)
    if point.sized:
        loads = tuple(replace(w, sized_transactions=True)
                      if isinstance(w, NetperfConfig) and w.options.test == "TCP_RR" else w
                      for w in scenario.workloads)
        scenario = replace(scenario, workloads=loads)
    if point.length is None:
        return scenario
    loads = tuple(replace(w, options=replace(w.options, length=point.length))
                  if isinstance(w, NetperfConfig) else w for w in scenario.workloads)
    longest = max((w.start + point.length for w in loads if isinstance(w, NetperfConfig)),
                  default=scenario.run.duration)
    run = replace(scenario.run, duration=scenario.run.warmup + longest + 0.01)
    return replace(scenario, workloads=loads, run=run)


def simulate(point: Point) -> dict[str, Any]:
    """The whole results of one run of *point*: its narrowed scenario with the
    file's seed plus the point's repetition number."""
    scenario = narrow(point)
    return run_once(scenario, scenario.run.seed + point.repetition)


def run_point(point: Point) -> dict[str, Any]:
    """Simulate *point*: the results of its netperf and iperf runs, FC-2
    workloads, block storage and transfers, each host's utilisation, and the
    processor time the simulation took (s)."""
    started = time.process_time()
    out = simulate(point)
    kept = {key: out.get(key, {}) for key in POINT_RESULTS}
    return {**kept, "cpu_s": time.process_time() - started}
