"""The Python API: key paths, checking as the loader does, tables and sweeps."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fcsim.api import KeyPathError, Study
from fcsim.scenario.loader import ScenarioError

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "scenarios" / "p2p-1gfc-class3.toml"


def test_set_changes_the_scenario_and_checks_it() -> None:
    study = Study(EXAMPLE).set("links[0].length", "10 km").set("run.duration", "2 ms")
    assert study.scenario.links[0].cable.length == 10_000.0
    assert study.scenario.run.duration == 2e-3
    with pytest.raises(ScenarioError, match=r"links\[0\]\.length: given '-3 km'"):
        study.set("links[0].length", "-3 km")
    assert study.scenario.links[0].cable.length == 10_000.0  # unchanged by the refusal


def test_key_paths_that_name_nothing_are_one_line_errors() -> None:
    study = Study(EXAMPLE)
    for path in ("links[5].length", "links.length[", "run.duration[0]"):
        with pytest.raises(KeyPathError) as info:
            study.set(path, 1)
        assert "\n" not in str(info.value)


def test_table_and_sweep() -> None:
    study = Study(EXAMPLE).set("run.duration", "3 ms").set("run.warmup", "1 ms")
    table = study.table()
    rates = table[(table.metric == "throughput_bytes_per_s") & (table.name == "write")]
    assert len(rates) == 1 and 90e6 < rates.value.iloc[0] < 104e6
    swept = study.sweep("links[0].speed", ["1GFC", "2GFC"])
    rates = swept[swept.metric == "throughput_bytes_per_s"]
    one, two = (rates[rates["links[0].speed"] == s].value.iloc[0] for s in ("1GFC", "2GFC"))
    assert 1.9 < two / one < 2.1


def test_the_documented_example_runs(capsys) -> None:
    text = (ROOT / "docs" / "api.md").read_text()
    (code,) = re.findall(r"```python\n(.*?)```", text, re.S)
    exec(compile(code, "docs/api.md", "exec"), {})  # noqa: S102 - the docs' own example
    assert "km" in capsys.readouterr().out


def test_without_pandas_tables_and_sweeps_refuse_before_simulating(monkeypatch) -> None:
    import sys

    import fcsim.api

    def simulated(*args, **kwargs):
        raise AssertionError("simulated before finding that pandas is missing")

    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas raises ImportError
    monkeypatch.setattr(fcsim.api, "run_scenario", simulated)
    study = Study(EXAMPLE)
    for call in (study.table, lambda: study.sweep("links[0].length", ["1 km", "2 km"])):
        with pytest.raises(ImportError, match=r"pip install 'fcsim\[notebook\]'"):
            call()
    assert study.run is not None  # a run without a table needs no pandas


def test_a_sweep_checks_every_value_before_simulating(monkeypatch) -> None:
    import fcsim.api

    runs = []
    monkeypatch.setattr(fcsim.api, "run_scenario", lambda scenario: runs.append(scenario))
    with pytest.raises(ScenarioError, match=r"links\[0\]\.length: given '-3 km'"):
        Study(EXAMPLE).sweep("links[0].length", ["1 km", "-3 km"])
    assert runs == []
