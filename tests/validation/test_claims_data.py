"""The validation claims are complete, well formed, checked, and every model
value calibrated on a claim names a calibration claim."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from fcsim.validation.checks import CHECKS
from fcsim.validation.claims import FIELDS, load_claims, record_statuses

ROOT = Path(__file__).resolve().parents[2]
CLAIMS = load_claims()


def test_every_claim_has_every_field_a_role_and_a_check() -> None:
    assert {c.source for c in CLAIMS} == {"004_6884f3e44e368fd7.txt", "000_24592f141a2f7fed.txt",
                                          "002_e06638be0f19e9c4.txt",
                                          "003_219b629cc3da6126.txt",
                                          "001_7a0bfc567c4a67b6.txt"}
    for claim in CLAIMS:
        assert all(str(getattr(claim, f)).strip() for f in FIELDS), claim.id
        assert claim.id in CHECKS, f"{claim.id} has no check"
    assert set(CHECKS) <= {c.id for c in CLAIMS}


def _calibrated_on() -> dict[str, set[str]]:
    """Claim ID -> model and scenario files with a value calibrated on it."""
    found: dict[str, set[str]] = {}
    for folder in ("models", "scenarios"):
        for path in (ROOT / folder).rglob("*.toml"):
            tomllib.loads(path.read_text())  # well-formed
            for claim in re.findall(r"calibrated on (?:claim )?([A-Z0-9]+-[A-Z0-9-]+)",
                                    path.read_text()):
                found.setdefault(claim, set()).add(path.name)
    return found


def test_calibration_set_is_small_and_matches_the_models() -> None:
    roles = {c.id: c.role for c in CLAIMS}
    used = _calibrated_on()
    assert set(used) <= set(roles), f"models cite unknown claims: {set(used) - set(roles)}"
    calibration = {i for i, r in roles.items() if r == "calibration"}
    assert set(used) == calibration, "a value calibrated on a prediction, or an unused calibration"
    assert len(calibration) <= len(CLAIMS) // 3  # calibrate on few claims, predict the rest


def test_quick_subset_is_not_empty_nor_everything() -> None:
    quick = [c for c in CLAIMS if c.quick]
    assert 0 < len(quick) < len(CLAIMS)


def test_load_rejects_a_bad_status_naming_the_claim(tmp_path: Path) -> None:
    text = (ROOT / "validation" / "claims.toml").read_text()
    bad = tmp_path / "claims.toml"
    bad.write_text(text.replace('status = "', 'status = "maybe', 1))
    with pytest.raises(ValueError, match=r"claims\[0\] \(ONG-LINE\): status must be one of"):
        load_claims(bad)


def test_record_statuses_changes_only_the_named_status(tmp_path: Path) -> None:
    path = tmp_path / "claims.toml"
    text = (ROOT / "validation" / "claims.toml").read_text()
    path.write_text(text)
    before = {c.id: c.status for c in load_claims(path)}
    target = "ONG-4K"
    new = "passes" if before[target] != "passes" else "fails"
    record_statuses({target: new}, path)
    after = {c.id: c.status for c in load_claims(path)}
    assert after == {**before, target: new}
    assert len(path.read_text().splitlines()) == len(text.splitlines())
    with pytest.raises(ValueError, match="no status line for claim NOPE"):
        record_statuses({"NOPE": "passes"}, path)
