"""A bit error is counted on the cable where it happened: a cut-through switch
counts the CRC error at its input and forwards the frame ending in EOFni
(FC-FS-5: the frame is marked invalid), so every port downstream counts an
EOFni frame, not a CRC error; a store-and-forward switch discards it.

Closed form: the errored link's CRC errors are Binomial(frames sent, q),
q = 1 - (1 - p)^(10 x characters); every link downstream receives exactly
those frames as EOFni frames and no CRC error."""

from __future__ import annotations

import dataclasses
import math

import pytest

from fcsim.fabric.switch_model import load_switch_model
from fcsim.fc1 import ordered_sets as o
from fcsim.fc2.frame import MAX_DATA_FIELD, frame_chars
from fcsim.runner import run_scenario
from fcsim.scenario.workload_model import StreamConfig
from tests.builders import fabric

P = 2e-6
"""Bit error rate of the target's transmitter only."""


def _directions(cut_through: bool) -> dict[str, dict]:
    model = dataclasses.replace(load_switch_model("generic-nonblocking"), cut_through=cut_through)
    stream = StreamConfig("read", "t", "h", 8 * MAX_DATA_FIELD, outstanding=2)
    scenario = fabric({"t": "sw1:0", "h": "sw2:0"}, (stream,), duration=0.03,
                      switches={"sw1": model, "sw2": model}, isls=(("sw1:5", "sw2:5"),),
                      login=False)
    links = tuple(dataclasses.replace(link, error_rates=(("t", P),)) if link.name == "l-t"
                  else link for link in scenario.links)
    result = run_scenario(dataclasses.replace(scenario, links=links))
    links_out = result["repetitions"][0]["links"]
    return {name: d for link in links_out.values() for name, d in link["directions"].items()}


def _direction(directions: dict[str, dict], sender: str) -> dict:
    (found,) = [d for name, d in directions.items() if name.startswith(f"{sender}->")]
    return found


@pytest.mark.parametrize("cut_through", [True, False])
def test_crc_errors_are_counted_on_the_errored_link_only(cut_through: bool) -> None:
    directions = _directions(cut_through)
    errored = _direction(directions, "t")
    q = 1.0 - (1.0 - P) ** (10 * frame_chars(MAX_DATA_FIELD))
    mean = errored["frames"] * q
    assert errored["frames"] > 1000
    assert abs(errored["errors"] - mean) < 5 * math.sqrt(mean * (1 - q))
    assert errored["errors"] > 0 and errored["eofni"] == 0
    for name, d in directions.items():
        if not name.startswith("t->"):
            assert d["errors"] == 0, name  # the clean cables count no CRC error
    downstream = [_direction(directions, "sw1:5"), _direction(directions, "sw2:0")]
    for d in downstream:  # the ISL on, then the host's link
        assert d["eofni"] == (errored["errors"] if cut_through else 0)


def test_the_invalid_eof_of_each_eof() -> None:
    """FC-FS-5: EOFn and EOFt become EOFni, EOFdt becomes EOFdti; the invalid
    EOFs' second character is D10.4 where the valid ones have D21.4."""
    assert o.invalidated(o.EOFn) is o.EOFni and o.invalidated(o.EOFt) is o.EOFni
    assert o.invalidated(o.EOFdt) is o.EOFdti
    assert o.EOFni.chars[2:] == o.EOFn.chars[2:] and o.EOFdti.chars[2:] == o.EOFdt.chars[2:]
    assert o.EOFni.chars[1] == o.d(10, 4) and o.EOFn.chars[1] == o.d(21, 4)
