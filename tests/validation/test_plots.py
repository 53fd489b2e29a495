"""Paper-style figures: size labels, netperf sweeps and degradation lines as PNG files."""

from __future__ import annotations

from pathlib import Path

import matplotlib.image
import pytest
from matplotlib.figure import Figure

from fcsim.validation import plots
from fcsim.validation.plots import (
    degradation_figure,
    log_x_axis,
    netperf_figure,
    new_figure,
    size_label,
    whiskers,
)

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(("n", "label"), [(0, "0 B"), (1, "1 B"), (1000, "1000 B"),
                                          (1024, "1 KB"), (4096, "4 KB"), (32768, "32 KB"),
                                          (245760, "240 KB"), (262143, "262143 B"),
                                          (2**20, "1 MB"), (2097152, "2 MB"),
                                          (3 * 2**19, "1536 KB")])
def test_size_label(n: int, label: str) -> None:
    assert size_label(n) == label


def _read_png(path: Path) -> tuple[int, int]:
    assert path.read_bytes().startswith(PNG)
    image = matplotlib.image.imread(path)
    return image.shape[0], image.shape[1]


def _points() -> list[dict]:
    return [{"socket": socket, "send_size": size, "values": [50.0 + i, 52.0 + i, None]}
            for socket in (262143, 4096) for i, size in enumerate([1, 4, 16, 1024, 2**21])]


def test_netperf_figure_writes_a_readable_png(tmp_path: Path) -> None:
    out = tmp_path / "figures" / "figure6.png"
    netperf_figure(_points(), "Figure 6: Bandwidth Performance from C110 to C110",
                   "throughput", out)
    assert _read_png(out) == (600, 960)  # 8 x 5 inches at 120 dpi
    assert [p.name for p in out.parent.iterdir()] == ["figure6.png"]


def test_netperf_figure_lines_legend_and_axes(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    figures: list[Figure] = []
    real = plots.new_figure

    def keep(*args: float) -> tuple:
        fig, ax = real(*args)
        figures.append(fig)
        return fig, ax

    monkeypatch.setattr(plots, "png_bytes", lambda fig: PNG)
    monkeypatch.setattr(plots, "new_figure", keep)
    points = _points() + [{"socket": 4096, "send_size": 64, "values": [None, None]},
                          {"socket": 8192, "send_size": 64, "values": []}]
    netperf_figure(points, "Figure 12: Latency", "latency", tmp_path / "f.png")
    ax = figures[0].axes[0]
    assert ax.get_title() == "Figure 12: Latency"
    assert ax.get_xlabel() == "Message size (bytes)"
    assert ax.get_ylabel() == "Latency (µs)"
    assert ax.get_xscale() == "log"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["socket 4 KB",
                                                                   "socket 262143 B"]
    line = ax.get_lines()[0]
    assert list(line.get_xdata()) == [1, 4, 16, 1024, 2**21]  # the empty 64-byte point is gone
    assert line.get_ydata()[0] == pytest.approx(51e6)  # mean of 50 s and 52 s in µs
    ticks = [ax.xaxis.get_major_formatter()(x, 0) for x in (1, 1024, 2**20)]
    assert ticks == ["1 B", "1 KB", "1 MB"]


def test_netperf_figure_without_values_still_writes(tmp_path: Path) -> None:
    out = tmp_path / "empty.png"
    netperf_figure([{"socket": 4096, "send_size": 1, "values": [None]}], "t", "throughput", out)
    assert _read_png(out)[0] > 0


def test_netperf_figure_refuses_unknown_metric(tmp_path: Path) -> None:
    with pytest.raises(KeyError):
        netperf_figure(_points(), "t", "jitter", tmp_path / "f.png")
    assert not (tmp_path / "f.png").exists()


def test_degradation_figure(tmp_path: Path) -> None:
    out = tmp_path / "rd11.png"
    series = [{"label": "no load", "x": [1, 2, 4, 8], "values": [[10, 11], [9], [None], [7, 8]]},
              {"label": "3 loaded pairs", "x": [1, 2, 4, 8], "values": [[5], [4], [3], [2]]}]
    degradation_figure(series, "Figure 3", "loaded pairs", "Mbit/s", out)
    assert _read_png(out) == (600, 960)
    degradation_figure(series, "Figure 3", "loaded pairs", "Mbit/s", out, xlog=False)
    assert _read_png(out)[0] > 0


def test_log_axis_uses_base_two_for_powers_of_two() -> None:
    _fig, ax = new_figure(4, 3, 50)
    log_x_axis(ax, [1, 2**21])
    ticks = ax.xaxis.get_major_locator()()
    assert ticks[0] == 1 and all(b == 4 * a for a, b in zip(ticks, ticks[1:], strict=False))
    _fig, ax = new_figure(4, 3, 50)
    log_x_axis(ax, [1, 3, 100])
    assert ax.get_xscale() == "log" and ax.xaxis.get_major_formatter()(100.0, 0) == "100"


def test_whiskers_reach_the_bounds() -> None:
    assert whiskers([5.0, 7.0], None, None) is None
    assert whiskers([5.0, 7.0], [4.0, 7.5], [6.0, 9.0]) == [[1.0, 0.0], [1.0, 2.0]]
    assert whiskers([5.0, 7.0], None, [6.0, 9.0]) == [[0.0, 0.0], [1.0, 2.0]]
