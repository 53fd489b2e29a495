"""Load a scenario file: TOML in, a checked :class:`~fcsim.scenario.model.Scenario` out.

The keys a file may hold are the typed models of :mod:`fcsim.scenario.sections`
(one per table, chosen by ``topology``), which read every value (quantities
through :mod:`fcsim.units`) and fill in defaults; :mod:`fcsim.scenario.checks`
then checks what spans keys, and :mod:`fcsim.scenario.convert` builds the
configuration. Every problem of a file is reported at once, one line each, in a
:class:`ScenarioError` (see :mod:`fcsim.schema.errors`).
"""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from fcsim.catalog import MODEL_FOLDER
from fcsim.scenario.checks import check
from fcsim.scenario.convert import to_scenario
from fcsim.scenario.generate import expand
from fcsim.scenario.model import Scenario
from fcsim.scenario.sections.document import DOCUMENT, Document
from fcsim.schema.errors import Problem, ScenarioError, problems_of

__all__ = ["ScenarioError", "load_scenario", "read_document", "scenario_from_document"]


def load_scenario(path: str | os.PathLike[str]) -> Scenario:
    """Read and check the scenario file at *path*; :class:`ScenarioError` if it is
    missing, unreadable, not TOML or not a valid scenario. A UTF-8 byte-order
    mark at the start (Windows editors write one) is skipped."""
    return scenario_from_document(read_document(path), os.fspath(path))


def read_document(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The TOML document in the file at *path*, unchecked; :class:`ScenarioError`
    if it is missing, unreadable or not TOML."""
    file = os.fspath(path)

    def fail(where: str, problem: str, expected: str) -> ScenarioError:
        return ScenarioError(file, [Problem(where, problem, expected)])
    try:
        with open(file, encoding="utf-8-sig", newline="") as handle:
            return tomllib.loads(handle.read())
    except tomllib.TOMLDecodeError as error:
        match = re.fullmatch(r"(.*?)\s*\(at (line \d+, column \d+|end of document)\)",
                             str(error))
        where, message = (match[2], match[1]) if match else ("", str(error))
        raise fail(where, f"not valid TOML ({message})", "see https://toml.io/en/v1.0.0") \
            from None
    except UnicodeDecodeError:
        raise fail("", "not UTF-8 text", "a TOML file in UTF-8") from None
    except OSError as error:
        problem = "is a directory" if Path(file).is_dir() else f"cannot read ({error.strerror})"
        raise fail("", problem, "a scenario file in TOML") from None


def scenario_from_document(data: dict[str, Any], file: str) -> Scenario:
    """Check the TOML document *data* of scenario file *file* (named in errors;
    model files are found relative to its folder); :class:`ScenarioError` with
    every problem found if it is not a valid scenario. Values are checked first;
    checks across keys follow once every value is good."""
    folder = MODEL_FOLDER.set(Path(file).parent)
    try:
        data = expand(data, file)
        try:
            doc = DOCUMENT.validate_python(data)
        except ValidationError as error:
            raise ScenarioError(file, problems_of(error, Document, data)) from None
        problems = check(doc, data)
        if problems:
            raise ScenarioError(file, problems)
        return to_scenario(doc, file)
    finally:
        MODEL_FOLDER.reset(folder)
