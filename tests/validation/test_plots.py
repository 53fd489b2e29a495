"""Paper-style figures: size labels and degradation lines as PNG files."""

from __future__ import annotations

from pathlib import Path

import matplotlib.image
import pytest

from fcsim.validation.plots import (
    degradation_figure,
    log_x_axis,
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


def test_degradation_figure(tmp_path: Path) -> None:
    out = tmp_path / "rd11.png"
    series = [{"label": "no load", "x": [1, 2, 4, 8], "values": [[10, 11], [9], [None], [7, 8]]},
              {"label": "3 loaded pairs", "x": [1, 2, 4, 8], "values": [[5], [4], [3], [2]]}]
    degradation_figure(series, "Figure 3", "loaded pairs", "Mbit/s", out)
    height, width = _read_png(out)
    assert width == 960 and height > 600  # 8 x 5 inches at 120 dpi, grown by the legend below
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
