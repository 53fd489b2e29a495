"""The sensitivity table: every affected claim is a known claim, an alternative
gives only measured statuses of claims its assumption affects, a claim an
alternative was not run for reads "not measured", docs/sensitivity.md is
generated from the data, and the report and the CLI show the table."""

from __future__ import annotations

from pathlib import Path

import pytest

from fcsim.cli import main
from fcsim.validation import sensitivity
from fcsim.validation.claims import load_claims
from fcsim.validation.points import ROOT


def test_every_claim_named_is_known_and_statuses_are_measured_ones() -> None:
    known = {c.id for c in load_claims()}
    assumptions = sensitivity.load_sensitivity()
    assert assumptions
    for a in assumptions:
        assert set(a.affects) <= known
        for alt in a.alternatives:
            assert all(e.claim in a.affects and e.status in ("passes", "fails")
                       for e in alt.effects)


def test_a_claim_not_run_is_not_measured_and_a_change_is_marked(tmp_path: Path) -> None:
    data = tmp_path / "s.toml"
    data.write_text('[[assumptions]]\nname = "n"\nvalue = "v"\nwhere = "w"\nsource = "assumption"\n'
                    'affects = ["ONG-LATLOAD", "ONG-735"]\n[[assumptions.alternatives]]\n'
                    'value = "x"\nmeasured = "m"\neffects = [{ claim = "ONG-LATLOAD", '
                    'status = "passes", figure = "401 us" }]\n'
                    '[[assumptions]]\nname = "bare"\nvalue = "v"\nwhere = "w"\nsource = "s"\n'
                    'affects = ["ONG-PEAK"]\n')
    rows = sensitivity.rows(sensitivity.load_sensitivity(data))
    recorded = {c.id: c.status for c in load_claims()}
    assert len(rows) == 2
    assert f"ONG-735: {recorded['ONG-735']} -> not measured" in rows[0]["claims"]
    latload = f"ONG-LATLOAD: {recorded['ONG-LATLOAD']} -> passes"
    assert latload in rows[0]["claims"]
    assert ("(changes)" in rows[0]["claims"]) == (recorded["ONG-LATLOAD"] != "passes")
    assert rows[1]["alternative"] == sensitivity.NONE_TRIED
    assert rows[1]["claims"] == f"ONG-PEAK: {recorded['ONG-PEAK']} -> not measured"


@pytest.mark.parametrize("effect", ['{ claim = "ONG-PEAK", status = "passes", figure = "f" }',
                                    '{ claim = "ONG-735", status = "maybe", figure = "f" }'])
def test_an_effect_outside_affects_or_an_unmeasured_status_is_refused(tmp_path: Path,
                                                                       effect: str) -> None:
    data = tmp_path / "s.toml"
    data.write_text('[[assumptions]]\nname = "n"\nvalue = "v"\nwhere = "w"\nsource = "s"\n'
                    'affects = ["ONG-735"]\n[[assumptions.alternatives]]\nvalue = "x"\n'
                    f'measured = "m"\neffects = [{effect}]\n')
    with pytest.raises(ValueError, match=r"assumptions\[0\] \(n\)\.alternatives\[0\]"):
        sensitivity.load_sensitivity(data)


def test_the_page_is_generated_from_the_data() -> None:
    page = (ROOT / "docs" / "sensitivity.md").read_text(encoding="utf-8")
    assert page == sensitivity.page(sensitivity.load_sensitivity()), \
        "docs/sensitivity.md is stale: python -m fcsim.validation.sensitivity"


def test_the_report_has_the_table_and_links_it() -> None:
    html = sensitivity.section_html(sensitivity.load_sensitivity())
    assert 'id="sensitivity"' in html and "HPSS mover requests" in html
    from fcsim.validation.report import _page
    page = _page([], {})
    assert 'href="#sensitivity"' in page and 'id="sensitivity"' in page


def test_validate_sensitivity_prints_the_table_and_runs_nothing(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "--sensitivity"]) == 0
    out = capsys.readouterr()
    assert out.out.startswith("| assumption |") and "simulations" not in out.err
    assert main(["validate", "--sensitivity", "--quick"]) == 2
    assert "--sensitivity" in capsys.readouterr().err
