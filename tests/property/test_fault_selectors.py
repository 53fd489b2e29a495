"""A bit-error-rate fault aimed at one direction of a link (``from`` an end,
or both directions without it) strikes that direction's frames only, and
does strike them, in a point-to-point link and on a node's link into a
fabric (either end, the N_Port or the switch port); with faults that
overlap, the rate of each frame is that of the latest fault lasting on its
direction when it is sent (hypothesis, random schedules of two faults)."""

from __future__ import annotations

import dataclasses
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from fcsim.faults.config import FaultConfig
from fcsim.runner import _run_once
from fcsim.scenario.workload_model import StreamConfig
from tests.builders import fabric, p2p

PAYLOAD = 2112
STREAMS = (StreamConfig("ab", "a", "b", 10 * PAYLOAD, outstanding=2),
           StreamConfig("ba", "b", "a", 10 * PAYLOAD, outstanding=2))
RATE = 5e-5
"""A rate at which a full frame (about 21,480 line bits) is hit two times in three."""
MS = 1e-3
GUARD = 5e-6
"""Frames sent this close to a fault's start or end are not judged, s (none
of a frame's bits is then drawn at a rate it was not sent under)."""


class _Sent:
    """The full frames each port sends: (start, hit)."""

    def __init__(self) -> None:
        self.rows: dict[str, list[tuple[float, bool]]] = {}

    def frame(self, time: float, port: Any, frame: Any, start: float, end: float) -> None:
        if frame.data_len == PAYLOAD:
            self.rows.setdefault(port.name, []).append((start, frame.corrupt))

    def primitive(self, *args: object) -> None:
        pass

    def state(self, *args: object) -> None:
        pass


def _rate(faults: list[FaultConfig], ends: tuple[str, str], sender: str, t: float) -> float:
    """The rate of *sender*'s frames at *t*: the latest begun fault lasting on
    its direction, or the link's own (0)."""
    lasting = [f for f in faults if sender in ((f.sender,) if f.sender else ends)
               and f.at <= t < f.at + f.duration]  # type: ignore[operator]
    return lasting[-1].bit_error_rate if lasting else 0.0  # type: ignore[return-value]


faults_strategy = st.lists(
    # (at, duration) in ms, from 1 ms on (after the logins); the end sending (an
    # index into the link's ends; None: both); the rate
    st.tuples(st.integers(1, 7), st.integers(1, 6), st.sampled_from([0, 1, None]),
              st.sampled_from([RATE, 2 * RATE])),
    min_size=1, max_size=2)


@settings(max_examples=12, deadline=None)
@given(in_fabric=st.booleans(), drawn=faults_strategy, seed=st.integers(1, 100))
def test_a_fault_strikes_its_direction_only(in_fabric: bool, drawn: list[Any],
                                            seed: int) -> None:
    if in_fabric:
        base = fabric({"a": "sw:0", "b": "sw:1"}, STREAMS, 0.018, seed=seed)
        link, ends = "l-a", ("a", "sw:0")
    else:
        base = p2p(STREAMS, 0.018, seed=seed)
        link, ends = "link", ("a", "b")
    faults = sorted((FaultConfig(at * MS, "bit-error-rate", link=link, bit_error_rate=rate,
                                 duration=length * MS,
                                 sender=None if end is None else ends[end])
                     for at, length, end, rate in drawn), key=lambda f: f.at)
    sent = _Sent()
    _run_once(dataclasses.replace(base, faults=tuple(faults)), seed, [sent], None, None)
    edges = [t for f in faults for t in (f.at, f.at + f.duration)]  # type: ignore[operator]
    for sender in ends:
        struck = spared = 0
        for start, hit in sent.rows.get(sender, []):
            if any(abs(start - t) < GUARD for t in edges):
                continue
            if _rate(faults, ends, sender, start) == 0.0:
                assert not hit, f"{sender}'s frame at {start * 1e3:.4f} ms hit out of any fault"
                spared += 1
            else:
                struck += hit
        lasting = sum(f.duration for f in faults  # type: ignore[misc]
                      if sender in ((f.sender,) if f.sender else ends))
        if lasting >= 1 * MS:  # a few dozen frames, two in three hit at least
            assert struck > 0, f"no frame of {sender} hit in {lasting * 1e3:g} ms of faults"
