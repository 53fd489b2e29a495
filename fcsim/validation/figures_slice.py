"""Figure 4 of the Trapeze/Slice report (``fcsim figures slice``), from the files
``<direction>-<servers>s-<disks>d.toml`` of ``scenarios/slice/``:

- ``fig4-read.png``: dd read bandwidth against the total disks (servers x disks
  on each), one line per server count (1-4), as the report draws it;
- ``fig4-write.png``: the same for dd writes.

Each point is a file's dd rate over its measured interval in MB/s (10^6 B/s),
the mean over the repetitions with min and max. 32 simulations of 0.1-0.9 s of
processor time each: about 10 s on 2 cores.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fcsim.validation.plots import degradation_figure
from fcsim.validation.points import ROOT, Point, scenario_file

SERVERS = DISKS = (1, 2, 3, 4)
"""Figure 4's grid: block servers, and disks on each."""
TITLES = {"read": "Slice/Trapeze figure 4: single-client sequential read bandwidth",
          "write": "Slice/Trapeze figure 4: single-client sequential write bandwidth"}


@dataclass(frozen=True)
class LineFigure:
    """PNG file *name*, *title*, the *direction* of its dd files in *folder*,
    and *repetitions* per file (None: the files' own)."""

    name: str
    title: str
    direction: str
    folder: Path
    repetitions: int | None = None

    def _points(self, servers: int, disks: int) -> list[Point]:
        path = (self.folder / f"{self.direction}-{servers}s-{disks}d.toml").resolve()
        file = str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)
        count = self.repetitions or scenario_file(file).run.repetitions
        return [Point(file, repetition=k) for k in range(count)]

    @property
    def points(self) -> list[Point]:
        """Every simulation point the figure needs."""
        return [p for s in SERVERS for d in DISKS for p in self._points(s, d)]

    def draw(self, results: dict[Point, dict[str, Any]], out: Path) -> None:
        """Write the figure as the PNG file *out* from the points' *results*."""
        series = [{"label": f"{s} server{'s' if s > 1 else ''}",
                   "x": [s * d for d in DISKS],
                   "values": [[_rate(results[p]) for p in self._points(s, d)] for d in DISKS]}
                  for s in SERVERS]
        degradation_figure(series, self.title, "Total disks", "Bandwidth (MB/s)", out,
                           xlog=False)


def _rate(result: dict[str, Any]) -> float | None:
    """A run's dd rate over its measured interval, MB/s (None if it moved nothing)."""
    job = next(iter(result["storage"]["jobs"].values()))
    return job["throughput_bytes_per_s"] / 1e6 if job["ios"] else None


def plan_slice(folder: Path, repetitions: int | None = None) -> list[LineFigure]:
    """Figure 4's two halves over the files in *folder*."""
    if not (folder / "read-1s-1d.toml").is_file():
        raise FileNotFoundError(f"no slice scenario files (read-1s-1d.toml) in {folder}")
    return [LineFigure(f"fig4-{d}.png", TITLES[d], d, folder, repetitions)
            for d in ("read", "write")]
