"""The figures of the HPSS benchmarks (``fcsim figures hpss``), from the files of
``scenarios/hpss/``: bars per mover path (H50, F50, the H70's two paths).

- ``read.png``: pftp reads from the TMS RAM-SAN to /dev/null, one stream and
  two streams (``read-1-<path>.toml``, ``read-2-<path>.toml``);
- ``write.png``: pftp writes to the RAM-SAN from the local disk, one and two
  streams, and one stream from memory (``write-1-<path>.toml``,
  ``write-2-<path>.toml``, ``write-1-<path>-memory.toml``);
- ``nine-streams.png``: the nine-stream read and write, each path's share
  (``read-9.toml``, ``write-9.toml``).

Each bar is a file's steady rate in MB/s (10^6 B/s, the sum over its streams),
the mean over the repetitions with min and max. 22 simulations of 0.2-2 s of
processor time each: about 10 s on 2 cores.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fcsim.validation.plots import grouped_bars_figure
from fcsim.validation.points import ROOT, Point, scenario_file

PATHS = ("h50", "f50", "h70a", "h70b")
LABELS = ("H50", "F50", "H70 path A", "H70 path B")
NINE = ("h50", "h50", "f50", "f50", "h70a", "h70a", "h70a", "h70b", "h70b")
"""The mover path of each stream of the nine-stream files, in order."""


@dataclass(frozen=True)
class BarFigure:
    """PNG file *name*, *title*, and its bar series: (legend label, file stem
    with ``{path}`` for the mover path, or a nine-stream file's stem) pairs;
    *repetitions* per file (None: the files' own)."""

    name: str
    title: str
    series: tuple[tuple[str, str], ...]
    folder: Path
    repetitions: int | None = None

    def _file(self, stem: str) -> str:
        path = (self.folder / f"{stem}.toml").resolve()
        return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)

    def _points(self, stem: str) -> list[Point]:
        file = self._file(stem)
        count = self.repetitions or scenario_file(file).run.repetitions
        return [Point(file, repetition=k) for k in range(count)]

    def _stems(self) -> list[str]:
        return [stem.format(path=p) for _label, stem in self.series
                for p in (PATHS if "{path}" in stem else ("",))]

    @property
    def points(self) -> list[Point]:
        """Every simulation point the figure needs."""
        return [p for stem in self._stems() for p in self._points(stem)]

    def draw(self, results: dict[Point, dict[str, Any]], out: Path) -> None:
        """Write the figure as the PNG file *out* from the points' *results*."""
        series = []
        for label, stem in self.series:
            if "{path}" in stem:
                values = [[_sum(results[p]) for p in self._points(stem.format(path=path))]
                          for path in PATHS]
            else:
                values = [[_sum(results[p], path) for p in self._points(stem)]
                          for path in PATHS]
            series.append({"label": label, "values": values})
        grouped_bars_figure(LABELS, series, self.title, "Rate (MB/s)", out)


def _sum(result: dict[str, Any], path: str | None = None) -> float | None:
    """A run's steady rate in MB/s, summed over its transfers (only those of the
    mover *path* in a nine-stream run); None if a transfer gave none."""
    rates = [t.get("steady_bytes_per_s") for k, t in enumerate(result["transfers"].values())
             if path is None or NINE[k] == path]
    return None if any(r is None for r in rates) else sum(rates) / 1e6  # type: ignore[misc]


def plan_hpss(folder: Path, repetitions: int | None = None) -> list[BarFigure]:
    """The HPSS figures over the files in *folder*."""
    if not (folder / "read-9.toml").is_file():
        raise FileNotFoundError(f"no hpss scenario files (read-9.toml) in {folder}")
    return [
        BarFigure("read.png", "HPSS reads, PDSF <- mover <- TMS RAM-SAN",
                  (("1 stream", "read-1-{path}"), ("2 streams", "read-2-{path}")),
                  folder, repetitions),
        BarFigure("write.png", "HPSS writes, PDSF -> mover -> TMS RAM-SAN",
                  (("1 stream from the local disk", "write-1-{path}"),
                   ("2 streams from local disks", "write-2-{path}"),
                   ("1 stream from memory", "write-1-{path}-memory")), folder, repetitions),
        BarFigure("nine-streams.png", "HPSS, nine streams over four mover paths: each path's "
                  "share", (("read", "read-9"), ("write", "write-9")), folder, repetitions),
    ]
