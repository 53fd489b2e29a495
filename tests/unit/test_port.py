"""The link-level port: fill words, R_RDY placement and BB credit timing."""

from __future__ import annotations

from collections import deque

import pytest

from fcsim.engine.simulation import Simulation
from fcsim.fc0.cable import Cable
from fcsim.fc0.speed import speed_named
from fcsim.fc1 import ordered_sets as osets
from fcsim.fc2.frame import Frame
from fcsim.fc2.port import MIN_FILL_WORDS, Port
from fcsim.link.link import Link

SPEED = speed_named("1GFC")


class Owner:
    """A test owner: sends queued frames, frees buffers after *hold* s (None: never)."""

    def __init__(self, sim: Simulation, port: Port, hold: float | None = 0.0) -> None:
        self.sim, self.port, self.hold = sim, port, hold
        self.queue: deque[Frame] = deque()
        self.received: list[tuple[float, Frame]] = []
        port.owner = self

    def next_frame(self, credit: bool) -> Frame | None:
        return self.queue.popleft() if credit and self.queue else None

    def waits_for_credit(self) -> bool:
        return bool(self.queue)

    def frame_received(self, frame: Frame) -> None:
        self.received.append((self.sim.now, frame))
        if self.hold is not None:
            self.sim.call_later(self.hold, lambda _e: self.port.release_buffer())

    def frame_dropped(self, frame: Frame) -> None:
        self.port.release_buffer()


class Starts:
    """Trace sink recording (kind, port name, start time)."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str, float]] = []

    def frame(self, time, port, frame, start, end) -> None:
        self.events.append(("frame", port.name, start))

    def primitive(self, time, port, name, start) -> None:
        self.events.append((name, port.name, start))


def _pair(credit: int, length: float = 0.0, hold: float | None = 0.0):
    sim = Simulation(1)
    starts = Starts()
    sim.sinks.append(starts)
    a, b = Port(sim, "a", credit), Port(sim, "b", credit)
    Link("l", a, b, SPEED, Cable(length))
    owners = Owner(sim, a, hold), Owner(sim, b, hold)
    a.login(b.rx_buffers)
    b.login(a.rx_buffers)
    return sim, a, b, owners, starts


def _data(n: int) -> Frame:
    return Frame(osets.SOFn3, osets.EOFn, 0x04, 2, 1, 0xE0, 0, 0, 0, 0, 0xFFFF, n, 3)


def test_back_to_back_frames_keep_six_fill_words() -> None:
    sim, a, b, (oa, ob), starts = _pair(credit=8)
    oa.queue.extend(_data(2112) for _ in range(3))
    a.kick()
    sim.run(1e-3)
    frame_starts = [t for kind, name, t in starts.events if kind == "frame"]
    step = (2148 + 4 * MIN_FILL_WORDS) * SPEED.char_time
    assert frame_starts == pytest.approx([0.0, step, 2 * step])
    assert len(ob.received) == 3


def test_r_rdy_waits_for_the_frame_in_progress() -> None:
    sim, a, b, (oa, ob), starts = _pair(credit=8)
    ob.queue.append(_data(2112))
    b.kick()  # b starts a long frame at t = 0
    oa.queue.append(_data(0))
    a.kick()  # a's short frame reaches b while b is still sending
    sim.run(1e-3)
    r_rdy = [t for kind, name, t in starts.events if kind == "R_RDY" and name == "b"]
    assert r_rdy == pytest.approx([2148 * SPEED.char_time])


def test_seventh_r_rdy_in_a_gap_delays_the_next_frame() -> None:
    sim, a, b, (oa, ob), starts = _pair(credit=16)
    ob.queue.extend([_data(2112), _data(2112)])
    b.kick()
    oa.queue.extend(_data(0) for _ in range(7))
    a.kick()  # seven R_RDYs become due at b during its first frame
    sim.run(1e-3)
    frame_b = [t for kind, name, t in starts.events if kind == "frame" and name == "b"]
    word = SPEED.word_time
    assert frame_b[1] == pytest.approx(2148 * SPEED.char_time + 7 * word)


def test_one_credit_on_a_long_link_waits_a_round_trip() -> None:
    length = 10_000.0
    sim, a, b, (oa, ob), starts = _pair(credit=1, length=length)
    oa.queue.extend([_data(2112), _data(2112)])
    a.kick()
    sim.run(1e-3)
    frame_a = [t for kind, name, t in starts.events if kind == "frame" and name == "a"]
    delay = Cable(length).delay
    expected = 2148 * SPEED.char_time + delay + SPEED.word_time + delay
    assert frame_a[1] == pytest.approx(expected)
    assert a.stats.credit_stalls == 1
    assert a.current_credit() == 1


def test_credit_never_exceeds_login_and_buffers_hold() -> None:
    sim, a, b, (oa, ob), starts = _pair(credit=2, hold=None)
    oa.queue.extend(_data(100) for _ in range(5))
    a.kick()
    sim.run(1e-3)
    assert len(ob.received) == 2  # the receiver never frees a buffer
    assert b.buffers_used == 2 and a.current_credit() == 0


def test_a_login_completed_with_frames_out_counts_them_against_the_new_credit() -> None:
    """A port that sent on the login credit of 1 learns its peer's buffers at
    a login: its credit becomes those buffers less the frames still without an
    R_RDY (none once the R_RDY is in), and a frame that waited for credit goes."""
    sim, a, b, (owner_a, _), _ = _pair(4, length=2000.0, hold=None)
    a.login(1)
    owner_a.queue.extend([_data(0), _data(1)])
    a.kick()
    sim.run(1e-6)  # the first frame is out, the second waits for credit
    assert a.current_credit() == 0 and len(owner_a.queue) == 1
    a.learn_credit(b.rx_buffers)
    assert a.credit_login == b.rx_buffers
    sim.run(2e-6)  # the second frame leaves on the new credit
    assert not owner_a.queue
    assert a.current_credit() == b.rx_buffers - 2  # two frames out, neither answered
