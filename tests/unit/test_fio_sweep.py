"""An fio job whose iodepth is a list is a sweep: one run per depth, each the
scenario narrowed to it, reported as a table; its depths are checked against
the target's queue, and a second sweeping workload is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from fcsim.report import summary_text
from fcsim.runner import run_scenario
from fcsim.scenario.loader import load_scenario
from fcsim.schema.errors import ScenarioError
from fcsim.sweep import point_label, sweep_points

SCENARIO = """
name = "t"
description = "t"
topology = "point-to-point"
[run]
duration = "1 ms"
[[nodes]]
name = "host"
[[nodes]]
name = "ram"
target = "tms-ramsan"
[[links]]
ends = ["host", "ram"]
speed = "4GFC"
[[workloads]]
name = "reads"
type = "fio"
from = "host"
to = "ram"
rw = "randread"
iodepth = {depths}
{extra}
"""


def _path(tmp_path: Path, depths: str, extra: str = "") -> Path:
    path = tmp_path / "s.toml"
    path.write_text(SCENARIO.format(depths=depths, extra=extra))
    return path


def test_each_depth_is_a_point(tmp_path: Path) -> None:
    scenario = load_scenario(_path(tmp_path, "[1, 4, 16]"))
    points = sweep_points(scenario)
    assert [p for p, _ in points] == [{"iodepth": 1}, {"iodepth": 4}, {"iodepth": 16}]
    for (point, narrowed) in points:
        job = narrowed.workloads[0]
        assert job.options.iodepth == point["iodepth"] and not job.iodepths
    assert point_label(points[1][0]) == "iodepth 4"
    assert sweep_points(load_scenario(_path(tmp_path, "8"))) == []


def test_the_report_has_a_row_per_depth_and_the_rows_obey_littles_law(
        tmp_path: Path) -> None:
    results = run_scenario(load_scenario(_path(tmp_path, "[1, 2, 8]")))
    assert [p["iodepth"] for p in results["points"]] == [1, 2, 8]
    for point in results["points"]:
        job = point["repetitions"][0]["storage"]["jobs"]["reads"]
        assert job["iodepth"] == point["iodepth"]
        assert job["iops"] * job["latency_s"]["mean"] == pytest.approx(point["iodepth"],
                                                                       rel=0.03)
    text = summary_text(results)
    assert "iodepth" in text and "IOPS" in text
    rows = [line.split() for line in text.splitlines() if line.split()[:1] in (["1"], ["2"],
                                                                              ["8"])]
    assert [r[0] for r in rows] == ["1", "2", "8"]


@pytest.mark.parametrize(("depths", "extra", "message"), [
    ("[1, 100000]", "", "workloads[0].iodepth: given 100000; at most the target's queue "
     "depth"),
    ("[1, 0]", "", "workloads[0].iodepth: given [1, 0]; an integer >= 1 (commands), or a "
     "non-empty list of them (a sweep)"),
    ("[1, 2]", '[[workloads]]\ntype = "fio"\nfrom = "host"\nto = "ram"\nrw = "read"\n'
     "iodepth = [4, 8]", "workloads[1].iodepth: given [4, 8]; no sweep: workloads[0] "
     "already sweeps"),
])
def test_bad_sweeps_get_one_line(depths: str, extra: str, message: str,
                                 tmp_path: Path) -> None:
    with pytest.raises(ScenarioError) as error:
        load_scenario(_path(tmp_path, depths, extra))
    assert message in str(error.value)
