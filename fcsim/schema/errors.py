"""Problems with a file, one line each: the file, the key path (``links[0].length``),
the value given and what is allowed.

:func:`problems_of` turns pydantic's validation errors into :class:`Problem`
lines, naming keys as the file writes them and showing values as the file
wrote them (not as a type read them).
"""

from __future__ import annotations

import difflib
import re
import types
import typing
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import ValidationError
from pydantic.fields import FieldInfo

from fcsim.schema.fields import ERROR_TYPE, Expects
from fcsim.schema.section import Section

MAX_PROBLEMS = 20
"""Problems listed at most for one file; the rest are counted."""


@dataclass(frozen=True)
class Problem:
    """One problem: the key *path* (empty: the file as a whole), the *problem*
    ("given VALUE", "missing", "unknown key") and what is *expected*."""

    path: str
    problem: str
    expected: str

    def line(self, file: str) -> str:
        """``FILE: KEY.PATH: PROBLEM; EXPECTED``."""
        return f"{file}: {self.path + ': ' if self.path else ''}{self.problem}; {self.expected}"


class ScenarioError(Exception):
    """A scenario or model file that cannot be used. ``str()`` has one line per
    problem (:data:`MAX_PROBLEMS` at most, then a count of the others); the
    first problem's parts are kept as *file*, *path*, *problem* and *expected*,
    all of them as *problems*."""

    def __init__(self, file: str, problems: Sequence[Problem]) -> None:
        self.file, self.problems = file, tuple(problems)
        first = self.problems[0]
        self.path, self.problem, self.expected = first.path, first.problem, first.expected
        lines = [p.line(file) for p in self.problems[:MAX_PROBLEMS]]
        hidden = len(self.problems) - MAX_PROBLEMS
        if hidden > 0:
            lines.append(f"{file}: and {hidden} more problem{'s' if hidden > 1 else ''}")
        super().__init__("\n".join(lines))


def show(value: Any, width: int | None = 60) -> str:
    """*value* as it would be written in TOML, cut short if longer than *width*."""
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, list):
        text = "[" + ", ".join(show(v, None) for v in value) + "]"
    elif isinstance(value, dict):
        text = "{" + ", ".join(f"{k} = {show(v, None)}" for k, v in value.items()) + "}"
    else:
        text = repr(value)
    return text if width is None or len(text) <= width else text[:width - 3] + "..."


def given(value: Any) -> str:
    """"given VALUE"; an array of tables is counted ("given 2 links")."""
    return f"given {show(value)}"


def count(n: int, noun: str) -> str:
    """*n* *noun*s, in words: "1 node", "3 nodes", "2 switches"."""
    plural = noun + ("es" if noun.endswith("ch") else "s")
    return f"{n} {noun if n == 1 else plural}"


def singular(key: str) -> str:
    """The noun of one table of an array key: "links" -> "link", "switches" -> "switch"."""
    return key[:-2] if key.endswith("ches") else key[:-1]


def join(path: str, step: str | int) -> str:
    """*path* extended by a key or an index: ``nodes`` + 1 -> ``nodes[1]``."""
    if isinstance(step, int):
        return f"{path}[{step}]"
    return f"{path}.{step}" if path else step


# -- walking a type along an error location --------------------------------------------


@dataclass
class _Spot:
    """Where an error location leads: the key *steps* as in the file, the model
    *owner* of the last key, that key's *expects*, and the *discriminator* if the
    location ends at a table whose kind a key chooses."""

    steps: list[str | int]
    owner: type[Section] | None = None
    expects: str = ""
    discriminator: str | None = None
    tags: tuple[str, ...] = ()


def _unwrap(tp: Any, spot: _Spot) -> Any:
    """*tp* without Annotated layers, noting their Expects and discriminator on *spot*."""
    while typing.get_origin(tp) is Annotated:
        tp, *meta = typing.get_args(tp)
        for item in meta:
            if isinstance(item, Expects):
                spot.expects = item.text
            elif isinstance(item, FieldInfo) and isinstance(item.discriminator, str):
                spot.discriminator = item.discriminator
    return tp


def _members(tp: Any, discriminator: str) -> dict[str, Any]:
    """The models of a tagged union by their tag."""
    out = {}
    for model in typing.get_args(tp):
        literal = model.model_fields[discriminator].annotation
        if typing.get_origin(literal) is Literal:
            out.update(dict.fromkeys(typing.get_args(literal), model))
    return out


def _locate(root: Any, loc: tuple[str | int, ...]) -> _Spot:
    """Follow the error location *loc* through the type *root*."""
    spot = _Spot([])
    tp = _unwrap(root, spot)
    for step in loc:
        union = typing.get_origin(tp) in (typing.Union, types.UnionType)
        if union and spot.discriminator and isinstance(step, str):
            members = _members(tp, spot.discriminator)
            if step in members:
                spot.discriminator = None
                tp = _unwrap(members[step], spot)
                continue
        spot.steps.append(step)
        if isinstance(step, int):
            spot.discriminator = None
            tp = _unwrap(typing.get_args(tp)[0] if typing.get_args(tp) else Any, spot)
            continue
        if not (isinstance(tp, type) and issubclass(tp, Section)):
            break
        spot.owner, spot.expects, spot.discriminator = tp, "", None
        info = tp.field_for(step)
        if info is None:
            break
        spot.discriminator = info.discriminator if isinstance(info.discriminator, str) else None
        for item in info.metadata:
            if isinstance(item, Expects):
                spot.expects = item.text
        tp = _unwrap(info.annotation, spot)
    if typing.get_origin(tp) in (typing.Union, types.UnionType) and spot.discriminator:
        spot.tags = tuple(_members(tp, spot.discriminator))
    return spot


# -- turning errors into problems ---------------------------------------------------------


def _written(raw: Any, steps: list[str | int]) -> tuple[list[str | int], Any, bool]:
    """The longest prefix of *steps* that the file has, the value there, and
    whether the whole of *steps* is there."""
    value = raw
    for i, step in enumerate(steps):
        inside = (isinstance(value, dict) and isinstance(step, str) and step in value) or (
            isinstance(value, list) and isinstance(step, int) and step < len(value))
        if not inside:
            return steps[:i], value, False
        value = value[step]
    return steps, value, True


def _path(steps: Sequence[str | int]) -> str:
    path = ""
    for step in steps:
        path = join(path, step)
    return path


def _tag_list(tags: Sequence[str]) -> str:
    return "one of " + ", ".join(map(repr, tags))


def problem_of(error: dict[str, Any], root: Any, raw: Any) -> Problem:
    """The problem one pydantic *error* describes, in a document *raw* read as *root*."""
    spot = _locate(root, tuple(error["loc"]))
    kind = error["type"]
    if kind in ("union_tag_invalid", "union_tag_not_found") and spot.discriminator:
        steps, value, whole = _written(raw, [*spot.steps, spot.discriminator])
        tags = spot.tags or tuple(str(error.get("ctx", {}).get("expected_tags", "")).split(", "))
        return Problem(_path([*spot.steps, spot.discriminator]),
                       given(value) if whole else "missing", _tag_list(tags))
    if kind == "extra_forbidden" and spot.owner is not None:
        name = str(spot.steps[-1])
        _, value, _ = _written(raw, spot.steps)
        reason = spot.owner.elsewhere.get(name)
        if reason:
            shown = (f"given {count(len(value), singular(name))}" if isinstance(value, list)
                     and value and all(isinstance(v, dict) for v in value) else given(value))
            return Problem(_path(spot.steps), shown, reason)
        keys = spot.owner.keys()
        close = difflib.get_close_matches(name, keys, 1, 0.6)
        hint = f"did you mean {close[0]!r}? " if close else ""
        return Problem(_path(spot.steps), "unknown key",
                       f"{hint}allowed keys {spot.owner.where}: {', '.join(keys)}")
    if kind == "missing":
        return Problem(_path(spot.steps), "missing", spot.expects or error["msg"])
    steps, value, _ = _written(raw, spot.steps)
    expected = (error["ctx"]["expected"] if kind == ERROR_TYPE and error.get("ctx", {})
                .get("expected") else spot.expects or error["msg"])
    return Problem(_path(steps), given(value), expected)


def problems_of(error: ValidationError, root: Any, raw: Any) -> list[Problem]:
    """Every problem in *error*, raised validating the document *raw* as *root*,
    in the order of the file's top-level keys; the same problem reported twice
    (a value refused on two paths) is kept once."""
    out: list[Problem] = []
    for item in error.errors(include_url=False):
        problem = problem_of(item, root, raw)
        if problem not in out:
            out.append(problem)
    order = {name: i for i, name in enumerate(raw)} if isinstance(raw, dict) else {}
    return sorted(out, key=lambda p: order.get(re.split(r"[.\[]", p.path)[0], len(order)))
