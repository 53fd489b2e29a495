"""``fcsim figures nvme-vs-fcp``: the SCSI-FCP against NVMe/FC sweeps of
docs/tutorials/12-nvme-vs-fcp.md drawn as IOPS and latency against the queue
depth, each plotted value the one ``fcsim run`` gives for the sweep's point."""

from __future__ import annotations

from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from fcsim.runner import run_scenario
from fcsim.scenario.loader import load_scenario
from fcsim.validation import figures_nvme_vs_fcp
from fcsim.validation.figures import figure_points, plan_figures, write_figures
from fcsim.validation.figures_nvme_vs_fcp import PROTOCOLS, sweep_file
from fcsim.validation.points import ROOT
from fcsim.validation.store import ResultStore

PNG = b"\x89PNG\r\n\x1a\n"
DEPTHS = (1, 64)
"""The short test sweep: one depth below the array's saturation, one above."""


def _short_sweeps(folder: Path) -> Path:
    """Copies of the two sweep files in *folder*, at :data:`DEPTHS` and 2 ms
    (1 ms measured) instead of every depth and 4 ms: the same host, switch and
    array, a quarter of the simulations."""
    folder.mkdir()
    for protocol in PROTOCOLS:
        text = sweep_file(ROOT / "scenarios", protocol).read_text()
        sweep = "iodepth = [1, 2, 4, 8, 16, 32, 64, 128, 256]"
        assert sweep in text and 'duration = "4 ms"' in text
        text = text.replace(sweep, f"iodepth = {list(DEPTHS)}")
        sweep_file(folder, protocol).write_text(text.replace('duration = "4 ms"',
                                                             'duration = "2 ms"'))
    return folder


def test_the_plan_is_both_sweeps_every_depth() -> None:
    iops, latency = plan_figures("nvme-vs-fcp")
    assert (iops.name, latency.name) == ("nvme-vs-fcp-iops.png", "nvme-vs-fcp-latency.png")
    assert iops.points == latency.points  # the same runs, two figures
    depths = load_scenario(ROOT / "scenarios" / "nvme-vs-fcp-sweep-nvme.toml").workloads[0]
    assert len(figure_points("nvme-vs-fcp")) == 2 * len(depths.iodepths)
    assert len(figure_points("nvme-vs-fcp", repetitions=3)) == 3 * 2 * len(depths.iodepths)
    assert {p.scenario for p in iops.points} == {"scenarios/nvme-vs-fcp-sweep-scsi.toml",
                                                "scenarios/nvme-vs-fcp-sweep-nvme.toml"}
    with pytest.raises(ValueError, match="^sizes: not options of the nvme-vs-fcp figures"):
        plan_figures("nvme-vs-fcp", sizes=[4096])


def test_missing_sweep_files_are_named(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="nvme-vs-fcp-sweep-scsi.toml, "
                                                "nvme-vs-fcp-sweep-nvme.toml"):
        plan_figures("nvme-vs-fcp", folder=tmp_path)


def test_the_figures_plot_the_sweeps_values(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _short_sweeps(tmp_path / "scenarios")
    with closing(ResultStore(tmp_path / "results.sqlite")) as store:
        paths = write_figures("nvme-vs-fcp", tmp_path / "figures", jobs=1, folder=folder,
                              store=store)
        assert [p.name for p in paths] == ["nvme-vs-fcp-iops.png", "nvme-vs-fcp-latency.png"]
        assert all(p.read_bytes().startswith(PNG) for p in paths)
        plans = plan_figures("nvme-vs-fcp", folder=folder)
        results = {p: store.get(p) for plan in plans for p in plan.points}
    assert None not in results.values()
    drawn: dict[str, list[dict[str, Any]]] = {}
    monkeypatch.setattr(figures_nvme_vs_fcp, "degradation_figure",
                        lambda series, title, xlabel, ylabel, out, **_: drawn.update(
                            {out.name: series}))
    for plan in plans:
        plan.draw(results, tmp_path / plan.name)
    iops, latency = drawn["nvme-vs-fcp-iops.png"], drawn["nvme-vs-fcp-latency.png"]
    for protocol, name in PROTOCOLS.items():
        sweep = run_scenario(load_scenario(sweep_file(folder, protocol)))["points"]
        jobs = [point["repetitions"][0]["storage"]["jobs"]["writes"] for point in sweep]
        assert [point["iodepth"] for point in sweep] == list(DEPTHS)
        (line,) = [line for line in iops if line["label"] == name]
        assert line["x"] == list(DEPTHS)
        assert line["values"] == [[job["iops"] / 1e3] for job in jobs]
        for percentile in ("p50", "p99"):
            (line,) = [line for line in latency if line["label"] == f"{name} {percentile}"]
            assert line["x"] == list(DEPTHS)
            assert line["values"] == [[job["latency_s"][percentile] * 1e6] for job in jobs]
    # what the tutorial's figures show: NVMe ahead below saturation, level above
    below = {line["label"]: line["values"][0][0] for line in iops}
    above = {line["label"]: line["values"][1][0] for line in iops}
    assert below["NVMe/FC"] > below["SCSI-FCP"]
    assert above["NVMe/FC"] == pytest.approx(above["SCSI-FCP"], rel=1e-3)

