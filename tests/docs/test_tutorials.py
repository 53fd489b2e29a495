"""Every tutorial runs as written: its commands and Python blocks execute, and
each output it quotes (a ``text`` block after a command) is in that command's
output, so the lessons' numbers cannot drift from the simulator."""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest

from fcsim.cli import main

ROOT = Path(__file__).resolve().parents[2]
LESSONS = sorted((ROOT / "docs" / "tutorials").glob("[0-9]*.md"))
BLOCK = re.compile(r"```(\w+)\n(.*?)```", re.S)


def _squeeze(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_lesson_runs_as_written(lesson: Path, monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    blocks = BLOCK.findall(lesson.read_text())
    assert any(kind == "sh" for kind, _ in blocks)
    assert "**Question.**" in lesson.read_text() and "**Answer.**" in lesson.read_text()
    output = None
    for kind, body in blocks:
        if kind == "sh":
            output = ""
            for line in body.strip().splitlines():
                argv = shlex.split(line)
                assert argv[0] == "fcsim", line
                stream = io.StringIO()
                with contextlib.redirect_stdout(stream):
                    assert main(argv[1:]) == 0, line
                output += stream.getvalue()
        elif kind == "text":
            assert output is not None, "a quoted output with no command before it"
            for quoted in body.strip().splitlines():
                assert _squeeze(quoted) in _squeeze(output), quoted
        elif kind == "python":
            with contextlib.redirect_stdout(io.StringIO()):
                exec(compile(body, str(lesson), "exec"), {})  # noqa: S102 - the lesson's code


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_lesson_checks_its_explanation(lesson: Path) -> None:
    """Each lesson's explanation is checked, not only quoted: a Python block
    computes a closed form from the model's constants and asserts the
    simulated figures agree with it (run by the test above)."""
    blocks = [body for kind, body in BLOCK.findall(lesson.read_text()) if kind == "python"]
    assert any("assert" in body and "fcsim" in body for body in blocks), lesson.name
