"""An ISL trunk never delivers frames out of order, whatever its members'
cable lengths (within the deskew limit), their count and the frame sizes
(docs/fabric-services.md, "ISL trunking")."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from fcsim.fabric.trunk import DESKEW_LIMIT, MAX_MEMBERS
from fcsim.runner import run_once
from tests.trunk_fabric import trunk_scenario


class DataFrames:
    """Trace sink keeping, per sending port, the (SEQ_ID, SEQ_CNT) of each data frame."""

    def __init__(self) -> None:
        self.sent: dict[str, list[tuple[int, int]]] = {}

    def frame(self, time: float, port: Any, frame: Any, start: float, end: float) -> None:
        if not frame.is_link_control:
            self.sent.setdefault(port.name, []).append((frame.seq_id, frame.seq_cnt))

    def primitive(self, time: float, port: Any, name: str, start: float) -> None:
        """R_RDYs are not needed here."""

    def state(self, time: float, port: Any, change: str) -> None:
        """Nor are state changes."""


@settings(max_examples=12, deadline=None)
@given(lengths=st.lists(st.floats(0.0, DESKEW_LIMIT), min_size=2, max_size=MAX_MEMBERS),
       size=st.integers(1, 40_000),
       model=st.sampled_from(["generic-nonblocking", "cisco-mds-9148t"]))
def test_frames_leave_the_trunk_in_the_order_they_entered_it(
        lengths: list[float], size: int, model: str) -> None:
    sink = DataFrames()
    result = run_once(trunk_scenario([round(x, 1) for x in lengths], size=f"{size} B",
                                     duration="0.4 ms", model=model), 1, [sink])
    sent, delivered = sink.sent["host"], sink.sent["b:0"]
    assert delivered == sent[:len(delivered)]
    assert len(delivered) > 2 * len(lengths)
    assert all(d["lost"] == 0 for d in result["trunks"]["t"]["directions"].values())
