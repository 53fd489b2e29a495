"""The measured claims (``validation/claims.toml``) as data.

Each claim names its source document, where in it, what it says, the
experiment, the metric, the acceptance band, its role (``calibration``: model
values were fitted on it; ``prediction``: not; ``weak prediction``: not, and the
document doubts it itself), the mechanism behind it, the
document's own figure, whether the quick run includes it, and the status
recorded from the last accepted full run (``passes``, ``fails`` or
``not modelled``), against which a new run is compared.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from fcsim.validation.points import ROOT

CLAIMS_FILE = ROOT / "validation" / "claims.toml"
"""Where the claims live."""

ROLES = ("calibration", "prediction", "weak prediction")
"""A claim's role: model values were fitted on it; or not; or not, and the document
itself doubts it, so it is reported but not counted among the discriminating
predictions."""
STATUSES = ("passes", "fails", "not modelled")
"""What a claim's check can find, and what is recorded."""
FIELDS = ("id", "source", "figure", "claim", "document", "setup", "metric", "band", "role",
          "explanation", "quick", "status")


@dataclass(frozen=True)
class Claim:
    """One claim of a source document (fields as in ``validation/claims.toml``)."""

    id: str
    source: str
    figure: str
    claim: str
    document: str
    setup: str
    metric: str
    band: str
    role: str
    explanation: str
    quick: bool
    status: str


def load_claims(path: Path = CLAIMS_FILE) -> list[Claim]:
    """Every claim in *path*, in file order; ValueError naming the claim and
    field on a missing, unknown or invalid field."""
    claims = []
    for index, raw in enumerate(tomllib.loads(path.read_text())["claims"]):
        where = f"{path}: claims[{index}] ({raw.get('id', '?')})"
        missing, unknown = set(FIELDS) - raw.keys(), raw.keys() - set(FIELDS)
        if missing or unknown:
            raise ValueError(f"{where}: missing {sorted(missing)}, unknown {sorted(unknown)}")
        if raw["role"] not in ROLES:
            raise ValueError(f"{where}: role must be one of {ROLES}, got {raw['role']!r}")
        if raw["status"] not in STATUSES:
            raise ValueError(f"{where}: status must be one of {STATUSES}, got {raw['status']!r}")
        if not isinstance(raw["quick"], bool):
            raise ValueError(f"{where}: quick must be true or false")
        claims.append(Claim(**raw))
    ids = [c.id for c in claims]
    if len(ids) != len(set(ids)):
        raise ValueError(f"{path}: claim IDs repeat")
    return claims


def record_statuses(statuses: dict[str, str], path: Path = CLAIMS_FILE) -> None:
    """Write *statuses* (claim ID -> status) into *path* as the recorded ones,
    leaving the rest of the file as it is."""
    text = path.read_text()
    for claim_id, status in statuses.items():
        if status not in STATUSES:
            raise ValueError(f"{claim_id}: status must be one of {STATUSES}, got {status!r}")
        pattern = re.compile(r'(id = "' + re.escape(claim_id) + r'"\n(?:(?!\[\[claims\]\]).*\n)*?'
                             r'status = )"[^"]*"')
        text, count = pattern.subn(lambda m, s=status: f'{m.group(1)}"{s}"', text)
        if count != 1:
            raise ValueError(f"{path}: no status line for claim {claim_id}")
    path.write_text(text)
