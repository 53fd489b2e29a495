"""fcsim run --report: one self-contained HTML page that renders in a browser."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from fcsim.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "scenarios" / "fabric-16-port-switch.toml"


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("report") / "run"
    text = EXAMPLE.read_text().replace('duration = "50 ms"', 'duration = "8 ms"')
    scenario = folder.parent / "fabric.toml"
    scenario.write_text(text)
    assert main(["run", str(scenario), "--report", str(folder)]) == 0
    return folder / "index.html"


def test_the_page_holds_summary_topology_and_plots(page: Path) -> None:
    text = page.read_text()
    assert text.count("<svg") == 6  # the topology and five plots
    for heading in ("Summary", "Topology", "Link utilisation per direction",
                    "BB credit available", "Switch output queue length", "Workload throughput",
                    "Sequence latency"):
        assert heading in text
    # nothing to fetch: no external script, style sheet, image or link
    assert "<script src" not in text and "<link" not in text
    assert 'href="http' not in text and 'src="http' not in text


def test_the_report_does_not_change_the_results(tmp_path: Path, capsys) -> None:
    text = EXAMPLE.read_text().replace('duration = "50 ms"', 'duration = "8 ms"')
    scenario = tmp_path / "fabric.toml"
    scenario.write_text(text)
    assert main(["run", str(scenario), "--json"]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main(["run", str(scenario), "--json", "--report", str(tmp_path / "r")]) == 0
    assert json.loads(capsys.readouterr().out) == plain


@pytest.mark.skipif(shutil.which("chromium") is None, reason="chromium not installed")
def test_the_page_renders_in_a_browser_without_script_errors(page: Path, tmp_path: Path) -> None:
    dom = subprocess.run(
        ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom",
         page.as_uri()], capture_output=True, text=True, timeout=120,
        env={"HOME": str(tmp_path)}).stdout
    assert 'data-rendered="6"' in dom
    assert "data-script-error" not in dom


@pytest.mark.parametrize("example", ["das2-vlan-loopback", "san-array", "san-jbod-loop"])
def test_every_technology_gets_a_page(example: str, tmp_path: Path) -> None:
    """Ethernet switches and storage targets plot too (their queues, links)."""
    text = (ROOT / "scenarios" / f"{example}.toml").read_text()
    text = (text.replace('duration = "1.2 s"', 'duration = "30 ms"')
            .replace('duration = "1.1 s"', 'duration = "20 ms"')
            .replace('interval = "250 ms"', 'interval = "5 ms"')
            .replace('duration = "1 s"', 'duration = "30 ms"')
            .replace('warmup = "100 ms"', 'warmup = "0 s"')
            .replace('duration = "400 ms"', 'duration = "30 ms"')
            .replace('warmup = "50 ms"', 'warmup = "0 s"'))
    scenario = tmp_path / f"{example}.toml"
    scenario.write_text(text)
    assert main(["run", str(scenario), "--report", str(tmp_path / "r")]) == 0
    page = (tmp_path / "r" / "index.html").read_text()
    assert "Link utilisation per direction" in page and page.count("<svg") >= 3
    assert ("Storage queue depth" in page) == example.startswith("san-")


def test_txwait_over_time_in_the_report(tmp_path: Path) -> None:
    """The slow-drain example sampled every 100 us: one sample per interval;
    the F_Port to the slow host waits for credit all the time it does not
    send, so its TxWait fractions after the first frames are about one less
    its utilisation, as the run's counter says; the port to the local host
    never waits; the page plots TxWait and transitions to zero credit."""
    from fcsim.runner import _run_once
    from fcsim.scenario.loader import load_scenario
    from fcsim.trace.timeseries import TimeSeries

    path = ROOT / "scenarios" / "fabric-slow-drain.toml"
    scenario = load_scenario(path)
    interval = 100e-6
    series = TimeSeries(interval=interval)
    out, _ = _run_once(scenario, scenario.run.seed, (), None, series)
    duration, warmup = scenario.run.duration, scenario.run.warmup
    assert len(series.time) == round(duration / interval) - 1
    assert series.time[-1] == pytest.approx(duration - interval)
    port = out["switches"]["edge2"]["ports"]["0"]["tx"]
    after = [w for t, w in zip(series.time, series.txwait["edge2:0->slow"], strict=True)
             if t > warmup + interval / 2]
    assert sum(after) / len(after) == pytest.approx(port["txwait_fraction"], rel=0.01)
    assert port["txwait_fraction"] == pytest.approx(1 - port["utilisation"], abs=0.01)
    assert sum(series.credit_zero["edge2:0->slow"]) > 100
    assert not any(series.txwait["edge1:3->local"])
    tmp = tmp_path / "slow.toml"
    tmp.write_text(path.read_text().replace('duration = "10 ms"', 'duration = "4 ms"'))
    assert main(["run", str(tmp), "--report", str(tmp_path / "r"),
                 "--report-interval", "100 us"]) == 0
    page = (tmp_path / "r" / "index.html").read_text()
    assert "TxWait per switch port" in page
    assert "Transitions to zero transmit credit per switch port" in page


def test_sampled_txwait_matches_the_ports_counter() -> None:
    """Sampled without a warm-up, the TxWait fractions of a port times the
    interval add up to its counter at the last sample."""
    from fcsim.build import BUILDERS, build_workloads
    from fcsim.engine.simulation import Simulation
    from fcsim.scenario.loader import load_scenario
    from fcsim.trace.timeseries import TimeSeries

    scenario = load_scenario(ROOT / "scenarios" / "fabric-slow-drain.toml")
    sim = Simulation(1)
    net = BUILDERS[scenario.topology](sim, scenario)
    workloads = build_workloads(sim, scenario, net)
    series = TimeSeries(interval=250e-6)
    series.attach(sim, net, workloads, 5e-3)
    sim.run(5e-3 - 125e-6)
    port = net.switches["edge2"].ports[0].port
    for name in ("edge2:0->slow", "core:1->edge2:30"):
        sampled = sum(series.txwait[name]) * 250e-6
        counted = (port if name.startswith("edge2") else net.switches["core"].ports[1].port)
        at_last = counted.credit_wait_now()  # 125 us after the last sample
        assert at_last - 125e-6 - 1e-12 <= sampled <= at_last + 1e-12
    assert sum(series.credit_zero["edge2:0->slow"]) <= port.stats.credit_zero


def test_report_interval_needs_a_report(capsys) -> None:
    assert main(["run", str(EXAMPLE), "--report-interval", "100 us"]) == 2
    assert "--report-interval: given without --report" in capsys.readouterr().err


def test_the_ingress_limit_over_time(tmp_path: Path) -> None:
    """The DIRL example's page plots the limit of edge2's port to the slow
    host, a step at each change the results list."""
    from fcsim.run_report import _ingress_limits

    text = (ROOT / "scenarios" / "fabric-slow-drain-dirl.toml").read_text()
    path = tmp_path / "dirl.toml"
    path.write_text(text.replace('duration = "100 ms"', 'duration = "12 ms"')
                    .replace('warmup = "40 ms"', 'warmup = "2 ms"'))
    assert main(["run", str(path), "--report", str(tmp_path / "r"), "--report-interval",
                 "500 us"]) == 0
    assert "Ingress limit per F_Port" in (tmp_path / "r" / "index.html").read_text()
    changes = [{"port": "sw:1", "at_s": 1e-3, "limit": 0.5},
               {"port": "sw:1", "at_s": 2e-3, "limit": 0.25}]
    results = {"repetitions": [{"cures": {"ingress_limit": {"changes": changes}}}]}
    assert _ingress_limits(results, [0.5e-3, 1e-3, 1.5e-3, 2.5e-3]) == {
        "sw:1": [1.0, 0.5, 0.5, 0.25]}


def test_congestion_isolation_over_time(tmp_path: Path) -> None:
    """The isolation example's page plots when the slow host was isolated, a
    step from 0 to 1 at each isolation and back at each recovery."""
    from fcsim.run_report import _isolated

    path = ROOT / "scenarios" / "fabric-slow-drain-isolation.toml"
    assert main(["run", str(path), "--report", str(tmp_path / "r"), "--report-interval",
                 "500 us"]) == 0
    assert "Devices on the low-priority virtual channel" in (
        tmp_path / "r" / "index.html").read_text()
    events = [{"device": "slow", "time_s": 1e-3, "action": "isolated"},
              {"device": "slow", "time_s": 2e-3, "action": "recovered"}]
    results = {"repetitions": [{"cures": {"isolation": {"events": events}}}]}
    assert _isolated(results, [0.5e-3, 1e-3, 1.5e-3, 2.5e-3]) == {
        "slow": [0.0, 1.0, 1.0, 0.0]}
def test_fabric_notifications_get_their_plots(tmp_path: Path) -> None:
    """With [fpin], the page plots when each N_Port received each kind of FPIN
    and each throttled initiator's limit over time; the summary on it has
    the notification lines."""
    text = (ROOT / "scenarios" / "fabric-slow-drain-fpin.toml").read_text().replace(
        'duration = "60 ms"', 'duration = "15 ms"').replace('warmup = "10 ms"', 'warmup = "0 s"')
    scenario = tmp_path / "fpin.toml"
    scenario.write_text(text)
    assert main(["run", str(scenario), "--report", str(tmp_path / "r")]) == 0
    page = (tmp_path / "r" / "index.html").read_text()
    assert "FPINs received" in page and "Throttled initiators' limit" in page
    assert "fabric notifications (first repetition, whole run)" in page
    assert "slow throttled:" in page


def test_path_states_follow_the_devices_events() -> None:
    """A path failed at 1 ms and reinstated at 3 ms, marginal from 4 ms; the
    other never changes."""
    from fcsim.run_report import path_states
    events = [{"time_s": 1e-3, "path": "a", "event": "failed (I/O error 0x03)"},
              {"time_s": 3e-3, "path": "a", "event": "reinstated (path checker)"},
              {"time_s": 4e-3, "path": "a", "event": "marginal (FPIN Link Integrity)"},
              {"time_s": 5e-3, "path": "", "event": "path group 1 (b) in use"}]
    device = {"paths": {"a": {}, "b": {}}, "events": events}
    assert path_states(device, 0.01) == {
        "a": [(0.0, 1e-3, "active"), (1e-3, 3e-3, "failed"), (3e-3, 4e-3, "active"),
              (4e-3, 0.01, "marginal")],
        "b": [(0.0, 0.01, "active")]}


def test_a_marginal_isl_report_shows_the_path_states_and_the_fpins(tmp_path: Path) -> None:
    """The marginal-ISL example's page has the path-state timeline, the FPINs
    received, and the summary's path events."""
    text = (ROOT / "scenarios" / "multipath-marginal-isl.toml").read_text().replace(
        'duration = "250 ms"', 'duration = "70 ms"')
    scenario = tmp_path / "marginal.toml"
    scenario.write_text(text)
    assert main(["run", str(scenario), "--report", str(tmp_path / "r")]) == 0
    page = (tmp_path / "r" / "index.html").read_text()
    assert "each path&#x27;s state" in page or "each path's state" in page
    assert "FPINs received" in page and "marginal (FPIN Link Integrity)" in page
