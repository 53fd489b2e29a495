"""The line timing every transmitter shares (fcsim.link.line.launch), on a
line end that is nothing but the attributes LineEnd declares: the link layer
needs no more of a port than that."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from random import Random
from typing import Any

import pytest

from fcsim.fc0.speed import CATALOG
from fcsim.link.line import LineEnd, launch


@dataclass
class Counters:
    frames_tx: int = 0
    chars_tx: int = 0
    busy_time: float = 0.0


@dataclass
class Sink:
    seen: list[tuple[float, Any, Any, float, float]] = field(default_factory=list)

    def frame(self, time: float, port: Any, frame: Any, start: float, end: float) -> None:
        self.seen.append((time, port, frame, start, end))

    def primitive(self, time: float, port: Any, name: str, start: float) -> None:
        """Not called by launch."""

    def state(self, time: float, port: Any, change: str) -> None:
        """Not called by launch."""


@dataclass
class End:
    """A LineEnd and nothing else."""

    char_time: float
    gap_time: float
    bit_error_rate: float = 0.0
    line_bits: float = 10.0
    fec: None = None
    line_free: float = 0.0
    gap_end: float = 0.0
    stats: Counters = field(default_factory=Counters)
    rng: Random = field(default_factory=lambda: Random(1))
    sinks: list[Sink] = field(default_factory=list)


@dataclass
class Frame:
    chars: int
    corrupt: bool = False


def end(ber: float = 0.0) -> End:
    speed = CATALOG["1GFC"]
    return End(speed.char_time, 6 * speed.word_time, ber)


def test_back_to_back_frames_are_a_gap_apart() -> None:
    port: LineEnd = end()
    sink = Sink()
    port.sinks = [sink]
    first, second = Frame(2148), Frame(60)
    start1, end1, gap1 = launch(port, first, 0.0)
    assert (start1, end1) == (0.0, 2148 * port.char_time)
    assert gap1 == end1 + port.gap_time
    start2, end2, gap2 = launch(port, second, 0.0)  # queued while the first was sent
    assert start2 == gap1
    assert end2 == pytest.approx(gap1 + 60 * port.char_time)
    assert (port.line_free, port.gap_end) == (end2, gap2)
    assert (port.stats.frames_tx, port.stats.chars_tx) == (2, 2208)
    assert port.stats.busy_time == pytest.approx(2208 * port.char_time)
    assert sink.seen == [(0.0, port, first, start1, end1), (0.0, port, second, start2, end2)]


def test_a_frame_waits_for_words_sent_after_the_gap_and_not_for_an_idle_line() -> None:
    port = end()
    _, _, gap = launch(port, Frame(100), 0.0)
    words_end = gap + 3 * 4 * port.char_time  # three ordered sets sent after the gap
    port.line_free = words_end
    start, _, _ = launch(port, Frame(100), 0.0)
    assert start == words_end > gap
    late = port.gap_end + 1e-3
    start, _, _ = launch(port, Frame(100), late)
    assert start == late


def test_bit_errors_hit_a_frame_as_often_as_its_line_bits_allow() -> None:
    """P(corrupt) = 1 - (1 - BER)^(line bits x chars x hops): 10 a character at 1GFC's 8b/10b."""
    ber, chars, hops, n = 1e-5, 1000, 3, 20000
    port = end(ber)
    hit = 0
    for _ in range(n):
        frame = Frame(chars)
        launch(port, frame, port.gap_end, hops)
        hit += frame.corrupt
    p = 1.0 - (1.0 - ber) ** (port.line_bits * chars * hops)
    assert abs(hit / n - p) < 4 * math.sqrt(p * (1 - p) / n)


def test_an_error_free_line_draws_nothing() -> None:
    port = end()
    before = port.rng.getstate()
    launch(port, Frame(2148), 0.0)
    assert port.rng.getstate() == before
