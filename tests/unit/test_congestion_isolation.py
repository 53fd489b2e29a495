"""Congestion isolation: a device whose F_Port's TxWait passes the rising
threshold over a window is isolated at that window's end, its flows move to
the low-priority virtual channel, and the victims get back the rate the
ISLs leave them; with recovery, it goes back when its TxWait falls."""

from __future__ import annotations

from typing import Any

import pytest

from fcsim.fc2.frame import FRAMING_BYTES
from fcsim.resources import DATA_ROOT
from fcsim.runner import run_scenario
from fcsim.scenario.loader import read_document, scenario_from_document

EXAMPLE = DATA_ROOT / "scenarios" / "fabric-slow-drain-isolation.toml"


def _run(rate: float | None = None, isolation: dict[str, Any] | None = None,
         slow: dict[str, Any] | None = None, duration: str = "40 ms",
         warmup: str = "5 ms") -> dict[str, Any]:
    """The isolation example with one-frame sequences, the slow host draining
    *rate* B/s (or with the keys *slow* instead), its [congestion.isolation]
    updated by *isolation* (an empty dict: none at all)."""
    doc = read_document(EXAMPLE)
    doc["run"].update(duration=duration, warmup=warmup)
    for w in doc["workloads"]:
        w["size"] = "2112 B"  # one full frame a sequence: no partial sequence at the ends
    node = next(n for n in doc["nodes"] if n["name"] == "slow")
    if rate is not None:
        node["rx_drain_rate"] = f"{rate} B/s"
    if slow is not None:
        del node["rx_drain_rate"]
        node.update(slow)
    if isolation == {}:
        del doc["congestion"]
    elif isolation is not None:
        doc["congestion"]["isolation"].update(isolation)
    scenario = scenario_from_document(doc, str(EXAMPLE))
    results = run_scenario(scenario)
    first = results["repetitions"][0]
    first["rates"] = {name: results["summary"][name]["throughput_bytes_per_s"]["mean"]
                      for name in first["workloads"]}
    isl = next(link for link in scenario.links if link.name == "isl-core-edge2")
    first["line"] = isl.speed.baud / 10 * 2112 / (2112 + FRAMING_BYTES + 6 * 4)  # payload B/s
    return first


@pytest.mark.parametrize("rate", [15e6, 40e6, 120e6])
def test_isolated_slow_device_leaves_the_victim_what_the_isl_carries(rate: float) -> None:
    """Both streams start on the normal channel (VL3), where the slow device's
    frames hold the credit; its F_Port waits for credit most of the first
    window, so the first poll (at the window) isolates it, and from then on
    its frames take VL2: the victim gets the ISLs' payload rate less the slow
    flow's r within 1 % over the measured interval, the culprit keeps r.
    Without isolation both stay on VL3 and the victim gets r, as on one
    shared pool of credit."""
    first = _run(rate)
    events = first["cures"]["isolation"]["events"]
    window = first["cures"]["isolation"]["window_s"]
    assert [(e["action"], e["device"], e["port"]) for e in events] == [
        ("isolated", "slow", "edge2:0")]
    assert events[0]["time_s"] == pytest.approx(window, abs=1e-12)
    assert events[0]["txwait_fraction"] >= first["cures"]["isolation"]["rising_threshold"]
    assert first["cures"]["isolation"]["isolated"] == ["slow"]
    assert first["rates"]["to-slow"] == pytest.approx(rate, rel=0.01)
    assert first["rates"]["to-fast"] == pytest.approx(first["line"] - rate, rel=0.01)
    assert first["congestion"]["culprits"][0]["victims"] == []
    assert first["nodes"]["slow"]["discarded_frames"] == 0  # nothing overtaken, nothing lost
    plain = _run(rate, isolation={})
    assert "cures" not in plain
    assert plain["rates"]["to-fast"] == pytest.approx(rate, rel=0.01)
    victims = plain["congestion"]["culprits"][0]["victims"]
    assert [v["flow"] for v in victims] == ["array2->fast"]


def test_a_stuck_device_is_isolated_and_recovers() -> None:
    """A receiver stuck from 1 ms for 3 ms, polled every 0.5 ms with
    recovery: the window 1.0-1.5 ms is all stuck, so it is isolated at 1.5 ms;
    the window 4.0-4.5 ms is the first after it frees its buffers again, its
    TxWait under the falling threshold, so it recovers at 4.5 ms and no
    sooner; nothing else is isolated."""
    first = _run(slow={"rx_stuck_at": "1 ms", "rx_stuck_for": "3 ms"},
                 isolation={"window": "0.5 ms", "recover": True},
                 duration="8 ms", warmup="0 ms")
    events = [(e["action"], e["device"], round(e["time_s"] * 1e3, 9))
              for e in first["cures"]["isolation"]["events"]]
    assert events == [("isolated", "slow", 1.5), ("recovered", "slow", 4.5)]
    assert first["cures"]["isolation"]["isolated"] == []
    assert first["nodes"]["slow"]["discarded_frames"] == 0


@pytest.mark.parametrize(("edit", "key", "given", "allowed"), [
    (("virtual_channels = 4      # VL0 control, VL1 high, VL2 slow, VL3 normal\nvc_credit = 4"
      "             # receive buffers per channel at each end\nvc_assignment = \"priority\"",
      'virtual_channels = 2\nvc_assignment = "destination"'),
     "links[6].virtual_channels", "given 2", "at least 3"),
    (("rising_threshold = 0.05", "rising_threshold = 0.05\nfalling_threshold = 0.2"),
     "congestion.isolation.falling_threshold", "given 0.2", "not above rising_threshold"),
    (("rising_threshold = 0.05", "rising_threshold = 1.5"),
     "congestion.isolation.rising_threshold", "given 1.5", "0 < x < 1"),
    (('window = "1 ms"', 'window = "0 s"'), "congestion.isolation.window", "given '0 s'",
     "> 0"),
])
def test_bad_isolation_keys_are_refused(tmp_path, edit, key, given, allowed) -> None:
    from tests.builders import assert_refused

    base = EXAMPLE.read_text(encoding="utf-8")
    assert_refused(tmp_path, base, edit, key, given, allowed)


def test_isolation_needs_an_isl_with_virtual_channels(tmp_path) -> None:
    from fcsim.scenario.loader import ScenarioError, load_scenario

    text = (DATA_ROOT / "scenarios" / "fabric-slow-drain.toml").read_text(encoding="utf-8")
    path = tmp_path / "case.toml"
    path.write_text(text.replace("[[switches]]", '[congestion.isolation]\nwindow = "1 ms"\n\n'
                                 "[[switches]]", 1), encoding="utf-8")
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    first = str(info.value).splitlines()[0]
    assert first.startswith(f"{path}: congestion.isolation: ") and "virtual_channels" in first


def test_the_summary_lists_isolation_with_the_other_cures() -> None:
    """The example's summary gives isolation's rule and its event under the
    congestion cures, as the other cures' lines are."""
    from fcsim.report import summary_text
    from fcsim.scenario.loader import load_scenario

    text = summary_text(run_scenario(load_scenario(EXAMPLE)))
    cures = text[text.index("congestion cures (first repetition)"):]
    assert "  isolation (TxWait read every 1.000 ms: isolated at 5 % of it, no automatic " \
           "recovery):\n    at 1.000 ms: slow (edge2:0) isolated, TxWait" in cures


def test_the_table_is_under_congestion(tmp_path) -> None:
    """Isolation is one of the cures: a top-level [congestion_isolation] is
    refused in one line that points to [congestion]."""
    from fcsim.scenario.loader import ScenarioError, load_scenario

    text = EXAMPLE.read_text(encoding="utf-8")
    path = tmp_path / "case.toml"
    path.write_text(text.replace("\n[congestion.isolation]\n", "\n[congestion_isolation]\n"),
                    encoding="utf-8")
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    first = str(info.value).splitlines()[0]
    assert first.startswith(f"{path}: congestion_isolation: unknown key") and \
        "'congestion'" in first
