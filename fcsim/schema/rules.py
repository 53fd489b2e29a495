"""Rules the checks across keys share: a name is known, values are unique
within their kind, each cable end is used once."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fcsim.schema.errors import Problem, given, show


def unique(raws: list[dict[str, Any]], section: str, key: str,
           values: list[Any]) -> Iterator[Problem]:
    """A problem for each of *values* (one per table of *section*, None: no
    value) equal to an earlier one."""
    for i, value in enumerate(values):
        if value is not None and value in values[:i]:
            first = values.index(value)
            by_default = [f" ({show(value)} by default)" if key not in raws[j] else ""
                          for j in (i, first)]
            article = "an" if key[0] in "aeiou" else "a"
            yield Problem(f"{section}[{i}].{key}",
                          given(raws[i][key]) if key in raws[i] else f"none{by_default[0]}",
                          f"{article} {key} not used by {section}[{first}]{by_default[1]}")


def known(name: str, path: str, nodes: list[str], what: str = "a node") -> Iterator[Problem]:
    """A problem if *name* is not one of *nodes* (*what* they are, for the message)."""
    if name not in nodes:
        yield Problem(path, given(name), f"the name of {what}: " + ", ".join(map(repr, nodes)))


def ends_once(links: Any, nodes: list[str], every_node: str) -> Iterator[Problem]:
    """A problem for each end of *links* used by an earlier link, and for each of
    *nodes* no link reaches (*every_node* says what is expected)."""
    seen: dict[str, str] = {}
    for i, link in enumerate(links):
        for j, end in enumerate(link.ends):
            if end in seen:
                yield Problem(f"links[{i}].ends[{j}]", given(end),
                              f"an end not already used by {seen[end]}")
            seen.setdefault(end, f"links[{i}]")
    for name in nodes:
        if name not in seen:
            yield Problem("links", f"no link for node {name!r}", every_node)
