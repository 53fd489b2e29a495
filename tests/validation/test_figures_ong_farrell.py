"""The Ong & Farrell figures as the paper draws them: a panel per socket size,
1 B to 2 MB, mean with min/max bars, latency on a readable log axis and both
readings of the TCP_RR command."""

from __future__ import annotations

from pathlib import Path

import matplotlib.image
import pytest
from matplotlib.figure import Figure

from fcsim.validation import figures_ong_farrell as ong
from fcsim.validation.figures import plan_figures
from fcsim.validation.points import Point

PNG = b"\x89PNG\r\n\x1a\n"


def _results(plan: ong.FigurePlan) -> dict[Point, dict]:
    """Made-up runs: 340 us for a 1-byte round trip growing with the message,
    throughput growing with it; each repetition a little higher than the last."""
    out = {}
    for point in plan.points:
        spread = 1 + 0.01 * point.repetition
        if plan.metric == "latency":
            size = point.size if point.sized else 1
            out[point] = {"netperf": {"rr": {"round_trip_s": (340e-6 + 0.45e-6 * size) * spread}}}
        else:
            out[point] = {"netperf": {"stream": {"throughput_mbit_s": min(85.0, point.size / 50)
                                                 * spread}}}
    return out


def _drawn(plan: ong.FigurePlan, out: Path, monkeypatch: pytest.MonkeyPatch) -> Figure:
    """Draw *plan* from :func:`_results`, keeping the figure for inspection."""
    kept: list[Figure] = []

    def keep(fig: Figure, _path: Path) -> None:
        fig.canvas.draw()
        kept.append(fig)

    monkeypatch.setattr(ong, "save_png", keep)
    ong.draw_ong_farrell(plan, _results(plan), out)
    return kept[0]


def test_tcp_rr_figures_plan_both_readings() -> None:
    rr = plan_figures("ong-farrell", pairs=["c110-to-c110"])[1]
    sized, printed = rr.series
    assert (sized.label, printed.label) == (ong.SIZED, ong.PRINTED)
    assert all(p.sized for p in sized.points)
    assert len(sized.points) == 9 * 16 * 5  # every socket and size, five repetitions
    assert {p.size for p in printed.points} == {1} and not any(p.sized for p in printed.points)
    assert len(printed.points) == 9 * 5  # one 1-byte run per socket and repetition


def test_throughput_figure_has_a_panel_per_socket(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    plan = plan_figures("ong-farrell", pairs=["c110-to-c110"])[0]
    fig = _drawn(plan, tmp_path / "fig06.png", monkeypatch)
    panels = [ax for ax in fig.axes if ax.axison]
    assert [ax.get_title() for ax in panels] == [
        f"socket {s} B" for s in (4096, 8192, 16384, 32768, 65536, 131072, 229376, 245760,
                                  262143)]
    ax = panels[0]
    assert ax.get_xscale() == "log" and ax.get_ylim()[0] == 0
    ticks = [t.get_text() for t in panels[6].get_xticklabels()]  # the bottom row's
    assert ticks[0] == "1 B" and ticks[-1] == "2 MB"
    # one line of 16 means with error bars reaching the lowest and highest repetition
    (line,) = [container.lines[0] for container in ax.containers]
    assert len(line.get_xdata()) == 16
    bars = ax.collections[0].get_segments()
    low, high = bars[-1][:, 1]
    assert low == pytest.approx(85.0) and high == pytest.approx(85.0 * 1.04)


def test_figure_written_as_png(tmp_path: Path) -> None:
    plan = plan_figures("ong-farrell", pairs=["c110-to-c110"])[0]
    ong.draw_ong_farrell(plan, _results(plan), tmp_path / "fig06.png")
    assert (tmp_path / "fig06.png").read_bytes().startswith(PNG)
    # three rows of three panels: 13.4 x 9.9 inches at 100 dpi
    assert matplotlib.image.imread(tmp_path / "fig06.png").shape[:2] == (990, 1340)


def test_latency_figure_reads_the_1_byte_region(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    plan = plan_figures("ong-farrell", pairs=["c110-to-c110"], sockets=[32768, 262143])[1]
    fig = _drawn(plan, tmp_path / "fig20.png", monkeypatch)
    panels = [ax for ax in fig.axes if ax.axison]
    assert [ax.get_title() for ax in panels] == ["socket 32768 B", "socket 262143 B"]
    ax = panels[0]
    assert ax.get_yscale() == "log"
    low, high = ax.get_ylim()
    assert low < 340 < 400 < high and high > 0.45e6 * 2**21 / 1e6
    labels = {t.get_text() for t in ax.get_yticklabels() if low <= t.get_position()[1] <= high}
    assert {"300", "500", "1,000"} <= labels
    sized, printed = [container.lines[0] for container in ax.containers]
    assert sized.get_linestyle() == "-" and printed.get_linestyle() == "--"
    assert list(printed.get_ydata()) == pytest.approx([340.45 * 1.02] * 16)  # the 1-byte mean
    assert "as printed: 347 µs (min 340, max 354)" in [t.get_text() for t in ax.texts]
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert legend == [ong.SIZED, ong.PRINTED]


def test_no_values_still_writes(tmp_path: Path) -> None:
    plan = plan_figures("ong-farrell", pairs=["c110-to-c110"], sockets=[4096], sizes=[1],
                        repetitions=1)[0]
    results = {p: {"netperf": {"stream": {"throughput_mbit_s": None}}} for p in plan.points}
    ong.draw_ong_farrell(plan, results, tmp_path / "empty.png")
    assert (tmp_path / "empty.png").read_bytes().startswith(PNG)
