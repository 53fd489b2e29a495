"""Large fabrics drawn as their overview (switch tiers as rings, N_Ports counted per
switch) and reported: the 239-domain example as PNG and SVG without SciPy, its
labels apart, and its run report, whose drawing is made before the simulation."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

from fcsim.cli import main
from fcsim.drawing.overview import overview, overview_figure, positions
from fcsim.drawing.topology import DETAILED_VERTICES, topology_graph
from fcsim.scenario.loader import load_scenario
from tests.text_overlap import overlapping_labels

ROOT = Path(__file__).resolve().parents[2]
BIG = ROOT / "scenarios" / "fabric-239-domains.toml"


@pytest.fixture(scope="module")
def big_graph():
    return topology_graph(load_scenario(BIG))


def test_the_239_domain_example_draws_as_png_and_svg_without_scipy(tmp_path: Path,
                                                                   monkeypatch) -> None:
    import matplotlib.image

    monkeypatch.setitem(sys.modules, "scipy", None)  # as where SciPy is not installed
    for suffix in (".png", ".svg"):
        out = tmp_path / f"big{suffix}"
        assert main(["topology", str(BIG), "-o", str(out)]) == 0
    assert "<svg" in (tmp_path / "big.svg").read_text()[:2000]
    height, width, _ = matplotlib.image.imread(tmp_path / "big.png").shape
    assert width >= 2000 and height >= 2000  # room for 235 switch names around the ring


def test_the_overview_shows_the_tiers_and_counts_the_n_ports(big_graph) -> None:
    assert len(big_graph) > DETAILED_VERTICES
    view = overview(big_graph)
    assert [len(tier) for tier in view.tiers] == [4, 235]
    assert set(view.tiers[0]) == {"c0", "c1", "c2", "c3"}
    assert set(view.nports) == set(view.tiers[1]) and set(view.nports.values()) == {17}
    assert sum(view.isls.values()) == 940 and set(view.isls.values()) == {1}
    assert view.caption() == ("239 switches in 2 tiers, inside out: 4, 235 (with the "
                              "N_Ports); 3,995 N_Ports, 17 on each of 235 switches, links "
                              "4GFC; 940 ISLs, 4GFC")
    where = positions(view)
    radii = {name: math.hypot(*where[name]) for name in where}
    assert all(radii[c] == pytest.approx(0.5) for c in view.tiers[0])
    assert all(radii[e] == pytest.approx(1.0) for e in view.tiers[1])


def test_a_fat_tree_has_three_tiers_with_each_pod_together(tmp_path: Path) -> None:
    """k = 4: 4 cores, 8 aggregation and 8 edge switches (Al-Fares et al.); an
    aggregation switch sits among the edge switches of its pod."""
    path = tmp_path / "tree.toml"
    path.write_text('name = "tree"\ntopology = "fabric"\n[run]\nduration = "1 us"\n'
                    '[fabric]\nkind = "fat-tree"\npods = 4\nnodes_per_switch = 3\n'
                    'speed = "4GFC"\nmodel = "generic-nonblocking"\ntraffic = "none"\n')
    view = overview(topology_graph(load_scenario(path)))
    assert [len(tier) for tier in view.tiers] == [4, 8, 8]
    assert all(name.startswith("c") for name in view.tiers[0])
    assert all("a" in name for name in view.tiers[1])
    where = positions(view)

    def angle(name: str) -> float:
        return math.atan2(where[name][1], where[name][0])

    for pod in range(4):
        edges = [angle(f"p{pod}e{i}") for i in range(2)]
        middle = math.atan2(sum(map(math.sin, edges)), sum(map(math.cos, edges)))
        for i in range(2):  # within a quarter turn of its pod's edge switches
            off = abs((angle(f"p{pod}a{i}") - middle + math.pi) % (2 * math.pi) - math.pi)
            assert off < math.pi / 4


def test_no_two_labels_of_the_overview_overlap(big_graph) -> None:
    figure = overview_figure(big_graph, "239 domains")
    assert sum(len(ax.texts) for ax in figure.axes) > 2 * 235  # every name, every count
    assert overlapping_labels(figure) == []


def test_a_report_of_the_239_domain_example(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "scipy", None)
    scenario = tmp_path / "big.toml"
    scenario.write_text(BIG.read_text().replace('duration = "1 ms"', 'duration = "4 us"')
                        .replace('warmup = "200 us"', 'warmup = "1 us"'))
    assert main(["run", str(scenario), "--report", str(tmp_path / "report")]) == 0
    page = (tmp_path / "report" / "index.html").read_text()
    assert "3,995 N_Ports" in page and page.count("<svg") >= 6


def test_a_report_makes_its_drawing_before_simulating(tmp_path: Path, monkeypatch) -> None:
    """A drawing that cannot be made stops the run before it simulates, and leaves no
    report folder."""
    import fcsim.cli
    import fcsim.run_report

    simulated = []

    def no_drawing(*args, **kwargs):
        raise RuntimeError("no drawing")

    monkeypatch.setattr(fcsim.run_report, "draw_topology", no_drawing)
    monkeypatch.setattr(fcsim.cli, "run_scenario", lambda *a, **k: simulated.append(a))
    with pytest.raises(RuntimeError, match="no drawing"):
        main(["run", str(ROOT / "scenarios" / "p2p-1gfc-class3.toml"), "--report",
              str(tmp_path / "report")])
    assert simulated == [] and not (tmp_path / "report").exists()
