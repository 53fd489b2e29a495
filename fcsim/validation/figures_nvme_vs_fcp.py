"""The SCSI-FCP against NVMe/FC figures (``fcsim figures nvme-vs-fcp``) of
docs/tutorials/12-nvme-vs-fcp.md, from the two fio sweeps
``nvme-vs-fcp-sweep-scsi.toml`` and ``nvme-vs-fcp-sweep-nvme.toml`` of
``scenarios/`` (the same host, switch and array over each protocol):

- ``nvme-vs-fcp-iops.png``: IOPS against the queue depth (fio iodepth), a
  line per protocol;
- ``nvme-vs-fcp-latency.png``: the completion latency's p50 and p99 against
  the queue depth, a line per protocol and percentile, on a logarithmic axis
  (the protocols' few microseconds apart stay visible beside the saturated
  depths' hundreds).

Each point is one repetition of one iodepth of a file's sweep, run as ``fcsim
run`` runs it (:func:`fcsim.sweep.fio_narrowed`, the file's seed plus the
repetition), so each plotted value is the sweep's: the mean over the
repetitions, whiskers to the min and max. 18 simulations of 0.3-1.3 s of
processor time each: about 10 s on 2 cores.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fcsim.storage.config import FioConfig
from fcsim.validation.figure_plan import point_path
from fcsim.validation.plots import degradation_figure, size_label
from fcsim.validation.points import Point, scenario_file

PROTOCOLS = {"scsi": "SCSI-FCP", "nvme": "NVMe/FC"}
"""The sweeps' protocols (the files' suffixes) and their names in the legend."""
PERCENTILES = ("p50", "p99")
"""The latency percentiles drawn (fio's clat percentiles of the results)."""
METRICS = {"iops": "IOPS (thousands)", "latency": "Completion latency (µs)"}
"""The two figures' metrics and their y labels."""


def sweep_file(folder: Path, protocol: str) -> Path:
    """The sweep file of *protocol* (a key of :data:`PROTOCOLS`) in *folder*."""
    return folder / f"nvme-vs-fcp-sweep-{protocol}.toml"


def swept_job(path: str) -> FioConfig:
    """The one fio job of the scenario file *path* that sweeps its iodepth."""
    swept = [w for w in scenario_file(path).workloads
             if isinstance(w, FioConfig) and w.iodepths]
    if len(swept) != 1:
        raise ValueError(f"{Path(path).name}: expected one fio job sweeping its iodepth, "
                         f"found {len(swept)}")
    return swept[0]


@dataclass(frozen=True)
class QueueDepthFigure:
    """PNG file *name* drawing *metric* (a key of :data:`METRICS`) of the two
    sweeps in *folder* against the queue depth, *repetitions* per depth (None:
    the files' own)."""

    name: str
    metric: str
    folder: Path
    repetitions: int | None = None

    def _file(self, protocol: str) -> str:
        return point_path(sweep_file(self.folder, protocol))

    def _points(self, protocol: str, depth: int) -> list[Point]:
        file = self._file(protocol)
        count = self.repetitions or scenario_file(file).run.repetitions
        return [Point(file, repetition=k, iodepth=depth) for k in range(count)]

    def depths(self, protocol: str) -> tuple[int, ...]:
        """The queue depths the sweep of *protocol* runs."""
        return swept_job(self._file(protocol)).iodepths

    @property
    def points(self) -> list[Point]:
        """Every simulation point the figure needs."""
        return [p for protocol in PROTOCOLS for depth in self.depths(protocol)
                for p in self._points(protocol, depth)]

    def _values(self, results: dict[Point, dict[str, Any]], protocol: str,
                read: Callable[[dict[str, Any]], float]) -> list[list[float]]:
        """*read* of the swept job's results, per depth of *protocol*'s sweep
        and repetition."""
        job = swept_job(self._file(protocol)).name
        return [[read(results[p]["storage"]["jobs"][job]) for p in self._points(protocol, depth)]
                for depth in self.depths(protocol)]

    def series(self, results: dict[Point, dict[str, Any]]) -> list[dict[str, Any]]:
        """The lines drawn: ``{"label", "x", "values"}`` with the repetition
        values at each depth, IOPS in thousands or latency in µs."""
        lines = []
        for protocol, name in PROTOCOLS.items():
            depths = list(self.depths(protocol))
            if self.metric == "iops":
                lines.append({"label": name, "x": depths, "values": self._values(
                    results, protocol, lambda job: job["iops"] / 1e3)})
                continue
            for percentile in PERCENTILES:
                lines.append({"label": f"{name} {percentile}", "x": depths,
                              "values": self._values(results, protocol, lambda job, p=percentile:
                                                     job["latency_s"][p] * 1e6)})
        return lines

    def title(self) -> str:
        """The figure's title, from the swept job (of the NVMe file)."""
        options = swept_job(self._file("nvme")).options
        what = "IOPS" if self.metric == "iops" else "latency p50 and p99"
        return (f"fio {options.rw} {size_label(options.bs)}, SCSI-FCP against NVMe/FC: "
                f"{what} against the queue depth")

    def draw(self, results: dict[Point, dict[str, Any]], out: Path) -> None:
        """Write the figure as the PNG file *out* from the points' *results*."""
        degradation_figure(self.series(results), self.title(), "Queue depth (fio iodepth)",
                           METRICS[self.metric], out, ylog=self.metric == "latency")


def plan_nvme_vs_fcp(folder: Path, repetitions: int | None = None) -> list[QueueDepthFigure]:
    """The IOPS and latency figures of the two sweeps in *folder*."""
    missing = [sweep_file(folder, p).name for p in PROTOCOLS
               if not sweep_file(folder, p).is_file()]
    if missing:
        raise FileNotFoundError(f"no nvme-vs-fcp sweep files ({', '.join(missing)}) in {folder}")
    return [QueueDepthFigure(f"nvme-vs-fcp-{metric}.png", metric, folder, repetitions)
            for metric in METRICS]
