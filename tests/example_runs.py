"""Runs of the example scenarios that more than one test file checks: a
scenario (its value: every key, its seed) is simulated once per test
process, and each caller gets its own copy of the results to read or
change."""

from __future__ import annotations

import copy
from functools import cache
from typing import Any

from fcsim.runner import run_scenario
from fcsim.scenario.model import Scenario


@cache
def _first_repetition(scenario: Scenario) -> dict[str, Any]:
    return run_scenario(scenario)["repetitions"][0]


def first_repetition(scenario: Scenario) -> dict[str, Any]:
    """The results of *scenario*'s first repetition, as :func:`run_scenario`
    gives them; simulated once per process for equal scenarios."""
    return copy.deepcopy(_first_repetition(scenario))
