"""Device models named by catalog name or by file path; names cannot leave the catalog."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from fcsim.catalog import MODELS_DIR
from fcsim.scenario.loader import ScenarioError, load_scenario

FABRIC = """\
topology = "fabric"
[run]
duration = "1 ms"
[[switches]]
name = "sw"
model = "{model}"
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[links]]
ends = ["a", "sw:0"]
speed = "1GFC"
[[links]]
ends = ["b", "sw:1"]
speed = "1GFC"
"""


def _scenario(folder: Path, model: str) -> Path:
    path = folder / "s.toml"
    path.write_text(FABRIC.format(model=model))
    return path


def test_a_model_file_is_found_beside_the_scenario(tmp_path: Path) -> None:
    (tmp_path / "mine").mkdir()
    shutil.copy(MODELS_DIR / "switches" / "ancor-fcs-266-16.toml",
                tmp_path / "mine" / "my-switch.toml")
    by_path = load_scenario(_scenario(tmp_path, "mine/my-switch.toml")).switches[0].model
    by_name = load_scenario(_scenario(tmp_path, "ancor-fcs-266-16")).switches[0].model
    assert by_path.sources == by_name.sources
    assert by_path.routing_latency == by_name.routing_latency


@pytest.mark.parametrize(("model", "says"), [
    ("../hosts/workstation-120mhz", "is not a switch model name"),
    ("missing.toml", "no switch model file"),
    ("nonesuch", "no switch model 'nonesuch'; known: ancor-fcs-266-16"),
])
def test_bad_model_names_are_one_line_errors(tmp_path: Path, model: str, says: str) -> None:
    with pytest.raises(ScenarioError) as info:
        load_scenario(_scenario(tmp_path, model))
    message = str(info.value)
    assert "\n" not in message and says in message and "switches[0].model" in message


def test_a_model_file_that_is_not_toml_is_a_scenario_error(tmp_path: Path) -> None:
    (tmp_path / "bad.toml").write_text("routing_latency = [")
    with pytest.raises(ScenarioError, match="not a valid TOML model file"):
        load_scenario(_scenario(tmp_path, "bad.toml"))
