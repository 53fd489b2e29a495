"""Scenario files' text for the tests: the TOML a user would write, built from
its parts (a ``[run]`` table, switches, nodes, links, workloads), so that a
test names only what it varies. The text comes out one key a line, as the
example scenarios are written, so a test may still edit it with
``str.replace``."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

SWITCH_MODEL = "generic-nonblocking"
"""The switch model the tests' fabrics use unless they name another."""

_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f",
            "\r": "\\r"}
"""TOML's escapes in a basic string; another control character is written
as its \\uXXXX."""


def toml_value(value: Any) -> str:
    """*value* as a TOML value: a string quoted, a bool lower case, a float
    in its shortest form, a list or a mapping (an inline table) element by
    element. A string that is a ``str.format`` field, such as
    ``"{duration}"``, is quoted like any other."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + "".join(_ESCAPES.get(c, c) if c >= " " and c != "\x7f"
                             else _ESCAPES.get(c, f"\\u{ord(c):04X}") for c in value) + '"'
    if isinstance(value, int):
        return repr(value)
    if isinstance(value, float):  # 1e-06 written 1e-6, as a person writes it
        return re.sub(r"e([+-])0+(?=\d)", r"e\1", repr(value))
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + " }"
    if isinstance(value, Sequence):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    raise TypeError(f"no TOML value for {value!r}")


def table(header: str, keys: Mapping[str, Any]) -> str:
    """A table: *header* (``"[run]"``, ``"[[links]]"``) then one ``key =
    value`` line per entry of *keys* whose value is not None."""
    return header + "\n" + "".join(f"{k} = {toml_value(v)}\n" for k, v in keys.items()
                                   if v is not None)


def run(duration: str, **keys: Any) -> str:
    """The ``[run]`` table: *duration* (with its unit, as a scenario file
    writes it) and any other run key."""
    return table("[run]", {"duration": duration, **keys})


def switches(*names: str, model: str = SWITCH_MODEL) -> str:
    """One ``[[switches]]`` entry per name, each of *model*."""
    return "".join(table("[[switches]]", {"name": name, "model": model}) for name in names)


def nodes(*names: str) -> str:
    """One ``[[nodes]]`` entry per name, with no other key."""
    return "".join(table("[[nodes]]", {"name": name}) for name in names)


def link(a: str, b: str, speed: str, name: str | None = None, **keys: Any) -> str:
    """A ``[[links]]`` entry between ends *a* and *b* (``"host"``,
    ``"sw:3"``) at *speed*, named *name* if given, with any other link key."""
    return table("[[links]]", {"name": name, "ends": [a, b], "speed": speed, **keys})


def star(switch: str, names: Sequence[str], speed: str, first: int = 0) -> str:
    """A link from each node of *names* to *switch*, on its ports *first*,
    *first* + 1, ... in order."""
    return "".join(link(name, f"{switch}:{first + i}", speed) for i, name in enumerate(names))


def stream(name: str, source: str, destination: str, **keys: Any) -> str:
    """A ``[[workloads]]`` entry: a stream of sequences from *source* to
    *destination*, with any other stream key (``size``, ``outstanding``; the
    class as ``**{"class": 3}``)."""
    return table("[[workloads]]", {"name": name, "type": "stream", "from": source,
                                   "to": destination, **keys})


def one_switch_fabric(names: Sequence[str], duration: str, speed: str, switch: str = "sw",
                      model: str = SWITCH_MODEL, **run_keys: Any) -> str:
    """A fabric of one switch *switch* with each node of *names* on its own
    port (0, 1, ... in order) at *speed*: the scenario's head, before its
    workloads."""
    return ('topology = "fabric"\n' + run(duration, **run_keys) + switches(switch, model=model)
            + nodes(*names) + star(switch, names, speed))


def point_to_point(duration: str, speed: str = "1GFC", a: str = "a", b: str = "b",
                   name: str | None = None, **run_keys: Any) -> str:
    """Two nodes *a* and *b* on one link at *speed*: the scenario's head,
    before its workloads."""
    return ('topology = "point-to-point"\n' + run(duration, **run_keys) + nodes(a, b)
            + link(a, b, speed, name))


def dual_fabric(name: str, multipath: Mapping[str, Any], duration: str, speed: str = "4GFC",
                target: str = "tms-ramsan", **run_keys: Any) -> str:
    """Two fabrics, switches swA and swB: node "host" (two ports, its
    ``[nodes.multipath]`` keys *multipath*) and node "array" (two ports, the
    device model *target*) each with port 0 on swA and port 1 on swB, links
    hostA, arrayA, hostB and arrayB at *speed*: the scenario's head, before
    its workloads."""
    return (f'topology = "fabric"\nname = {toml_value(name)}\n' + run(duration, **run_keys)
            + switches("swA", "swB") + table("[[nodes]]", {"name": "host", "ports": 2})
            + table("[nodes.multipath]", multipath)
            + table("[[nodes]]", {"name": "array", "target": target, "ports": 2})
            + link("host", "swA:0", speed, "hostA") + link("array", "swA:1", speed, "arrayA")
            + link("host.1", "swB:0", speed, "hostB") + link("array.1", "swB:1", speed, "arrayB"))
