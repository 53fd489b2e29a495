"""Simulation points, run in parallel: one repetition of one sweep point of a
scenario file, reduced to the figures a check or a figure needs."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, TextIO

from fcsim.runner import narrowed, run_once
from fcsim.scenario.loader import load_scenario
from fcsim.scenario.model import NetperfConfig, Scenario

ROOT = Path(__file__).resolve().parents[2]
"""The project folder; point scenario paths are relative to it."""


@dataclass(frozen=True, order=True)
class Point:
    """Repetition *repetition* of the scenario file *scenario* (relative to
    :data:`ROOT`), its swept netperf workload narrowed to *socket* and *size*
    bytes (None: the file's only value); *length*: netperf ``-l`` in s instead
    of the file's (None: the file's)."""

    scenario: str
    socket: int | None = None
    size: int | None = None
    repetition: int = 0
    length: float | None = None

    def label(self) -> str:
        """Short human-readable name, for progress lines."""
        parts = [Path(self.scenario).stem]
        if self.socket is not None:
            parts.append(f"socket {self.socket}")
        if self.size is not None:
            parts.append(f"msg {self.size}")
        return " ".join(parts) + f" rep {self.repetition + 1}"


@lru_cache(maxsize=64)
def scenario_file(path: str) -> Scenario:
    """The scenario in *path* (relative to :data:`ROOT`), read once per process."""
    return load_scenario(ROOT / path)


def narrow(point: Point) -> Scenario:
    """The scenario of *point*: its sweeping netperf workload at one socket and
    size, every netperf run's length and the run's duration set by *length*."""
    scenario = scenario_file(point.scenario)
    swept = next((w for w in scenario.workloads if isinstance(w, NetperfConfig) and w.sweeps),
                 None)
    if swept is not None:
        scenario = narrowed(scenario,
                            swept.sockets[0] if point.socket is None else point.socket,
                            swept.send_sizes[0] if point.size is None else point.size)
    if point.length is None:
        return scenario
    loads = tuple(replace(w, options=replace(w.options, length=point.length))
                  if isinstance(w, NetperfConfig) else w for w in scenario.workloads)
    longest = max((w.start + point.length for w in loads if isinstance(w, NetperfConfig)),
                  default=scenario.run.duration)
    run = replace(scenario.run, duration=scenario.run.warmup + longest + 0.01)
    return replace(scenario, workloads=loads, run=run)


def run_point(point: Point) -> dict[str, Any]:
    """Simulate *point*: each netperf run's and FC-2 workload's results, each
    host's utilisation, and the processor time the simulation took (s)."""
    started = time.process_time()
    scenario = narrow(point)
    out = run_once(scenario, scenario.run.seed + point.repetition)
    return {"netperf": out.get("netperf", {}), "hosts": out.get("hosts", {}),
            "workloads": out.get("workloads", {}), "cpu_s": time.process_time() - started}


class Progress:
    """A progress display on *stream*: one self-overwriting line on a terminal,
    a line per tenth of the work otherwise."""

    def __init__(self, total: int, stream: TextIO = sys.stderr, title: str = "") -> None:
        self.total, self.stream, self.title = total, stream, title
        self.start = time.monotonic()
        self.tty = stream.isatty()
        self._shown = -1

    def __call__(self, done: int, point: Point) -> None:
        """Report that *done* points are finished, the last being *point*."""
        elapsed = time.monotonic() - self.start
        eta = elapsed / done * (self.total - done) if done else 0.0
        line = (f"{self.title}[{done:>{len(str(self.total))}}/{self.total}] "
                f"{100 * done // max(1, self.total):3d}%  elapsed {_clock(elapsed)}  "
                f"left ~{_clock(eta)}  {point.label()}")
        if self.tty:
            self.stream.write("\r" + line[:120].ljust(120))
            if done == self.total:
                self.stream.write("\n")
        elif done * 10 // max(1, self.total) > self._shown or done == self.total:
            self._shown = done * 10 // max(1, self.total)
            self.stream.write(line + "\n")
        self.stream.flush()


def _clock(seconds: float) -> str:
    minutes, secs = divmod(int(seconds + 0.5), 60)
    return f"{minutes}m{secs:02d}s"


def default_jobs() -> int:
    """Worker processes: every core this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


def run_points(points: Iterable[Point], jobs: int | None = None,
               progress: Callable[[int, Point], None] | None = None) -> dict[Point, dict[str, Any]]:
    """Results of every distinct point, run on *jobs* processes (default: all
    cores); *progress(done, point)* after each."""
    todo = sorted(set(points))
    jobs = jobs or default_jobs()
    results: dict[Point, dict[str, Any]] = {}
    if jobs == 1:
        for point in todo:
            results[point] = run_point(point)
            if progress:
                progress(len(results), point)
        return results
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(run_point, p): p for p in todo}
        for future in as_completed(futures):
            point = futures[future]
            results[point] = future.result()
            if progress:
                progress(len(results), point)
    return results
