"""The table of docs/netperf-curve.md is what the code gives: it lists every
point of the curve's grid, and a sample of cheap rows re-run with the
scenario's seed reproduces its printed numbers exactly at their printed
precision (regenerate it with ``python -m fcsim.validation.netperf_curve --write``)."""

from __future__ import annotations

import pytest

from fcsim.validation.netperf_curve import DOC, HEADER, SCENARIO, grid, measure, parse
from fcsim.validation.points import Point

SAMPLE = [(262143, 256), (262143, 1024), (262143, 2097152), (32768, 8192)]
"""(socket, message size) in bytes of rows that each re-run in about a second:
they settle within about 2 s of simulated time, or (256 B) stall on the
delayed-ACK timer for most of their 10 s."""


@pytest.fixture(scope="module")
def table() -> dict[tuple[int, int], tuple[str, ...]]:
    return parse(DOC.read_text(encoding="utf-8"))


def test_the_table_lists_every_point_of_the_grid(table: dict) -> None:
    assert sorted(table) == sorted((point.socket, point.size) for point in grid())
    assert all(len(cells) == len(HEADER) for cells in table.values())


@pytest.mark.parametrize(("socket", "size"), SAMPLE, ids=[f"{s}-{m}" for s, m in SAMPLE])
def test_a_rerun_gives_the_printed_numbers(table: dict, socket: int, size: int) -> None:
    row = measure(Point(SCENARIO, socket, size))
    printed = dict(zip(HEADER, table[(socket, size)], strict=True))
    assert dict(zip(HEADER, row.cells(), strict=True)) == printed
