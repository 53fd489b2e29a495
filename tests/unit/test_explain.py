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


def _rows(out: str) -> list[list[str]]:
    """The ladder's rows as [start, sender, receiver, arrives, credit, label]."""
    pattern = re.compile(r"\s*(\S+ \S+)\s+(\S+) ---> (\S+)\s+(\S+ \S+)\s+(\S+)  (.*)")
    return [list(m.groups()) for m in map(pattern.match, out.splitlines()[1:]) if m]


def test_an_r_rdy_row_shows_the_credit_it_returns(capsys) -> None:
    """An R_RDY changes the credit of the port it reaches: its row shows that
    port's credit once it has arrived, not its sender's (16, the receiver's buffers,
    would read as if the starved sender had credit). On the 50 km link the sender
    spends its 8 credits on 8 frames and waits; the first R_RDY brings its credit to
    1 (the ninth frame then spends it); an R_RDY whose arrival is past the events
    shown has '-' (what the port sends meanwhile is unknown)."""
    scenario = ROOT / "scenarios" / "p2p-long-link-credit.toml"
    assert main(["explain", str(scenario), "--events", "40"]) == 0
    rows = _rows(capsys.readouterr().out)
    assert all(r[5] == "R_RDY: a credit back to local" for r in rows if r[1] == "remote")
    frames = [r for r in rows if r[1] == "local"]
    assert [int(r[4]) for r in frames[:8]] == list(range(7, -1, -1))
    first_back = frames[8][0]        # the ninth frame waits for the first R_RDY
    returned = [r[4] for r in rows if r[1] == "remote" and r[3] < first_back]
    assert returned and returned[0] == "1", rows
    known = [r for r in rows if r[1] == "remote" and r[4] != "-"]
    assert known and all(0 <= int(r[4]) <= 8 for r in known)


def test_r_rdy_rows_on_a_loop_count_the_opened_port_s_credit_up(capsys) -> None:
    """On the loop the array answers host_a's OPN with 32 R_RDYs (its buffers):
    host_a spends the first on a frame at once, and each R_RDY row after that
    frame shows its credit one higher, up to 31 (32 less the frame); the next
    frame leaves it 30."""
    assert main(["explain", str(ROOT / "scenarios" / "loop-fairness.toml"), "--events", "40",
                 "--ports", "host_a"]) == 0
    rows = _rows(capsys.readouterr().out)
    first = next(i for i, r in enumerate(rows) if r[5].startswith("SOF"))
    second = next(i for i, r in enumerate(rows) if i > first and r[5].startswith("SOF"))
    after = [int(r[4]) for r in rows[first + 1:second] if r[5].startswith("R_RDY")]
    assert after == list(range(32 - len(after), 32)), after   # one more each, up to 31
    assert rows[second][4] == "30"


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


def test_explain_names_flogi_and_its_ls_acc_in_the_239_domain_fabric(capsys) -> None:
    """The largest example's first events are each N_Port's FLOGI to the fabric
    login server and the switch's LS_ACC, named, not shown as plain data."""
    assert main(["explain", str(ROOT / "scenarios" / "fabric-239-domains.toml"),
                 "--ports", "e0n0", "--events", "3"]) == 0
    rows = [r for r in _rows(capsys.readouterr().out) if r[5].startswith("SOF")]
    assert rows[0][1:3] == ["e0n0", "e0:0"] and rows[0][5].endswith("| FLOGI"), rows
    assert "->FFFFFE" in rows[0][5]
    assert rows[1][1:3] == ["e0:0", "e0n0"] and rows[1][5].endswith("| LS_ACC (FLOGI)"), rows
    assert "FFFFFE->" in rows[1][5]


def test_an_n_port_sends_its_flogi_on_the_login_bb_credit(capsys) -> None:
    """Before its Fabric Login completes an N_Port has a BB credit of 1 (the
    login BB_Credit, FC-FS): its FLOGI spends it (0 left), the R_RDY for it
    brings it back to 1, and only the LS_ACC's service parameters give it the
    F_Port's buffers, so its next frame (the name server's PLOGI) leaves that
    many less one. Not the F_Port's full buffers from the start."""
    from fcsim.scenario.loader import load_scenario
    scenario = load_scenario(ROOT / "scenarios" / "fabric-16-port-switch.toml")
    buffers = scenario.switches[0].model.bb_credit  # what the F_Port offers
    assert main(["explain", scenario.source, "--ports", "h0", "--events", "6"]) == 0
    rows = _rows(capsys.readouterr().out)
    flogi = next(r for r in rows if r[5].endswith("| FLOGI"))
    back = next(r for r in rows if r[5] == "R_RDY: a credit back to h0")
    plogi = next(r for r in rows if r[5].endswith("| PLOGI"))
    assert (flogi[4], back[4]) == ("0", "1"), rows
    assert int(plogi[4]) == buffers - 1, rows
