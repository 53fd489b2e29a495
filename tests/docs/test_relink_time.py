"""docs/faults.md's closed form for relinking a cable put back, against the
model: the number of cable delays and words it states, and its worked figure
for scenarios/p2p-pulled-cable.toml, are the model's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fcsim.fc0.speed import speed_named
from fcsim.fc2.port_states import LOS_DEASSERT, RECOGNITION_WORDS, SYNC_WORDS
from fcsim.runner import run_once
from fcsim.scenario.loader import load_scenario

ROOT = Path(__file__).resolve().parents[2]
FAULTS = (ROOT / "docs" / "faults.md").read_text(encoding="utf-8")
FORMULA = re.compile(r"T = (\d+) d \+ t_LOS \+ \((\d+) \+ (\d+) x (\d+)\) W")
FIGURE = re.compile(r"T = ([\d.]+) us \(both ports Active")
HANDSHAKE = ("NOS", "OLS", "LR", "LRR", "IDLE")


def _active_after_cable_back() -> tuple[float, float, float]:
    """(time from the cable put back to both ports Active, s; the cable's
    one-way delay, s; the word time, s) in the pulled-cable example."""
    scenario = load_scenario(ROOT / "scenarios" / "p2p-pulled-cable.toml")
    (link,) = scenario.links
    up = next(f.at for f in scenario.faults if f.kind == "link-up")
    record = next(r for r in run_once(scenario, 1)["faults"]["schedule"]
                  if r["kind"] == "link-up")
    recognised = [(float(m[1]) * 1e-3, m[2], m[3]) for e in record["events"]
                  if (m := re.match(r"([\d.]+) ms \S+ \S+ -> (\S+): (\S+) recognised", e))]
    assert [name for _, _, name in recognised] == [n for n in HANDSHAKE for _ in "ab"]
    active = max(t for t, state, _ in recognised if state == "AC")
    return active - up, link.cable.delay, speed_named(link.speed.name).word_time


def test_the_docs_closed_form_counts_the_models_steps() -> None:
    match = FORMULA.search(FAULTS)
    assert match, "docs/faults.md states T = N d + t_LOS + (S + K x R) W"
    delays, sync, steps, words = map(int, match.groups())
    assert (delays, sync, steps, words) == (len(HANDSHAKE), SYNC_WORDS, len(HANDSHAKE),
                                            RECOGNITION_WORDS)
    taken, d, w = _active_after_cable_back()
    assert taken == pytest.approx(delays * d + LOS_DEASSERT + (sync + steps * words) * w,
                                  abs=1e-9)  # the events give times to the ns


def test_the_docs_worked_figure_is_the_models() -> None:
    match = FIGURE.search(FAULTS)
    assert match, "docs/faults.md gives T for the pulled-cable example"
    taken, _, _ = _active_after_cable_back()
    assert float(match[1]) == pytest.approx(taken * 1e6, abs=0.005)
