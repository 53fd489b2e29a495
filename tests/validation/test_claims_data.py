"""The validation claims file is complete and well formed."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIELDS = {"id", "source", "figure", "claim", "setup", "metric", "band", "role", "explanation"}


def test_every_claim_has_every_field_and_a_role() -> None:
    claims = tomllib.loads((ROOT / "validation" / "claims.toml").read_text())["claims"]
    ids = [c["id"] for c in claims]
    assert len(ids) == len(set(ids))
    for claim in claims:
        assert set(claim) == FIELDS, claim["id"]
        assert claim["role"] in ("calibration", "prediction"), claim["id"]
        assert all(str(claim[key]).strip() for key in FIELDS), claim["id"]
    calibration = [c["id"] for c in claims if c["role"] == "calibration"]
    assert 0 < len(calibration) <= 3  # calibrate on few claims, predict the rest
    assert {c["source"] for c in claims} == {"004_6884f3e44e368fd7.txt",
                                              "000_24592f141a2f7fed.txt"}
