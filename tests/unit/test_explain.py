"""fcsim explain: a ladder diagram of the first events of every example scenario."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fcsim.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "scenarios").glob("*.toml"))


@pytest.mark.parametrize("scenario", EXAMPLES, ids=lambda p: p.stem)
def test_explain_text_lists_events_in_time_order(scenario: Path, capsys, tmp_path) -> None:
    image = tmp_path / "ladder.svg"
    assert main(["explain", str(scenario), "--events", "15", "-o", str(image)]) == 0
    assert "<svg" in image.read_text() and capsys.readouterr().err == ""
    assert main(["explain", str(scenario), "--events", "15"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 16 and "sender" in lines[0]
    starts = [line.split()[0:2] for line in lines[1:]]
    scale = {"s": 1, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}
    times = [float(value) * scale[unit] for value, unit in starts]
    assert times == sorted(times)


def test_explain_draws_svg_and_png(tmp_path: Path) -> None:
    scenario = ROOT / "scenarios" / "p2p-long-link-credit.toml"
    assert main(["explain", str(scenario), "--events", "20", "-o", str(tmp_path / "l.svg")]) == 0
    svg = (tmp_path / "l.svg").read_text()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg and "R_RDY" in svg
    assert main(["explain", str(scenario), "-o", str(tmp_path / "l.png")]) == 0
    assert (tmp_path / "l.png").read_bytes().startswith(b"\x89PNG")


def test_explain_shows_the_credit_running_out_on_a_long_link(capsys) -> None:
    """The teaching point of the credit example: the sender's credit falls to 0
    before the first R_RDY comes back."""
    scenario = ROOT / "scenarios" / "p2p-long-link-credit.toml"
    assert main(["explain", str(scenario), "--events", "12"]) == 0
    lines = capsys.readouterr().out.splitlines()[1:]
    credits = [int(re.split(r"\s+", line.strip())[7]) for line in lines if "data" in line]
    first_r_rdy = next(i for i, line in enumerate(lines) if "R_RDY" in line)
    assert credits[-1] == 0 and first_r_rdy > len(credits) - 1


def test_explain_filters_ports_and_time(capsys) -> None:
    scenario = ROOT / "scenarios" / "loop-fairness.toml"
    assert main(["explain", str(scenario), "--ports", "host_b", "--events", "5"]) == 0
    lines = capsys.readouterr().out.splitlines()[1:]
    assert lines and all("host_b" in line for line in lines)
    assert main(["explain", str(scenario), "--ports", "host_b", "--until", "1 ns"]) == 1
    assert "no event matched" in capsys.readouterr().err


def test_explain_names_the_login_and_name_server_frames(capsys) -> None:
    """A fabric's first frames are the logins, named as an analyzer names them, not
    as plain data: FLOGI to FFFFFE and its LS_ACC, PLOGI to the name server FFFFFC
    and its LS_ACC (of login parameters), then the name server's GID_FT query."""
    assert main(["explain", str(ROOT / "scenarios" / "fabric-16-port-switch.toml"),
                 "--ports", "h0", "--events", "12"]) == 0
    rows = [row for row in capsys.readouterr().out.splitlines() if " SOF" in row]
    labels = [row.split("|", 1)[1].strip() if "|" in row else "" for row in rows]
    assert labels[:4] == ["FLOGI", "LS_ACC (FLOGI)", "PLOGI", "LS_ACC (login)"], rows
    assert "->FFFFFE" in rows[0] and "->FFFFFC" in rows[2] and "FFFFFC->" in rows[3]
    assert labels[4] == "GID_FT" and "->FFFFFC" in rows[4], rows


def test_an_r_rdy_row_shows_whose_credit_it_returns(capsys) -> None:
    """An R_RDY gives a credit back to the port it reaches: its row names that port
    and shows no credit of its sender's (16, the receiver's buffers, would read as if
    the starved sender had credit)."""
    scenario = ROOT / "scenarios" / "p2p-long-link-credit.toml"
    assert main(["explain", str(scenario), "--events", "12"]) == 0
    rows = [row for row in capsys.readouterr().out.splitlines() if "R_RDY" in row]
    assert rows and all(row.endswith("-  R_RDY: a credit back to local") for row in rows), rows


@pytest.mark.parametrize("example, events", [("p2p-long-link-credit", 12),
                                             ("p2p-long-link-credit", 40),
                                             ("fabric-16-port-switch", 40),
                                             ("loop-fairness", 30)])
def test_no_two_labels_of_a_ladder_overlap(example: str, events: int) -> None:
    from fcsim.runner import run_once
    from fcsim.scenario.loader import load_scenario
    from fcsim.trace.ladder import Enough, Ladder, ladder_figure
    from tests.text_overlap import overlapping_labels

    scenario = load_scenario(ROOT / "scenarios" / f"{example}.toml")
    ladder = Ladder(events)
    with pytest.raises(Enough):
        run_once(scenario, 1, [ladder])
    figure = ladder_figure(ladder.rungs, f"{example}: the first {events} events")
    assert len(figure.axes[0].texts) >= events
    assert overlapping_labels(figure) == []
