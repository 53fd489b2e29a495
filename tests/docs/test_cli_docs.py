"""What the README and docs/ say about the command line matches the command line:
the schema kinds, and how long a validation takes, on what machine and load."""

from __future__ import annotations

import re
from pathlib import Path

from fcsim.arguments import build_parser
from fcsim.scenario.reference import SCHEMAS
from fcsim.validation.commands import QUICK_TIME

ROOT = Path(__file__).resolve().parents[2]


def _text(path: str) -> str:
    return re.sub(r"\s+", " ", (ROOT / path).read_text(encoding="utf-8"))


def test_docs_cli_names_every_schema_kind() -> None:
    sentence = re.search(r"`fcsim schema \[KIND\]`[^.]*\.", _text("docs/cli.md"))
    assert sentence is not None
    missing = [kind for kind in SCHEMAS if kind != "scenario" and kind not in sentence[0]]
    assert missing == [], sentence[0]


def test_the_quick_validations_time_is_the_same_in_help_and_docs() -> None:
    validate = build_parser()._subparsers._group_actions[0].choices["validate"]
    assert QUICK_TIME in re.sub(r"\s+", " ", validate.format_help())
    seconds = re.search(r"\d+ s", QUICK_TIME)[0]
    for path in ("README.md", "docs/validation.md", ".ci/run"):
        text = (ROOT / path).read_text(encoding="utf-8")
        assert QUICK_TIME in re.sub(r"\s+", " ", text), path
        quoted = re.findall(r"(?:--quick|measured claims|marked quick)[^.]*?about (\d+ s)",
                            text.replace("\n", " "))
        assert quoted and set(quoted) == {seconds}, (path, quoted)


def test_the_readme_says_on_what_machine_and_load_validation_takes_its_time() -> None:
    readme = _text("README.md")
    sentence = re.search(r"\(about \d+ minutes[^)]*\)", readme)
    assert sentence is not None
    assert "idle" in sentence[0] and "Xeon" in sentence[0], sentence[0]
    assert "Xeon" in _text("docs/performance.md")
