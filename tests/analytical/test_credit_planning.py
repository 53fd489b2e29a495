"""The credit-planning closed form against the simulated knee (the fewest
credits at which a long link's rate stops growing), and ``fcsim credits``."""

from __future__ import annotations

import pytest

from fcsim.cli import main
from fcsim.credits import simulated_knee
from fcsim.fabric.credit_planning import plan, switches_offering
from fcsim.fabric.switch_model import SwitchModel
from fcsim.fc0.cable import Cable
from fcsim.fc0.speed import speed_named
from fcsim.fc2.frame import frame_chars
from fcsim.fc2.port import MIN_FILL_WORDS


@pytest.mark.parametrize("speed", ["8GFC", "32GFC", "64GFC"])
@pytest.mark.parametrize("length", [2_000.0, 10_000.0])
def test_formula_equals_simulated_knee(speed: str, length: float) -> None:
    answer = plan(speed_named(speed), Cable(length), 2112)
    knee = simulated_knee(answer)
    assert abs(knee.credits - answer.credits) <= 1, knee.rates


def test_closed_form_from_its_parts() -> None:
    """ceil((frame + 2 x delay + 2 x codeword + R_RDY) / (frame + fill words)),
    computed here from the speed's line rate and the code's parameters."""
    speed = speed_named("32GFC")
    char = 8 * 257 / 256 * 528 / 514 / 28.05e9
    frame = frame_chars(1024) * char
    round_trip = frame + 2 * 5_000 * 5e-9 + 2 * 5280 / 28.05e9 + 4 * char
    slot = (frame_chars(1024) + 4 * MIN_FILL_WORDS) * char
    answer = plan(speed, Cable(5_000.0), 1024)
    assert answer.round_trip == pytest.approx(round_trip, rel=1e-12)
    assert answer.credits == -(-round_trip // slot)
    assert answer.rate(answer.credits // 2) == pytest.approx(
        answer.full_rate * (answer.credits // 2) * slot / round_trip)


def test_small_frames_need_more_credits() -> None:
    speed, cable = speed_named("16GFC"), Cable(10_000.0)
    assert plan(speed, cable, 512).credits > 3 * plan(speed, cable, 2112).credits


def test_switches_offering() -> None:
    edge = SwitchModel("edge", 24, 8, 1e-6)
    ld = SwitchModel("ld", 24, 8, 1e-6, max_port_credit=500)
    assert switches_offering(8, [edge, ld]) == [(edge, "every port"), (ld, "every port")]
    assert switches_offering(200, [edge, ld]) == [(ld, "long-distance port")]
    assert switches_offering(501, [edge, ld]) == []


def test_command_prints_credits(capsys) -> None:
    assert main(["credits", "--speed", "8GFC", "--length", "10km", "--frame-size", "1024"]) == 0
    out = capsys.readouterr().out
    expected = plan(speed_named("8GFC"), Cable(10_000.0), 1024).credits
    assert f"credits for full rate: {expected} " in out


@pytest.mark.parametrize(("argv", "line"), [
    (["--speed", "33GFC", "--length", "1km"],
     "fcsim: error: --speed: given '33GFC'; a Fibre Channel speed (133M, "),
    (["--speed", "10GBASE-R", "--length", "1km"],
     "fcsim: error: --speed: given '10GBASE-R'; a Fibre Channel speed"),
    (["--speed", "8GFC", "--length", "far"], "fcsim: error: --length: 'far'"),
    (["--speed", "8GFC", "--length", "1km", "--frame-size", "3000"],
     "fcsim: error: --frame-size: given '3000'; an integer 1..2112"),
])
def test_command_errors_are_one_line(capsys, argv: list[str], line: str) -> None:
    assert main(["credits", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith(line) and err.count("\n") == 1, err
