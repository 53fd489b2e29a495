"""Checks across keys of an arbitrated loop: hard AL_PAs are unique, each
port's login BB credit is at most its buffers, `hop_lengths` gives one length
per hop (and not with `hop_length`), `order` names every node once, and the
speed is one FC-AL-2 defines for a loop (8GFC at most: FC-PI-5 and later define
no loop at 16GFC and faster)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fcsim.fc0.speed import CATALOG
from fcsim.loop.config import LoopSection
from fcsim.schema.errors import Problem, given, show
from fcsim.schema.rules import known, unique


def loop_problems(nodes: Any, loop: LoopSection, raws: list[dict[str, Any]],
                  raw: dict[str, Any]) -> Iterator[Problem]:
    """Every problem of the loop's node sections *nodes* (*raws* their tables)
    and of its ``[loop]`` section *loop* (*raw* its table)."""
    yield from unique(raws, "nodes", "al_pa", [n.al_pa for n in nodes])
    for i, node in enumerate(nodes):
        if node.login_credit > node.bb_credit:
            yield Problem(f"nodes[{i}].login_credit", given(raws[i]["login_credit"]),
                          f"an integer 0..bb_credit ({node.bb_credit})")
    yield from _order([n.name for n in nodes], loop, raw)
    yield from _speed(loop, raw)


FASTEST_LOOP = CATALOG["8GFC"]
"""The fastest speed FC-AL-2 (with FC-PI-4) defines for an arbitrated loop."""


def _speed(loop: LoopSection, raw: dict[str, Any]) -> Iterator[Problem]:
    coding = loop.coding if loop.coding is not None else loop.speed.coding
    fastest = FASTEST_LOOP
    data_rate = loop.speed.line_rate * coding.data_bits / coding.code_bits  # bits/s
    if data_rate > 8 * fastest.char_rate or loop.speed.fec is not None:
        yield Problem("loop.speed", given(raw["speed"]),
                      f"a speed FC-AL-2 defines for a loop: at most {fastest.name} "
                      f"({fastest.baud / 1e9:g} Gbaud, {fastest.coding.name})")


def _order(names: list[str], loop: LoopSection, raw: dict[str, Any]) -> Iterator[Problem]:
    hops = loop.hop_lengths
    if hops is not None and "hop_length" in raw:
        yield Problem("loop.hop_lengths", given(raw["hop_lengths"]),
                      "hop_length or hop_lengths, not both")
    elif hops is not None and len(hops) != len(names):
        yield Problem("loop.hop_lengths", given(raw["hop_lengths"]),
                      f"a list of {len(names)} lengths, one per hop (as many as nodes)")
    if loop.order is None:
        return
    for i, name in enumerate(loop.order):
        yield from known(name, f"loop.order[{i}]", names)
    missing = [name for name in names if name not in loop.order]
    if missing:
        yield Problem("loop.order", given(raw["order"]),
                      f"a list of every node's name, each once, in ring order; "
                      f"{show(missing[0])} is missing")
