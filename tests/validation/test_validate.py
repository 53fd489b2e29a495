"""fcsim validate: claim selection, outcomes, regressions and the exit status."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from fcsim.cli import main
from fcsim.validation.checks import Verdict
from fcsim.validation.claims import load_claims
from fcsim.validation.validate import finish, outcome, select, validate

CLAIMS = load_claims()


def test_select_quick_all_and_named() -> None:
    assert select(CLAIMS) == CLAIMS
    assert all(c.quick for c in select(CLAIMS, quick=True))
    assert [c.id for c in select(CLAIMS, only=["ONG-4K", "ONG-LINE"])] == ["ONG-4K", "ONG-LINE"]
    with pytest.raises(ValueError, match="unknown claim NOPE"):
        select(CLAIMS, only=["NOPE"])


def test_the_line_rate_claim_runs_and_passes_with_its_arithmetic(tmp_path: Path) -> None:
    claims = select(CLAIMS, only=["ONG-LINE"])
    outcomes, meta = validate(claims, jobs=1, stream=io.StringIO())
    (line,) = outcomes
    assert line["status"] == "passes"
    assert 25.6 <= float(line["simulated"].split()[0]) <= 25.9  # 8b/10b and framing: 25.83
    assert "250 Mbps" in line["detail"] and "200 Mbit/s" in line["detail"]
    out = io.StringIO()
    assert finish(outcomes, meta, tmp_path / "report", out) == 0
    saved = json.loads((tmp_path / "report" / "results.json").read_text())
    assert saved["outcomes"][0]["id"] == "ONG-LINE"


def test_a_recorded_pass_that_fails_is_a_regression_and_exits_1(tmp_path: Path) -> None:
    claim = next(c for c in CLAIMS if c.id == "ONG-LINE")
    passing = claim.__class__(**{**claim.__dict__, "status": "passes"})
    failing = outcome(passing, Verdict("1 MB/s", "fails", "too slow"))
    out = io.StringIO()
    assert finish([failing], {}, tmp_path / "r", out) == 1
    assert "regression" in out.getvalue() and "ONG-LINE" in out.getvalue()
    honest = outcome(claim.__class__(**{**claim.__dict__, "status": "fails"}),
                     Verdict("1 MB/s", "fails", "too slow"))
    assert finish([honest], {}, tmp_path / "r", io.StringIO()) == 0


def test_cli_rejects_unknown_claims_and_readme_with_quick(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "--claims", "NOPE"]) == 2
    err = capsys.readouterr().err
    assert "unknown claim NOPE" in err and err.count("\n") == 1
    assert main(["validate", "--quick", "--readme"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fcsim: error: --readme") and err.count("\n") == 1


def test_a_point_narrows_the_sweep_and_its_length() -> None:
    from fcsim.scenario.workload_model import NetperfConfig
    from fcsim.validation.points import Point, narrow

    point = Point("scenarios/ong-farrell/fig20-rr-c110-to-c110.toml", 65536, 4096, 2, 0.5)
    scenario = narrow(point)
    (rr,) = [w for w in scenario.workloads if isinstance(w, NetperfConfig)]
    assert not rr.sweeps
    options = rr.point(rr.sockets[0], rr.send_sizes[0])
    # as printed: TCP_RR ignores -m, 1-byte transactions
    assert (options.local_socket, options.request, options.response) == (65536, 1, 1)
    assert options.length == 0.5
    assert 0.5 < scenario.run.duration <= rr.start + 0.5 + 0.011
    assert "socket 65536 msg 4096 rep 3" in point.label()
    sized = Point(point.scenario, 65536, 4096, 2, 0.5, sized=True)
    (rr,) = [w for w in narrow(sized).workloads if isinstance(w, NetperfConfig)]
    options = rr.point(rr.sockets[0], rr.send_sizes[0])
    assert (options.request, options.response) == (4096, 4096)
    assert "-r m,m" in sized.label()


def test_progress_writes_the_first_point_then_a_line_per_tenth_when_not_a_terminal() -> None:
    from fcsim.progress import Progress
    from fcsim.validation.points import Point

    out = io.StringIO()
    progress = Progress(20, out)
    for done in range(1, 21):
        progress(done, Point("x.toml", None, None, done - 1).label())
    lines = out.getvalue().splitlines()
    assert len(lines) == 11
    assert lines[0].startswith("[ 1/20]   5%") and lines[-1].startswith("[20/20] 100%")


def test_a_run_without_its_figure_fails_the_claim_instead_of_stopping_the_run() -> None:
    from fcsim.validation.checks import CHECKS, rr_file
    from fcsim.validation.points import Point
    from fcsim.validation.validate import _judge

    claim = next(c for c in CLAIMS if c.id == "ONG-LAT1")
    empty = {"netperf": {"rr": {"test": "TCP_RR", "transactions": 0}}}
    results = {p: empty for p in CHECKS["ONG-LAT1"].points()}
    verdict = _judge(claim, results)
    assert verdict.status == "fails"
    first = Point(rr_file(("c110", "c110")), 32768, 1, 0)
    assert f"{first.label()}: the run gave no round_trip_s" in verdict.detail


def test_every_experiment_file_loads_and_every_check_names_existing_points() -> None:
    from fcsim.scenario.loader import load_scenario
    from fcsim.scenario.workload_model import NetperfConfig
    from fcsim.validation.checks import CHECKS
    from fcsim.validation.points import ROOT, scenario_file

    files = [path for folder in ("ong-farrell", "rd11", "hpss", "slice")
             for path in sorted((ROOT / "scenarios").glob(f"{folder}/*.toml"))]
    assert len(files) == 29 + 24 + 25 + 34
    for path in files:
        assert load_scenario(path).description, path.name
    for check in CHECKS.values():
        for point in check.points():
            scenario = scenario_file(point.scenario)
            assert point.repetition < scenario.run.repetitions
            swept = [w for w in scenario.workloads if isinstance(w, NetperfConfig) and w.sweeps]
            if point.size is not None:
                (workload,) = swept
                assert point.size in workload.send_sizes, point
                assert point.socket is None or point.socket in workload.sockets, point


def test_a_result_store_skips_finished_points_and_keeps_them_on_interrupt(
        tmp_path, monkeypatch) -> None:
    import pytest

    from fcsim.validation import batch
    from fcsim.validation.batch import run_points
    from fcsim.validation.points import Point
    from fcsim.validation.store import ResultStore

    wanted = [Point("scenarios/ong-farrell/line-rate.toml", repetition=r) for r in range(3)]
    store = ResultStore(tmp_path / "results.sqlite")
    done: list[str] = []

    def stop_after_two(count: int, label: str) -> None:
        done.append(label)
        if count == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_points(wanted, 1, stop_after_two, store)
    assert sum(store.get(p) is not None for p in wanted) == 2  # kept what finished
    fresh = run_points(wanted, 1, store=store)
    assert all(store.get(p) == fresh[p] for p in wanted)

    def no_simulation(point: Point) -> dict:
        raise AssertionError(f"{point} simulated again")

    monkeypatch.setattr(batch, "run_point", no_simulation)
    assert run_points(wanted, 1, store=store) == fresh
    store.close()


def test_a_stored_result_is_keyed_by_the_simulator_and_the_scenario() -> None:
    from fcsim.validation.points import Point
    from fcsim.validation.store import point_key

    point = Point("scenarios/ong-farrell/line-rate.toml")
    assert point_key(point) == point_key(Point("scenarios/ong-farrell/line-rate.toml"))
    assert point_key(point) != point_key(Point("scenarios/ong-farrell/line-rate.toml",
                                               repetition=1))
    assert point_key(point) != point_key(Point("scenarios/rd11/load-large-1-alone.toml"))


def test_only_a_recorded_full_run_writes_the_tracked_report(monkeypatch) -> None:
    """The report in the checkout is the recorded one: other runs write theirs into a
    folder git ignores, so validating leaves the checkout clean."""
    import importlib
    import shutil
    import subprocess

    from fcsim.resources import SOURCE_ROOT

    # The command imports validate and finish when it runs (they load matplotlib).
    run = importlib.import_module("fcsim.validation.validate")
    git = shutil.which("git")
    if git is None or subprocess.run([git, "ls-files", "--error-unmatch",
                                      "validation/report/index.html"], cwd=SOURCE_ROOT,
                                     capture_output=True).returncode != 0:
        pytest.skip("not a git checkout with the recorded report")
    written: list[tuple[Path, bool]] = []
    monkeypatch.setattr(run, "validate", lambda claims, jobs, store, scheduler: ([], {}))
    monkeypatch.setattr(run, "finish", lambda outcomes, meta, report, record, readme:
                        written.append((report, record)) or 0)
    for argv in (["validate"], ["validate", "--quick"], ["validate", "--claims", "ONG-LINE"],
                 ["validate", "--claims", "ONG-LINE", "--record"], ["validate", "--record"]):
        assert main([*argv, "--no-store"]) == 0
    for report, _record in written[:-1]:
        ignored = subprocess.run([git, "check-ignore", "-q", str(report / "index.html")],
                                 cwd=SOURCE_ROOT).returncode == 0
        assert ignored and report != SOURCE_ROOT / "validation" / "report", report
    assert written[-1] == (SOURCE_ROOT / "validation" / "report", True)


def test_the_workers_inherit_every_scenario_file_their_points_read() -> None:
    """run_points reads each point's scenario file before it forks its workers,
    and the cache has room for every file of fcsim validate, so no worker
    parses one again."""
    from fcsim.validation.batch import run_points
    from fcsim.validation.checks import CHECKS
    from fcsim.validation.points import Point, scenario_file

    files = {p.scenario for check in CHECKS.values() for p in check.points()}
    assert scenario_file.cache_info().maxsize >= len(files)
    scenario_file.cache_clear()
    line = "scenarios/ong-farrell/line-rate.toml"
    run_points([Point(line, repetition=r) for r in range(2)], jobs=2)
    assert scenario_file.cache_info().currsize == 1  # read here, before the fork
