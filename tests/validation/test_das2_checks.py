"""The DAS-2 claims' checks judge synthetic grids as their criteria say, and
the DAS-2 scenario files load with the grid the checks ask for."""

from __future__ import annotations

import pytest

from fcsim.scenario.workload_model import IperfConfig
from fcsim.validation.checks import CHECKS, das2
from fcsim.validation.checks.common import NoFigure
from fcsim.validation.points import ROOT, narrow, scenario_file

KIB = 1024


def _tcp(value: float, corner: float) -> dict[tuple[int, int], float]:
    return {(w, f): corner if das2.in_corner(w, f) else value
            for w in das2.WINDOW_SUMS for f in das2.FLOWS}


def test_the_corner_is_window_sums_to_64_kib_with_up_to_4_flows() -> None:
    assert das2.in_corner(32 * KIB, 1) and das2.in_corner(64 * KIB, 2)
    assert das2.in_corner(64 * KIB, 4)
    assert not das2.in_corner(128 * KIB, 1) and not das2.in_corner(32 * KIB, 6)


def test_tcp_passes_above_the_floor_with_a_lower_corner() -> None:
    verdict = das2.judge_tcp(_tcp(985.0, 600.0))
    assert verdict.status == "passes"
    assert "MTU 9000" in verdict.detail and "941.5" in verdict.detail
    assert verdict.plot is not None and len(verdict.plot["series"]) == len(das2.FLOWS)


def test_tcp_fails_below_the_floor_outside_the_corner() -> None:
    grid = _tcp(985.0, 600.0)
    grid[32 * KIB, 12] = 960.0
    verdict = das2.judge_tcp(grid)
    assert verdict.status == "fails" and "32 KiB/12 flows 960.0" in verdict.detail


def test_tcp_fails_when_the_corner_is_not_lower() -> None:
    verdict = das2.judge_tcp(_tcp(985.0, 975.0))
    assert verdict.status == "fails" and "where the report has it lower" in verdict.detail


def _udp(scale: float) -> dict[tuple[int, int, float], float]:
    capacity = das2.udp_capacity()
    return {(p, k, b): scale * min(p * k * b / 1e6, capacity)
            for p, k in das2.UDP_RUNS for b in das2.SHAPING}


@pytest.mark.parametrize(("scale", "status"), [(1.0, "passes"), (0.96, "passes"),
                                               (0.94, "fails"), (1.06, "fails")])
def test_udp_delivered_within_five_percent_of_min_offered_capacity(scale: float,
                                                                   status: str) -> None:
    verdict = das2.judge_udp(_udp(scale))
    assert verdict.status == status
    assert "not modelled" in verdict.detail


def test_framing_arithmetic() -> None:
    assert das2.tcp_goodput(1500) == pytest.approx(941.48, abs=0.01)
    assert das2.tcp_goodput(9000) == pytest.approx(990.04, abs=0.01)
    assert das2.udp_capacity() == pytest.approx(957.03, abs=0.01)


def test_a_run_without_interval_reports_has_no_figure() -> None:
    with pytest.raises(NoFigure):
        das2.mesh_figure({"median_mbit_s": None})
    assert das2.mesh_figure({"median_mbit_s": 5.0, "sum_of_medians_mbit_s": 7.0}) == 7.0


def test_the_scenario_files_hold_the_checked_grid() -> None:
    for flows in das2.FLOWS:
        path = das2.tcp_file(flows)
        scenario = scenario_file(path)
        (mesh,) = scenario.workloads
        assert isinstance(mesh, IperfConfig) and not mesh.options.udp
        assert len(mesh.clients) * len(mesh.servers) == flows
        assert mesh.windows == tuple(das2.per_flow_window(w, flows) for w in das2.WINDOW_SUMS)
        assert {n.mtu for n in scenario.nodes} == {9000}
        assert mesh.options.interval is not None
    for pairs, parallel in das2.UDP_RUNS:
        (mesh,) = scenario_file(das2.udp_file(pairs, parallel)).workloads
        assert mesh.options.udp and mesh.options.parallel == parallel
        assert len(mesh.clients) * len(mesh.servers) == pairs
        assert mesh.bandwidths == das2.SHAPING
    files = {p.name for p in (ROOT / "scenarios" / "das2").glob("*.toml")}
    assert files == {das2.tcp_file(f).rsplit("/", 1)[1] for f in das2.FLOWS} | {
        das2.udp_file(p, k).rsplit("/", 1)[1] for p, k in das2.UDP_RUNS}


def test_points_narrow_to_one_window_or_rate() -> None:
    tcp = CHECKS["DAS2-TCP"].points()
    udp = CHECKS["DAS2-UDP"].points()
    assert len(tcp) == len(das2.FLOWS) * len(das2.WINDOW_SUMS)
    assert len(udp) == len(das2.UDP_RUNS) * len(das2.SHAPING)
    (mesh,) = narrow(tcp[1]).workloads
    assert mesh.options.window == tcp[1].socket and not mesh.sweeps
    (mesh,) = narrow(udp[-1]).workloads
    assert mesh.options.bandwidth == udp[-1].rate and not mesh.sweeps
