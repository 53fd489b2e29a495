"""RSCNs stay within zones: the fabric controller tells of an N_Port's change
only the registered N_Ports zoned with it, the ones whose name-server view it
is in (notifications do not cross zone boundaries: FC-SW zoning restricts
what the fabric services show an N_Port, and a change it cannot see is not
announced to it)."""

from __future__ import annotations

from fcsim.runner import run_once
from fcsim.scenario.loader import load_scenario


def test_an_rscn_goes_only_to_the_n_ports_zoned_with_the_change() -> None:
    result = run_once(load_scenario("scenarios/fabric-rscn-zoning.toml"), 1)
    events = [e for e in result["faults"]["schedule"][0]["events"] if "RSCN" in e]
    # disk0 leaves and comes back: each time its zone's one other member, host0
    assert len(events) == 2 and all(e.endswith("to 1 N_Port") for e in events), events
    assert result["faults"]["fabric"]["rscn_sent"] == 2


def test_the_ls_acc_to_an_rscn_is_not_answered(capsys) -> None:
    """An N_Port answers an RSCN with an LS_ACC, which ends that exchange: the
    fabric controller sends nothing back (it answered it with an LS_ACC, as if it
    were an SCR). The only LS_ACC host0 gets from FFFFFD is its SCR's, at login."""
    from fcsim.cli import main

    assert main(["run", "scenarios/fabric-rscn-zoning.toml", "--trace"]) == 0
    rows = [r for r in capsys.readouterr().out.splitlines() if "FFFFFD->010000" in r]
    assert [r.split()[-1] for r in rows] == ["LS_ACC", "RSCN", "RSCN"], rows
