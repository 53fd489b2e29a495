"""A store of simulation-point results, so that a repeated or interrupted sweep
does not simulate again what it already has.

Each :class:`~fcsim.validation.points.Point`'s result is kept in an SQLite
file in the output folder (``results.sqlite``), keyed by the point, the text
of its scenario file and a fingerprint of the simulator itself: the source of
every ``fcsim`` module and every device model file. Any change to the code, a
model value or the scenario gives new keys, so a stored result is used only
for the very simulation that produced it (a run with the same seed is
deterministic). Each result is committed as it arrives, so Ctrl-C keeps every
point finished before it.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import asdict
from functools import lru_cache
from pathlib import Path
from typing import Any

from fcsim.resources import DATA_ROOT
from fcsim.validation.points import Point

FILE_NAME = "results.sqlite"
"""The store's file in an output folder."""


@lru_cache(maxsize=1)
def fingerprint() -> str:
    """A digest of the simulator: every fcsim module and device model file."""
    digest = hashlib.sha256()
    package = Path(__file__).resolve().parents[1]
    files = sorted(package.rglob("*.py")) + sorted((DATA_ROOT / "models").rglob("*.toml"))
    for path in files:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


@lru_cache(maxsize=256)
def scenario_digest(scenario: str) -> str:
    """A digest of the text of the scenario file *scenario* (relative to the data
    folder, or absolute)."""
    path = Path(scenario) if Path(scenario).is_absolute() else DATA_ROOT / scenario
    return hashlib.sha256(path.read_bytes()).hexdigest()


def point_key(point: Point) -> str:
    """The key of *point*'s result: the point, its scenario file's text and the
    simulator's :func:`fingerprint`."""
    text = json.dumps([asdict(point), scenario_digest(point.scenario), fingerprint()],
                      sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


class ResultStore:
    """The results kept in the SQLite file *path* (created if absent)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._db = sqlite3.connect(path)
        self._db.execute("CREATE TABLE IF NOT EXISTS results (key TEXT PRIMARY KEY, "
                         "result TEXT NOT NULL)")
        self._db.commit()

    def get(self, point: Point) -> dict[str, Any] | None:
        """The stored result of *point*, or None."""
        row = self._db.execute("SELECT result FROM results WHERE key = ?",
                               (point_key(point),)).fetchone()
        return None if row is None else json.loads(row[0])

    def put(self, point: Point, result: dict[str, Any]) -> None:
        """Keep *result* for *point*, committed at once."""
        self._db.execute("INSERT OR REPLACE INTO results VALUES (?, ?)",
                         (point_key(point), json.dumps(result)))
        self._db.commit()

    def close(self) -> None:
        """Close the file."""
        self._db.close()
