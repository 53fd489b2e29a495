"""The GigE examples' descriptions state what their 1 s runs show, and the
steady goodput they name is the wire's closed form MSS / (MSS + 78)."""

from __future__ import annotations

import re
import tomllib

import pytest

from fcsim.resources import DATA_ROOT
from fcsim.runner import run_scenario
from fcsim.scenario.loader import load_scenario

FRAME_BYTES = 8 + 14 + 4 + 12  # preamble and SFD, MAC header, FCS, inter-frame gap
HEADERS = 40  # IP and TCP


@pytest.mark.parametrize("name", ["gige-mtu-1500", "gige-mtu-9000"])
def test_description_states_what_the_run_shows(name: str) -> None:
    path = DATA_ROOT / "scenarios" / f"{name}.toml"
    description = tomllib.loads(path.read_text(encoding="utf-8"))["description"]
    text = " ".join(description.split())
    mss = int(re.search(r"with this MSS of (\d+)", text).group(1))
    wire = float(re.search(r"gigabit: (\d+) Mbit/s", text).group(1))
    shows = float(re.search(r"This 1 s run shows (\d+) Mbit/s", text).group(1))
    assert wire == round(1000 * mss / (mss + FRAME_BYTES + HEADERS))
    result = run_scenario(load_scenario(path))
    measured = result["repetitions"][0]["netperf"]["stream"]["throughput_mbit_s"]
    assert measured == pytest.approx(shows, abs=0.5)
    # the start-up the description names costs about 150 ms of the second
    assert (1 - measured / (1000 * mss / (mss + FRAME_BYTES + HEADERS))) == pytest.approx(
        0.15, abs=0.01)
