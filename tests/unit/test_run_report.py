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
