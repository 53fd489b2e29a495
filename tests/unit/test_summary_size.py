"""A summary of a large fabric lists the busiest links, switches and ports, not all."""

from __future__ import annotations

from fcsim.report import summary_text
from fcsim.report_totals import FEW
from fcsim.runner import run_scenario
from fcsim.scenario.model import StreamConfig
from tests.builders import fabric


def test_a_large_fabric_summary_lists_the_busiest() -> None:
    nodes = {f"n{i}": f"s{i // 10}:{i % 10}" for i in range(60)}
    isls = tuple((f"s{j}:20", f"s{j + 1}:21") for j in range(5))
    scenario = fabric(nodes, (StreamConfig("w", "n0", "n59", 8192, count=20),),
                      duration=2e-3, switches={f"s{j}": "generic-nonblocking" for j in range(6)},
                      isls=isls)
    results = run_scenario(scenario)
    text = summary_text(results)
    assert len(text.splitlines()) < 150
    assert f"ports (first repetition): the {FEW} busiest of 60 (all in --json)" in text
    assert "  n0 (" in text and "  n59 (" in text  # the busy ones are listed
    assert len(results["repetitions"][0]["nodes"]) == 60
