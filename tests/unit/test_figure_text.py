"""Every figure the project draws can be read: rendered, no two text labels
(tick labels, legend entries, titles, axis labels) overlap by matplotlib's own
text extents, no legend lies on the data, no text runs off the figure, no axis
carries an offset such as 1e7 instead of a unit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

import fcsim.run_report
from fcsim.cli import main
from fcsim.plot_layout import overlaps
from fcsim.validation import figures_ong_farrell as ong
from fcsim.validation import plots
from fcsim.validation import report as validation_report
from fcsim.validation.figures import plan_figures
from fcsim.validation.points import Point

ROOT = Path(__file__).resolve().parents[2]
RECORDED = ROOT / "validation" / "report" / "results.json"


def _unreadable(fig: Figure) -> list[str]:
    title = " / ".join(ax.get_title() for ax in fig.axes if ax.get_title()) or "figure"
    return [f"{title}: {problem}" for problem in overlaps(fig)]


def test_the_check_finds_overlapping_labels_and_a_legend_on_the_data() -> None:
    fig = Figure(figsize=(3, 2), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ax.plot([0, 1e7], [0, 2e7], label="a line")
    ax.set_xticks([0, 1, 2], ["a long label", "another long label", "a third"])
    ax.legend(loc="center")
    found = overlaps(fig)
    assert any("'a long label' overlaps 'another long label'" in p for p in found), found
    assert any("a legend lies on the axes" in p for p in found), found
    assert any("offset '1e7'" in p for p in found), found


def _kept(monkeypatch: pytest.MonkeyPatch, module: object, name: str, result: object
          ) -> list[Figure]:
    """Figures *module*.*name* (a function taking the figure first) is given,
    kept instead of written; it returns *result*."""
    kept: list[Figure] = []

    def keep(fig: Figure, *_args: object) -> object:
        kept.append(fig)
        return result
    monkeypatch.setattr(module, name, keep)
    return kept


def test_the_validation_report_s_figures_are_readable(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every plot of the recorded validation results, as the report draws it."""
    kept = _kept(monkeypatch, validation_report, "png_bytes", b"")
    outcomes = json.loads(RECORDED.read_text(encoding="utf-8"))["outcomes"]
    plotted = [o for o in outcomes if o.get("plot")]
    assert {"ONG-SMALLMSG", "ONG-PEAK"} <= {o["id"] for o in plotted}
    for outcome in plotted:
        validation_report.render_plot(outcome["plot"])
    assert len(kept) == len(plotted)
    assert [p for fig in kept for p in _unreadable(fig)] == []


@pytest.mark.parametrize("example", ["fabric-16-port-switch.toml",
                                     "fabric-core-edge-isls.toml",
                                     "fabric-storage-on-core.toml",
                                     "fabric-slow-drain.toml",
                                     "fabric-slow-drain-fpin.toml",
                                     "multipath-marginal-isl.toml",
                                     "fabric-slow-drain-isolation.toml"])
def test_the_run_report_s_figures_are_readable(example: str, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    kept = _kept(monkeypatch, fcsim.run_report, "_svg", "<svg></svg>")
    text = (ROOT / "scenarios" / example).read_text(encoding="utf-8")
    scenario = tmp_path / example
    scenario.write_text(text.replace('duration = "50 ms"', 'duration = "8 ms"')
                        .replace('duration = "40 ms"', 'duration = "12 ms"')
                        .replace('duration = "60 ms"', 'duration = "15 ms"')
                        .replace('duration = "250 ms"', 'duration = "70 ms"'), encoding="utf-8")
    assert main(["run", str(scenario), "--report", str(tmp_path / "report")]) == 0
    assert len(kept) >= 5
    throughput = next(fig for fig in kept if "throughput" in fig.axes[0].get_title())
    assert throughput.axes[0].get_ylabel() == "throughput (MB/s)"
    assert [p for fig in kept for p in _unreadable(fig)] == []


def test_the_paper_style_figures_are_readable(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """RD11's loaded-fabric lines with eleven series, grouped bars over many
    groups, and the Ong & Farrell panels of every pair."""
    kept = _kept(monkeypatch, plots, "save_png", None)
    x = [256, 512, 1024, 2048, 4096, 8192, 16384, 65536, 262144, 1048576]
    series = [{"label": f"C{n}10->J{n}10 loaded", "x": x,
               "values": [[n * 8.0 + v] for v in range(len(x))]} for n in range(11)]
    plots.degradation_figure(series, "Figure 3", "message size (bytes)", "Mbit/s",
                             tmp_path / "a.png")
    groups = [f"C110->C180 {s} B" for s in range(245760, 245760 + 28)]
    plots.grouped_bars_figure(groups, [{"label": "simulated", "values": [[1.0]] * 28},
                                       {"label": "paper", "values": [[2.0]] * 28}],
                              "Many groups", "ratio", tmp_path / "b.png")
    ong_kept = _kept(monkeypatch, ong, "save_png", None)
    for plan in plan_figures("ong-farrell")[:2]:
        results = {p: _made_up(plan.metric, p) for p in plan.points}
        ong.draw_ong_farrell(plan, results, tmp_path / "c.png")
    assert len(kept) == 2 and len(ong_kept) == 2
    assert [p for fig in kept + ong_kept for p in _unreadable(fig)] == []


def test_the_nvme_vs_fcp_figures_are_readable(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """IOPS, and latency on its base-2 axis, against the nine queue depths."""
    kept = _kept(monkeypatch, plots, "save_png", None)
    for plan in plan_figures("nvme-vs-fcp"):
        results = {p: {"storage": {"jobs": {"writes": {
            "iops": min(p.iodepth / 61e-6, 5e5),
            "latency_s": {"p50": max(61e-6, p.iodepth * 2e-6),
                          "p99": max(62e-6, p.iodepth * 2e-6)}}}}} for p in plan.points}
        plan.draw(results, tmp_path / plan.name)
    assert len(kept) == 2
    assert kept[1].axes[0].get_yscale() == "log"
    assert [p for fig in kept for p in _unreadable(fig)] == []


def _made_up(metric: str, point: Point) -> dict:
    if metric == "latency":
        size = point.size if point.sized else 1
        return {"netperf": {"rr": {"round_trip_s": 340e-6 + 0.45e-6 * size}}}
    return {"netperf": {"stream": {"throughput_mbit_s": min(85.0, point.size / 50)}}}
