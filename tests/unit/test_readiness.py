"""A run that ends before the network is up says so, in the summary and the JSON."""

from __future__ import annotations

from fcsim.report import summary_text
from fcsim.runner import run_scenario
from fcsim.scenario.workload_model import StreamConfig
from tests.builders import fabric, loop


def _big_loop(duration: float, warmup: float = 0.0):
    """126 NL_Ports: initialisation (with LIRP/LILP) takes about 1.2 ms at 1GFC."""
    return loop(126, (StreamConfig("w", "p0", "p5", 2048),), duration=duration, warmup=warmup)


def test_loop_still_initialising_is_flagged() -> None:
    results = run_scenario(_big_loop(1e-3))
    rep = results["repetitions"][0]
    assert rep["network_up_s"] is None
    assert len(rep["warnings"]) == 1 and "not a result" in rep["warnings"][0]
    assert "initialising" in rep["warnings"][0]
    text = summary_text(results)
    assert text.splitlines()[3].startswith("WARNING: not a result: the run ended before the "
                                           "network was up: the loop was initialising")


def test_loop_up_after_the_warmup_is_flagged() -> None:
    results = run_scenario(_big_loop(3e-3, warmup=0.5e-3))
    rep = results["repetitions"][0]
    assert rep["network_up_s"] > 0.5e-3
    assert rep["workloads"]["w"]["payload_bytes"] > 0
    assert "lengthen the warm-up" in rep["warnings"][0]
    assert "WARNING: the network came up at" in summary_text(results)


def test_fabric_login_unfinished_is_flagged() -> None:
    scenario = fabric({"a": "sw:0", "b": "sw:1"}, (StreamConfig("w", "a", "b", 2048),),
                      duration=10e-6)
    rep = run_scenario(scenario)["repetitions"][0]
    assert rep["network_up_s"] is None
    assert "had not completed login" in rep["warnings"][0]


def test_a_run_on_a_network_that_is_up_has_no_warning() -> None:
    results = run_scenario(_big_loop(3e-3, warmup=1.5e-3))
    rep = results["repetitions"][0]
    assert rep["warnings"] == [] and rep["network_up_s"] < 1.5e-3
    assert "WARNING" not in summary_text(results)
