"""Which verdicts rest on which unknowns: the sensitivity table of
``validation/sensitivity.toml``.

Each named assumption or calibrated value of the model (docs/validation.md)
has its value, its source (or "assumption"), the claims it can move, and the
alternatives tried; for each alternative, the status each of those claims took
when the model ran with it, beside the status recorded in
``validation/claims.toml``. A claim the alternative was not run for reads
"not measured": nothing is filled in that was not run. ``fcsim validate
--sensitivity`` prints the table; the validation report holds it as a section
(:func:`section_html`).

Run as ``python -m fcsim.validation.sensitivity`` to write docs/sensitivity.md.
"""

from __future__ import annotations

import html
import tomllib
from dataclasses import dataclass
from pathlib import Path

from fcsim.validation.claims import load_claims
from fcsim.validation.points import ROOT

SENSITIVITY_FILE = ROOT / "validation" / "sensitivity.toml"
"""Where the assumptions and their alternatives live."""
DOC_FILE = ROOT / "docs" / "sensitivity.md"
"""The generated page."""
MEASURED = ("passes", "fails")
"""A status an alternative may give a claim."""
NOT_MEASURED = "not measured"
NONE_TRIED = "none tried"
"""The alternative column of an assumption no alternative was tried for."""


@dataclass(frozen=True)
class Effect:
    """A claim's *status* under an alternative, with the *figure* behind it."""

    claim: str
    status: str
    figure: str


@dataclass(frozen=True)
class Alternative:
    """An alternative *value*, how its effects were *measured*, and the effects."""

    value: str
    measured: str
    effects: tuple[Effect, ...]


@dataclass(frozen=True)
class Assumption:
    """A named assumption or calibrated value of the model (see the module)."""

    name: str
    value: str
    where: str
    source: str
    affects: tuple[str, ...]
    alternatives: tuple[Alternative, ...]


def load_sensitivity(path: Path = SENSITIVITY_FILE) -> list[Assumption]:
    """The assumptions of *path*; ValueError naming the entry on an unknown claim,
    a claim an alternative gives that its assumption does not affect, or a
    status that is not one a run can give."""
    known = {c.id for c in load_claims()}
    out = []
    for i, raw in enumerate(tomllib.loads(path.read_text())["assumptions"]):
        where = f"{path}: assumptions[{i}] ({raw.get('name', '?')})"
        affects = tuple(raw["affects"])
        unknown = [c for c in affects if c not in known]
        if unknown:
            raise ValueError(f"{where}: affects unknown claims {unknown}")
        alternatives = []
        for j, alt in enumerate(raw.get("alternatives", [])):
            effects = tuple(Effect(**e) for e in alt.get("effects", []))
            for e in effects:
                if e.claim not in affects:
                    raise ValueError(f"{where}.alternatives[{j}]: {e.claim} is not in affects")
                if e.status not in MEASURED:
                    raise ValueError(f"{where}.alternatives[{j}]: {e.claim}: status must be one "
                                     f"of {MEASURED}, got {e.status!r}")
            alternatives.append(Alternative(alt["value"], alt["measured"], effects))
        out.append(Assumption(raw["name"], raw["value"], raw["where"], raw["source"], affects,
                              tuple(alternatives)))
    return out


def rows(assumptions: list[Assumption]) -> list[dict[str, str]]:
    """One row per alternative (one reading :data:`NONE_TRIED` for an assumption
    without alternatives): the assumption, its value and source, the
    alternative, and each affected claim's recorded status and status under the
    alternative (``"not measured"`` where it was not run), with the figures."""
    recorded = {c.id: c.status for c in load_claims()}
    out = []
    for a in assumptions:
        for alt in a.alternatives or (Alternative(NONE_TRIED, NOT_MEASURED, ()),):
            given = {e.claim: e for e in alt.effects}
            claims = []
            for claim in a.affects:
                effect = given.get(claim)
                now = recorded[claim]
                if effect is None:
                    claims.append(f"{claim}: {now} -> {NOT_MEASURED}")
                else:
                    change = "" if effect.status == now else " (changes)"
                    claims.append(f"{claim}: {now} -> {effect.status}{change}: {effect.figure}")
            out.append({"assumption": a.name, "value": a.value, "source": a.source,
                        "where": a.where, "alternative": alt.value, "measured": alt.measured,
                        "claims": "; ".join(claims)})
    return out


_COLUMNS = (("assumption", "assumption"), ("value now", "value"), ("source", "source"),
            ("alternative", "alternative"), ("claims: recorded -> with the alternative",
                                            "claims"), ("how measured", "measured"))


def table_markdown(assumptions: list[Assumption]) -> str:
    """The sensitivity table in Markdown."""
    lines = ["| " + " | ".join(title for title, _key in _COLUMNS) + " |",
             "|" + "---|" * len(_COLUMNS)]
    for row in rows(assumptions):
        lines.append("| " + " | ".join(row[key].replace("|", "\\|") for _t, key in _COLUMNS)
                     + " |")
    return "\n".join(lines) + "\n"


def section_html(assumptions: list[Assumption]) -> str:
    """The sensitivity table as a section of the validation report."""
    e = html.escape
    head = "".join(f"<th>{e(title)}</th>" for title, _key in _COLUMNS)
    body = "".join("<tr>" + "".join(f"<td>{e(row[key])}</td>" for _t, key in _COLUMNS)
                   + "</tr>\n" for row in rows(assumptions))
    return (f'<section id="sensitivity">\n<h2>Sensitivity: which verdicts rest on which '
            f"assumptions</h2>\n<p>{e(INTRO)}</p>\n<table>\n<tr>{head}</tr>\n{body}</table>\n"
            "</section>\n")


INTRO = ("Each row is an assumption or calibrated value of the model with one alternative "
         "tried: the claims it can move, each with its recorded status and its status when "
         "the model ran with the alternative, and the figure behind it; 'not measured' where "
         "the alternative was not run for that claim. From validation/sensitivity.toml.")


def page(assumptions: list[Assumption]) -> str:
    """docs/sensitivity.md."""
    return ("# Sensitivity of the validation verdicts\n\n"
            "<!-- generated by python -m fcsim.validation.sensitivity from "
            "validation/sensitivity.toml; do not edit -->\n\n" + INTRO + " `fcsim validate "
            "--sensitivity` prints the same table; the validation report "
            "(`validation/report/index.html`) has it as its last section. How each value was "
            "obtained: [validation.md](validation.md).\n\n" + table_markdown(assumptions))


if __name__ == "__main__":
    DOC_FILE.write_text(page(load_sensitivity()), encoding="utf-8")
    print(f"wrote {DOC_FILE}")
