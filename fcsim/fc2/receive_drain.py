"""How an N_Port's receive path frees its buffers: a slow-drain device.

A frame that arrives takes one of the N_Port's receive buffers; the port sends
the R_RDY that returns its credit when the frame has left the buffer
(FC-FS-5 buffer-to-buffer flow control). A device that empties its buffers
slowly (an HBA, driver or host that cannot keep up: "slow drain" in the switch
vendors' guides, Cisco MDS "Slow Drain Device Detection and Congestion
Avoidance", Brocade FOS "Bottleneck Detection") holds its link peer's credit
and, through it, the switches behind.

:class:`ReceiveDrain` is that receive path, built with the N_Port when its
:class:`DrainSpec` asks for anything (it is one rule for every case, the
node's ``rx_frame_time`` included):

* frames are taken out of the buffers one at a time, in arrival order: frame
  *k* starts when it has arrived and frame *k - 1* is done, and takes
  *frame_time* (a constant or a drawn value) plus its payload over *rate*
  (payload bytes/s; 0: no limit);
* its buffer is freed (the R_RDY goes back, the frame is handed up) *delay*
  after that (a constant or a drawn value), never before an earlier frame's:
  buffers are freed in arrival order;
* a stuck receiver frees no buffer from *stuck_at* for *stuck_for* s: a
  buffer due then is freed when it ends (the device stops returning R_RDY).

A Link Reset empties the buffers (:meth:`ReceiveDrain.flush`, a flush hook of
a recovering port): the frames the receive path still holds are discarded,
as a device that cannot process the frames in its ingress buffers drops them
before it returns LRR (Cisco MDS credit loss recovery); the path's schedule
for later frames stays as it was.

With a constant *frame_time* alone, the receive path is a server of
1 / *frame_time* frames/s; with *rate* alone, of *rate* payload bytes/s.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from fcsim.engine.simulation import Simulation
    from fcsim.fc2.frame import Frame


class Draw(Protocol):
    """A distribution of times, s (:mod:`fcsim.workload.distributions`)."""

    def sample(self, rng: random.Random) -> float:
        """One value drawn with *rng*, s."""

    @property
    def mean(self) -> float:
        """The mean, s."""


Time = float | Draw
"""A constant time (s) or a distribution of them."""


@dataclass(frozen=True, slots=True)
class DrainSpec:
    """How a node's receive path frees its buffers (see the module docstring).

    *frame_time*: time to take one frame out of its buffer, s, or its
    distribution; *rate*: payload bytes/s the receive path moves (0: no
    limit); *delay*: time from then until the buffer is free, s, or its
    distribution; *stuck_at*, *stuck_for*: when the receiver stops freeing
    buffers and for how long, s (None: never).
    """

    frame_time: Time = 0.0
    rate: float = 0.0
    delay: Time = 0.0
    stuck_at: float | None = None
    stuck_for: float = 0.0

    def __post_init__(self) -> None:
        for name in ("frame_time", "delay"):
            value = getattr(self, name)
            if (value if isinstance(value, float | int) else value.mean) < 0:
                raise ValueError(f"{name} must be >= 0 s, got {value}")
        if self.rate < 0:
            raise ValueError(f"rate must be >= 0 B/s (0: no limit), got {self.rate}")
        if self.stuck_at is not None and (self.stuck_at < 0 or self.stuck_for <= 0):
            raise ValueError(f"stuck_at must be >= 0 s and stuck_for > 0 s, got "
                             f"{self.stuck_at}, {self.stuck_for}")

    @property
    def active(self) -> bool:
        """True if the receive path frees buffers later than at once."""
        return bool(self.frame_time or self.rate or self.delay or self.stuck_at is not None)


class ReceiveDrain:
    """An N_Port's receive path as *spec* says, calling *handle(frame)* when
    each frame leaves its buffer (the N_Port frees the buffer there)."""

    def __init__(self, sim: Simulation, name: str, spec: DrainSpec,
                 handle: Callable[[Frame], None]) -> None:
        self.sim = sim
        self.spec = spec
        self._handle = handle
        self._rng = sim.rng(f"drain/{name}")
        self._frame_time = self._reader(spec.frame_time)
        self._delay = self._reader(spec.delay)
        self._rate = spec.rate
        self._stuck = (None if spec.stuck_at is None
                       else (spec.stuck_at, spec.stuck_at + spec.stuck_for))
        self._free_at = 0.0  # when the frame being taken out is done, s
        self._last = 0.0  # when the last buffer is (was) freed, s
        self._held: deque[Frame] = deque()  # in the buffers, in arrival (= release) order
        self._skip = 0  # releases still due for frames a reset discarded

    def _reader(self, value: Time) -> float | Callable[[], float]:
        """A constant, or a function drawing the next value."""
        if isinstance(value, float | int):
            return float(value)
        rng = self._rng
        return lambda: value.sample(rng)

    def receive(self, frame: Frame) -> None:
        """*frame* has arrived in a buffer: free it when the receive path has
        taken it out."""
        now = self.sim.now
        free_at = self._free_at
        frame_time = self._frame_time
        done = (now if now > free_at else free_at) + (
            frame_time if frame_time.__class__ is float else frame_time())  # type: ignore[operator]
        if self._rate:
            done += frame.payload_len / self._rate
        self._free_at = done
        delay = self._delay
        release = done + (delay if delay.__class__ is float else delay())  # type: ignore[operator]
        if release < self._last:
            release = self._last
        stuck = self._stuck
        if stuck is not None and stuck[0] <= release < stuck[1]:
            release = stuck[1]
        self._last = release
        self._held.append(frame)
        self.sim.call_later(release - now, self._release, None)

    def _release(self, _value: object) -> None:
        """The oldest frame's buffer is due: hand it on (releases come in
        arrival order), unless a reset discarded it."""
        if self._skip:
            self._skip -= 1
            return
        self._handle(self._held.popleft())

    def flush(self) -> list[Frame]:
        """Discard the frames in the buffers (a Link Reset empties them): the
        frames discarded."""
        held = list(self._held)
        self._skip += len(held)
        self._held.clear()
        return held
