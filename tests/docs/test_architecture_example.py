"""The thirty-line FC-4 of docs/architecture.md runs as printed, and what it
counts is what the N_Port delivered: every sequence of the stream, whole, and
no more than the line carries."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path
from typing import Any

from fcsim.fc0.speed import CATALOG
from fcsim.fc2.frame import FRAMING_BYTES, MAX_DATA_FIELD
from fcsim.fc2.port import MIN_FILL_WORDS

DOC = Path(__file__).resolve().parents[2] / "docs" / "architecture.md"


def test_the_new_fc4_example_counts_what_the_nport_delivered() -> None:
    code = re.search(r"```python\n(.*?)```", DOC.read_text(), re.S)
    assert code is not None
    scope: dict[str, object] = {"__name__": "architecture_example"}
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code.group(1), str(DOC), "exec"), scope)
    counter: Any = scope["counter"]
    net: Any = scope["net"]
    scenario: Any = scope["scenario"]
    disk = net.nodes["disk"]
    (stream,) = scenario.workloads
    # every sequence the N_Port received whole went to the handler, and no other
    assert disk.stats.sequences_rx > 0
    assert counter.bytes == disk.stats.sequences_rx * stream.size
    # and no faster than full frames at 1GFC: 2112 payload bytes per frame and its gap
    speed = CATALOG["1GFC"]
    ceiling = (MAX_DATA_FIELD / ((MAX_DATA_FIELD + FRAMING_BYTES + 4 * MIN_FILL_WORDS)
                                 * speed.char_time))
    duration = scenario.run.duration
    assert counter.bytes / duration <= ceiling
    assert printed.getvalue().strip() == f"{counter.bytes / duration / 1e6:.1f} MB/s"
