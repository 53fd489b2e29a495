"""The papers' figures: planning the grid, narrowing it, and short real runs to PNG files."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from fcsim.scenario.loader import load_scenario
from fcsim.validation import figures_rd11
from fcsim.validation.figures import (
    PAPERS,
    figure_points,
    plan_figures,
    write_figures,
)
from fcsim.validation.figures_ong_farrell import PRINTED, SIZED
from fcsim.validation.points import ROOT, Point

PNG = b"\x89PNG\r\n\x1a\n"
RD11 = ROOT / "scenarios" / "rd11"


def test_full_ong_farrell_grid() -> None:
    plans = plan_figures("ong-farrell")
    assert len(plans) == 28
    assert plans[0].name == "fig06-stream-c110-to-c110.png"
    assert plans[0].title == "Figure 6: Bandwidth Performance from C110 to C110"
    assert plans[0].metric == "throughput"
    assert plans[14].title == "Figure 20: Latency Performance from C110 to C110"
    assert plans[14].metric == "latency"
    # every point of the 28 files; TCP_RR figures also as printed: one 1-byte
    # transaction per socket (netperf's TCP_RR ignores -m)
    assert len(figure_points("ong-farrell")) == 28 * 9 * 16 * 5 + 14 * 9 * 5
    rr = plans[14]
    assert [s.label for s in rr.series] == [SIZED, PRINTED]
    assert all(p.sized for p in rr.series[0].points)
    assert {p.size for p in rr.series[1].points} == {1} and not rr.series[1].points[0].sized


def test_narrowed_ong_farrell_grid() -> None:
    points = figure_points("ong-farrell", sockets=[32768, 262143], sizes=[1, 1024, 65536],
                           pairs=["c110-to-c110", "735-to-j210"], repetitions=2, length=1.0)
    # 2 pairs x (stream, rr) files x 2 sockets x 3 sizes x 2 repetitions, and the
    # rr files as printed: one 1-byte transaction per socket and repetition
    assert len(points) == 4 * 2 * 3 * 2 + 2 * 2 * 2
    assert {p.scenario for p in points} == {
        "scenarios/ong-farrell/fig06-stream-c110-to-c110.toml",
        "scenarios/ong-farrell/fig20-rr-c110-to-c110.toml",
        "scenarios/ong-farrell/fig18-stream-735-to-j210.toml",
        "scenarios/ong-farrell/fig32-rr-735-to-j210.toml"}
    assert {p.length for p in points} == {1.0}
    assert {p.repetition for p in points} == {0, 1}


@pytest.mark.parametrize(("options", "message"), [
    ({"pairs": ["c110-to-c999"]}, "pair c110-to-c999 not among the figures; allowed: "
                                  "735-to-c110, "),
    ({"sockets": [32768, 1000]}, "socket size 1000 not in the grid of "
                                 "fig06-stream-c110-to-c110.toml; allowed: 4096, 8192, "),
    ({"sizes": [3]}, "message size 3 not in the grid of fig06-stream-c110-to-c110.toml; "
                     "allowed: 1, 4, 16, "),
    ({"repetitions": 0}, "repetitions must be at least 1, got 0"),
    ({"length": 0.0}, "length must be > 0 s, got 0.0"),
    ({"experiments": ["mem-rr"]}, "experiments select rd11 figures"),
])
def test_bad_options_are_named(options: dict, message: str) -> None:
    with pytest.raises(ValueError, match="^" + message.replace("(", r"\(")):
        plan_figures("ong-farrell", **options)


def test_unknown_paper() -> None:
    with pytest.raises(ValueError, match="unknown paper 'rd12'; known: ong-farrell, rd11, hpss, "
                       "das2, slice, nvme-vs-fcp"):
        plan_figures("rd12")
    assert PAPERS == ("ong-farrell", "rd11", "hpss", "das2", "slice", "nvme-vs-fcp")


def test_hpss_figures_take_only_repetitions() -> None:
    with pytest.raises(ValueError, match="^sizes: not options of the hpss figures"):
        plan_figures("hpss", sizes=[1024])
    plans = plan_figures("hpss", repetitions=2)
    assert [p.name for p in plans] == ["read.png", "write.png", "nine-streams.png"]
    # read: 1 and 2 streams on four paths; write: three series; nine: two files
    assert [len(p.points) for p in plans] == [16, 24, 4]


def test_hpss_bars_sum_each_path_s_streams(tmp_path: Path) -> None:
    (plan,) = [p for p in plan_figures("hpss") if p.name == "nine-streams.png"]
    results = {point: {"transfers": {f"t{k}": {"steady_bytes_per_s": 1e6 * (k + 1)}
                                     for k in range(9)}} for point in plan.points}
    plan.draw(results, tmp_path / "nine.png")
    assert (tmp_path / "nine.png").read_bytes().startswith(b"\x89PNG")


def test_slice_figure_4_takes_only_repetitions_and_draws_a_line_per_server_count(
        tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="^pairs: not options of the slice figures"):
        plan_figures("slice", pairs=["c110-to-c110"])
    plans = plan_figures("slice", repetitions=2)
    assert [p.name for p in plans] == ["fig4-read.png", "fig4-write.png"]
    assert [len(p.points) for p in plans] == [32, 32]  # 4 servers x 4 disks x 2 repetitions
    assert {p.scenario for p in plans[0].points} == {
        f"scenarios/slice/read-{s}s-{d}d.toml" for s in range(1, 5) for d in range(1, 5)}
    (read, _write) = plan_figures("slice")
    def rate(point: Point) -> float:
        servers, disks = re.search(r"(\d)s-(\d)d", point.scenario).groups()
        return 1e6 * min(18 * int(servers) * int(disks), 96)
    results = {point: {"storage": {"jobs": {"dd-read": {"ios": 1,
                                                        "throughput_bytes_per_s": rate(point)}}}}
               for point in read.points}
    read.draw(results, tmp_path / "fig4-read.png")
    assert (tmp_path / "fig4-read.png").read_bytes().startswith(b"\x89PNG")


def test_ong_farrell_figures_written(tmp_path: Path) -> None:
    done: list[Point] = []
    paths = write_figures("ong-farrell", tmp_path / "figures", jobs=2, repetitions=1,
                          length=0.2, sockets=[65536], sizes=[1024, 65536],
                          pairs=["c110-to-c110"], progress=lambda n, point: done.append(point))
    assert [p.name for p in paths] == ["fig06-stream-c110-to-c110.png",
                                       "fig20-rr-c110-to-c110.png"]
    assert all(p.read_bytes().startswith(PNG) for p in paths)
    assert len(done) == 4 + 1  # and the TCP_RR as printed (1-byte transactions)


def _rd11_folder(tmp_path: Path, names: dict[str, str]) -> Path:
    """A folder holding copies of RD11 files under new names (new name: original)."""
    for new, old in names.items():
        shutil.copy(RD11 / old, tmp_path / new)
    return tmp_path


def test_rd11_discovery(tmp_path: Path) -> None:
    folder = _rd11_folder(tmp_path, {
        "custom-load-small-1.toml": "mem-rr-load-small-1.toml",
        "custom-load-none.toml": "mem-rr-load-none.toml",
        "custom-load-odd.toml": "mem-rr-load-large-1.toml",
        "mem-stream-load-large-2.toml": "mem-stream-load-large-2.toml",
        "load-large-1-alone.toml": "load-large-1-alone.toml"})
    plans = plan_figures("rd11", folder=folder, sizes=[1, 1024], repetitions=3)
    assert [(p.name, p.title, p.metric) for p in plans] == [
        ("mem-stream.png", "RD11 loaded fabric – From memory to memory: Throughput",
         "throughput"),
        ("mem-stream-cpu.png", "RD11 loaded fabric – CPU (From memory to memory)", "cpu"),
        ("custom.png", "RD11 loaded fabric – custom: Communication latency", "latency")]
    assert plans[1].series == plans[0].series  # the same runs, another of their figures
    assert [s.label for s in plans[2].series] == ["no load", "1 small-message load pair", "odd"]
    assert {s.workload for p in plans for s in p.series} == {"test"}
    assert all(len(s.points) == 2 * 3 for p in plans for s in p.series)
    reps = load_scenario(RD11 / "mem-rr-load-none.toml").run.repetitions
    assert len(figure_points("rd11", folder=folder, experiments=["custom"])) == 3 * 11 * reps


def test_rd11_errors(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no rd11 scenario files"):
        plan_figures("rd11", folder=tmp_path)
    folder = _rd11_folder(tmp_path, {"mem-rr-load-none.toml": "mem-rr-load-none.toml"})
    with pytest.raises(ValueError, match="experiment send-large has no files in .*; "
                                         "allowed: mem-rr$"):
        plan_figures("rd11", folder=folder, experiments=["send-large"])
    with pytest.raises(ValueError, match="pairs select ong-farrell figures"):
        plan_figures("rd11", folder=folder, pairs=["c110-to-c110"])


@pytest.mark.skipif(not (RD11 / "mem-stream-load-none.toml").exists(),
                    reason="no RD11 scenario files")
def test_rd11_figures_written(tmp_path: Path) -> None:
    paths = write_figures("rd11", tmp_path, jobs=2, repetitions=1, length=0.2,
                          sizes=[1024, 65536], experiments=["mem-stream"])
    paths += write_figures("rd11", tmp_path, jobs=2, repetitions=1, length=0.2,
                           sizes=[64, 512], experiments=["send-small"])
    assert paths == [tmp_path / name for name in (
        "mem-stream.png", "mem-stream-cpu.png", "load-small-1-throughput.png",
        "load-small-1-overhead.png", "send-small.png", "send-small-overhead.png",
        "send-small-cpu.png", "load-small-1-throughput.png", "load-small-1-overhead.png")]
    assert all(path.read_bytes().startswith(PNG) for path in paths)


def test_rd11_figure_16_draws_the_load_during_each_test_sweep(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The small-message load's figures beside each experiment's sweep, on the
    time since the sweep began (each message size run for the test's length),
    with the load alone drawn flat."""
    folder = _rd11_folder(tmp_path, {
        "mem-rr-load-small-1.toml": "mem-rr-load-small-1.toml",
        "mem-rr-load-none.toml": "mem-rr-load-none.toml",
        "send-small-load-small-1.toml": "send-small-load-small-1.toml",
        "load-small-1-alone.toml": "load-small-1-alone.toml"})
    plans = plan_figures("rd11", folder=folder, sizes=[1, 64], repetitions=2)
    load = [p for p in plans if p.x == "duration"]
    assert [(p.name, p.metric) for p in load] == [
        ("load-small-1-throughput.png", "throughput"), ("load-small-1-overhead.png", "overhead")]
    assert [s.label for s in load[0].series] == [
        "beside the latency test", "beside small-message writes", "no test beside it"]
    assert {s.workload for s in load[0].series} == {"load1"}
    assert [len(s.points) for s in load[0].series] == [2 * 2, 2 * 2, 2]
    beside = load[0].series[0].points
    assert beside == plans[0].series[1].points  # the very runs of the experiment's figure
    results = {p: {"netperf": {"load1": {"throughput_mbit_s": 5.0 + (p.size or 0) / 64,
                                         "send_call_s": 1e-4}}}
               for p in {p for s in load[0].series for p in s.points}}
    drawn: list[list[dict]] = []
    monkeypatch.setattr(figures_rd11, "degradation_figure",
                        lambda series, *args, **kwargs: drawn.append(series))
    figures_rd11.draw_rd11(load[0], results, tmp_path / "x.png")
    latency, writes, alone = drawn[0]
    sizes = list(load_scenario(folder / "mem-rr-load-small-1.toml").workloads[0].send_sizes)
    assert latency["x"] == [(sizes.index(1) + 1) * 1.0, (sizes.index(64) + 1) * 1.0]
    assert latency["values"] == [[5 + 1 / 64] * 2, [6.0, 6.0]]
    assert alone["x"] == [0.0, max(latency["x"] + writes["x"])]
    assert alone["values"] == [[5.0, 5.0]] * 2


def test_das2_plans_the_checked_grid() -> None:
    plans = plan_figures("das2")
    assert [p.name for p in plans] == ["tcp-throughput.png", "udp-delivered.png"]
    assert len(figure_points("das2")) == 5 * 4 + 5 * 3
    assert len(figure_points("das2", repetitions=2)) == 2 * (5 * 4 + 5 * 3)
    with pytest.raises(ValueError, match="^sockets: not options of the das2 figures"):
        plan_figures("das2", sockets=[32768])


def test_das2_figures_written_from_results(tmp_path: Path) -> None:
    """The drawing alone, from made-up results (the simulations are the checks')."""
    from fcsim.validation.figures_das2 import draw_das2

    results = {}
    for plan in plan_figures("das2"):
        for point in plan.points:
            value = 990.0 if point.rate is None else min(point.rate / 1e6, 957.0)
            results[point] = {"iperf": {"mesh": {"median_mbit_s": value}}}
        draw_das2(plan, results, tmp_path / plan.name)
        assert (tmp_path / plan.name).read_bytes().startswith(PNG)
