"""fcsim installed from its wheel (not editable) finds its device models, the
papers' scenarios and the claims: it runs an example and a validation claim
from a folder outside the source tree."""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bin folder of a fresh virtual environment with fcsim's wheel installed."""
    work = tmp_path_factory.mktemp("wheel")
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w",
                    str(work / "dist"), str(ROOT)], check=True, env=env, cwd=work)
    wheel = next((work / "dist").glob("fcsim-*.whl"))
    venv.create(work / "venv", with_pip=True)
    bin_dir = work / "venv" / "bin"
    subprocess.run([str(bin_dir / "pip"), "install", "-q", str(wheel)], check=True, env=env)
    return bin_dir


def _fcsim(bin_dir: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run([str(bin_dir / "fcsim"), *args], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=300)


def test_an_example_runs_with_its_switch_model(installed: Path, tmp_path: Path) -> None:
    result = _fcsim(installed, tmp_path, "run",
                    str(ROOT / "scenarios" / "fabric-16-port-switch.toml"), "--json")
    assert result.returncode == 0, result.stderr
    assert '"model": "ancor-fcs-266-16"' in result.stdout


def test_a_claim_validates_and_reports_in_the_current_folder(installed: Path,
                                                             tmp_path: Path) -> None:
    result = _fcsim(installed, tmp_path, "validate", "--claims", "ONG-LINE")
    assert result.returncode == 0, result.stderr
    assert "1 pass, 0 fail" in result.stdout
    assert (tmp_path / "validation-report" / "report-partial" / "index.html").is_file()
    refused = _fcsim(installed, tmp_path, "validate", "--claims", "ONG-LINE", "--record")
    assert refused.returncode == 2 and "source checkout" in refused.stderr
