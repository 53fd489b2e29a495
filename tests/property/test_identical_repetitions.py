"""Repetitions that are not simulated: a run whose first repetition draws no
random number gives the same results under every seed, so the runner copies
them. The copies must equal the repetitions simulated one by one."""

from __future__ import annotations

import dataclasses
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from fcsim.engine.simulation import Simulation
from fcsim.report import summary_text
from fcsim.runner import run_once, run_scenario
from fcsim.scenario.model import Scenario
from fcsim.scenario.workload_model import GeneratorConfig, StreamConfig
from fcsim.workload.distributions import Constant, Exponential
from tests.builders import fabric, loop, p2p


def repeated(scenario: Scenario, repetitions: int, seed: int = 3) -> Scenario:
    return dataclasses.replace(scenario, run=dataclasses.replace(
        scenario.run, repetitions=repetitions, seed=seed))


def one_by_one(scenario: Scenario) -> list[str]:
    """Every repetition simulated on its own, as JSON."""
    run = scenario.run
    return [json.dumps(run_once(scenario, run.seed + i), sort_keys=True)
            for i in range(run.repetitions)]


def test_a_run_knows_whether_it_drew_a_random_number() -> None:
    sim = Simulation(5)
    stream = sim.rng("a")
    sim.rng("b")
    assert not sim.drew_random()
    stream.random()
    assert sim.drew_random()


def test_without_random_input_the_copies_equal_the_runs() -> None:
    stream = StreamConfig("s", "a", "b", 8 * 2048, cls=2, outstanding=2)
    scenario = repeated(p2p((stream,), 0.002), 3)
    results = run_scenario(scenario)
    assert results["identical_repetitions"] is True
    assert [json.dumps(r, sort_keys=True) for r in results["repetitions"]] == \
        one_by_one(scenario)
    assert [r["seed"] for r in results["repetitions"]] == [3, 4, 5]
    assert "repetitions 2-3 not simulated" in summary_text(results)


def test_random_input_is_simulated_for_every_seed() -> None:
    load = GeneratorConfig("g", "a", "b", Exponential(20e-6), Constant(2048.0))
    scenario = repeated(p2p((load,), 0.002), 3)
    results = run_scenario(scenario)
    assert "identical_repetitions" not in results
    runs = [json.dumps(r, sort_keys=True) for r in results["repetitions"]]
    assert runs == one_by_one(scenario)
    assert len(set(runs)) == 3  # the seeds give different arrivals


@settings(max_examples=12, deadline=None)
@given(topology=st.sampled_from(["p2p", "fabric", "loop"]),
       size=st.integers(1, 5 * 2048), cls=st.sampled_from([1, 2, 3]),
       ber=st.sampled_from([0.0, 1e-6]), constant_load=st.booleans())
def test_copies_only_when_they_equal_the_runs(topology: str, size: int, cls: int, ber: float,
                                              constant_load: bool) -> None:
    """Over topologies, classes and bit error rates: the runner copies exactly
    when no random number was drawn, and what it gives equals the runs."""
    loads: tuple = (StreamConfig("s", "a", "b", size, cls=cls if topology != "loop" else 3,
                                 outstanding=2),)
    if constant_load:
        loads += (GeneratorConfig("g", "b", "a", Constant(50e-6), Constant(float(size))),)
    if topology == "p2p":
        scenario = p2p(loads, 0.002, bit_error_rate=ber)
    elif topology == "fabric":
        scenario = fabric({"a": "sw:0", "b": "sw:1"}, loads, 0.002, bit_error_rate=ber)
    else:
        scenario = loop(3, tuple(dataclasses.replace(w, source=f"p{0 if w.source == 'a' else 1}",
                                                     destination=f"p{1 if w.source == 'a' else 0}")
                                 for w in loads), 0.002, bit_error_rate=ber)
    scenario = repeated(scenario, 2)
    results = run_scenario(scenario)
    runs = [json.dumps(r, sort_keys=True) for r in results["repetitions"]]
    assert runs == one_by_one(scenario)
    if ber == 0.0:
        assert results.get("identical_repetitions") is True
