"""A mechanical disk: one actuator serving its queued commands one at a time,
in arrival order or, with tagged-queue reordering, the one it can reach
soonest first.

Each access costs the controller's command overhead, a seek, the rotation
until the first sector comes under the head, and the media transfer at the
zone's rate. Positions are physical: the head's radial position (0 at the
outermost cylinder, 1 at the innermost) and the platter's angle, which turns
with simulated time; a sector's angle follows from its offset in its zone's
tracks, so rotational latency is what the geometry gives, not a draw.

Seek time over a distance *d* (a fraction of the stroke) is
``a + b*sqrt(d) + c*d`` (Ruemmler & Wilkes 1994: square-root growth for short
seeks, linear for long), with ``a`` the track-to-track time and ``b``, ``c``
fitted so that the curve gives the full-stroke time at ``d = 1`` and the data
sheet's average seek as its mean over random pairs of positions
(E[sqrt d] = 8/15, E[d] = 1/3 for two uniform positions).

Reordering (the model's ``reorder``): of the commands queued, the drive
takes next the one whose first sector it can reach soonest: seek from the
head's position plus the rotation until that sector passes, a read that its
read-ahead has reached costing nothing (shortest positioning time first, as
the drives with tagged command queueing did; Worthington, Ganger & Patt
1994).

Read-ahead: after a read the drive keeps reading on into its buffer at media
rate until the buffer is full or another access moves the head; a read that
continues where the last one ended takes what is buffered and waits only for
the rest. A read larger than the buffer is handed over in segments of half
the buffer as the media delivers them (:meth:`Disk.stream_read`), the drive
sending one while it reads the next. Write cache: a write is acknowledged
once its data is in the buffer; the media writes behind at media rate, and a
write waits only while the data not yet written would overflow the buffer.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from fcsim.engine.simulation import Simulation
from fcsim.storage.device_model import DiskModel

ROUNDING = 1e-9
"""Time within which a sector counts as under the head now, s (float rounding of
the platter's angle over hours of simulated time is far below it)."""


@dataclass
class Breakdown:
    """Where a device's time went, s, how many commands it served and the
    bytes it moved (*written*: of them, by writes)."""

    overhead: float = 0.0
    seek: float = 0.0
    rotation: float = 0.0
    transfer: float = 0.0
    busy: float = 0.0
    commands: int = 0
    buffer_hits: int = 0
    bytes: int = 0
    written: int = 0

    def command(self, write: bool, length: int) -> None:
        """Count one command of *length* bytes (a write if *write*)."""
        self.commands += 1
        self.bytes += length
        if write:
            self.written += length

    def as_dict(self, interval: float) -> dict[str, float]:
        """The breakdown as JSON-ready figures over *interval* s."""
        n = max(self.commands, 1)
        return {"commands": self.commands, "bytes": self.bytes, "bytes_written": self.written,
                "utilisation": self.busy / interval if interval > 0 else 0.0,
                "buffer_hits": self.buffer_hits,
                "mean_overhead_s": self.overhead / n, "mean_seek_s": self.seek / n,
                "mean_rotation_s": self.rotation / n, "mean_transfer_s": self.transfer / n}


class Disk:
    """The drive *model* as a simulated device named *name*, its platter at
    angle *phase* (a fraction of a turn, 0..1) at time 0. :attr:`max_queued`:
    the most commands it has held at once (waiting or in service) since the
    measured interval began."""

    def __init__(self, sim: Simulation, name: str, model: DiskModel,
                 phase: float = 0.0) -> None:
        self.sim, self.name, self.model, self.phase = sim, name, model, phase
        n = model.zones
        self._rates = [model.outer_rate - (model.outer_rate - model.inner_rate) * i
                       / max(n - 1, 1) for i in range(n)]
        total = sum(self._rates)
        self._sizes = [model.capacity * r / total for r in self._rates]
        self._starts = [sum(self._sizes[:i]) for i in range(n)]
        t2t, avg, full = model.track_to_track, model.average_seek, model.full_stroke
        # a + b + c = full; a + 8/15 b + 1/3 c = avg  ->  b, c
        self._c = (full - t2t - 15 / 8 * (avg - t2t)) / (1 - 15 / 24)
        self._b = full - t2t - self._c
        self._head = 0.0
        self._queue: deque[tuple[bool, int, int, Callable[[], None],
                                 Callable[[int], None] | None]] = deque()
        self._busy = False
        self._ahead_from = -1  # offset the buffered read-ahead data starts at
        self._ahead_bytes = 0.0  # buffered at _ahead_since
        self._ahead_since = 0.0
        self._dirty_until = 0.0  # the write cache is on the media by then
        self.stats = Breakdown()
        self.max_queued = 0

    # -- geometry ---------------------------------------------------------------------------

    def _zone(self, offset: int) -> int:
        i = 0
        while i + 1 < len(self._starts) and offset >= self._starts[i + 1]:
            i += 1
        return i

    def place(self, offset: int) -> tuple[float, float, float]:
        """Radial position (0 outer .. 1 inner), angle (0..1) and media rate
        (bytes/s) of the byte at *offset*."""
        i = self._zone(offset)
        into = offset - self._starts[i]
        rate = self._rates[i]
        track = rate * self.model.revolution
        radius = (i + min(into / self._sizes[i], 1.0)) / len(self._rates)
        return radius, (into / track) % 1.0, rate

    def seek_time(self, distance: float) -> float:
        """Seek time over *distance* (a fraction of the stroke, 0..1), s."""
        if distance <= 0:
            return 0.0
        return self.model.track_to_track + self._b * math.sqrt(distance) + self._c * distance

    def utilisations(self, interval: float) -> dict[str, float]:
        """Busy fraction of the drive over *interval* s."""
        return {"disk": self.stats.busy / interval if interval > 0 else 0.0}

    def results(self, interval: float) -> dict[str, float]:
        """Figures of the measured *interval* (s)."""
        return self.stats.as_dict(interval)

    def reset_stats(self) -> None:
        """Start a new measured interval."""
        self.stats = Breakdown()
        self.max_queued = self.queued

    # -- commands -----------------------------------------------------------------------------

    def submit(self, write: bool, offset: int, length: int, done: Callable[[], None]) -> None:
        """Read or write *length* bytes at *offset*; *done()* when the drive is
        through (a cached write: once buffered)."""
        self._enqueue(write, offset, length, done, None)

    def stream_read(self, offset: int, length: int, arrived: Callable[[int], None],
                    done: Callable[[], None]) -> None:
        """Read *length* bytes at *offset*, handing the data over as it is read:
        a read larger than the buffer calls *arrived(bytes)* as each
        :meth:`segment` of it is in the buffer (the drive sends it while it
        reads on), and *done()* once the rest is; a smaller read calls *done()*
        alone, once all of it is read."""
        self._enqueue(False, offset, length, done, arrived)

    def _enqueue(self, write: bool, offset: int, length: int, done: Callable[[], None],
                 arrived: Callable[[int], None] | None) -> None:
        self._queue.append((write, offset, length, done, arrived))
        if not self._busy:
            self._next()
        self.max_queued = max(self.max_queued, len(self._queue) + self._busy)

    @property
    def segment(self) -> int:
        """Bytes a read larger than the buffer hands over at a time: half the
        buffer, which the media fills while the other half is sent (an
        assumption: a buffer of two segments)."""
        return self.model.buffer // 2

    @property
    def queued(self) -> int:
        """Commands waiting for or in service."""
        return len(self._queue) + self._busy

    def _next(self) -> None:
        if not self._queue:
            self._busy = False
            return
        self._busy = True
        now = self.sim.now
        if self.model.reorder and len(self._queue) > 1:
            best = min(range(len(self._queue)), key=lambda i: self._positioning(
                now, self._queue[i][0], self._queue[i][1]))
            self._queue.rotate(-best)
        write, offset, length, done, arrived = self._queue.popleft()
        took = self._write(now, offset, length) if write else self._read(now, offset, length)
        stats = self.stats
        stats.busy += took
        stats.command(write, length)
        if arrived is not None and length > self.model.buffer:
            self._stream(now + self.model.command_overhead, took - self.model.command_overhead,
                         offset, length, arrived)
        self.sim.call_later(took, self._finished, done)

    def _stream(self, start: float, took: float, offset: int, length: int,
                arrived: Callable[[int], None]) -> None:
        """Call *arrived(segment)* as each whole segment but the last of a read
        that started moving data at *start* and ends *took* s later is in the
        buffer: its bytes come off the media at the zone's rate up to the
        end (those buffered already at once)."""
        rate = self.place(offset)[2]
        end = start + took
        step = self.segment
        for k in range(step, length, step):
            at = max(start, end - (length - k) / rate)
            self.sim.call_later(at - self.sim.now, arrived, step)

    def _positioning(self, now: float, write: bool, offset: int) -> float:
        """Time before a command at *offset* could start moving data: none for a
        read the read-ahead has reached or a write into the write cache (the
        media writes behind, in arrival order), else the seek and the rotation
        (the drive's shortest-positioning-time-first choice)."""
        if offset == self._ahead_from and not write or write and self.model.write_cache:
            return 0.0
        radius, angle, _ = self.place(offset)
        at = now + self.model.command_overhead + self.seek_time(abs(radius - self._head))
        return at - now + self.rotation(angle, at)

    def rotation(self, angle: float, at: float) -> float:
        """Time from *at* until the sector at *angle* (0..1) is under the head, s
        (the platter is at angle *at* / revolution + :attr:`phase`).
        A sector due at *at* to within :data:`ROUNDING` is not a whole turn
        away: the angles of a sequential transfer's next sector and of the
        platter when the last one ended are equal but for float rounding."""
        turn = self.model.revolution
        wait = ((angle - (at / turn) % 1.0 - self.phase) % 1.0) * turn
        return 0.0 if wait > turn - ROUNDING else wait

    def _finished(self, done: Callable[[], None]) -> None:
        self._next()
        done()

    def _access(self, start: float, offset: int, length: int) -> float:
        """Seek, rotation and media transfer of an access that starts at *start*; s."""
        radius, angle, rate = self.place(offset)
        seek = self.seek_time(abs(radius - self._head))
        rotation = self.rotation(angle, start + seek)
        transfer = length / rate
        self._head = self.place(min(offset + length, self.model.capacity - 1))[0]
        stats = self.stats
        stats.seek += seek
        stats.rotation += rotation
        stats.transfer += transfer
        return seek + rotation + transfer

    def _read(self, now: float, offset: int, length: int) -> float:
        model = self.model
        overhead = model.command_overhead
        self.stats.overhead += overhead
        start = now + overhead
        if model.read_ahead and offset == self._ahead_from:
            rate = self.place(offset)[2]
            have = min(float(model.buffer), self._ahead_bytes + (start - self._ahead_since) * rate)
            self.stats.buffer_hits += have >= length
            wait = max(0.0, (length - have) / rate)
            self.stats.transfer += wait
            self._ahead_bytes = max(0.0, have - length)
            self._ahead_since = start + wait
        else:
            wait = self._access(start, offset, length)
            self._ahead_bytes, self._ahead_since = 0.0, start + wait
        self._ahead_from = offset + length if model.read_ahead else -1
        return overhead + wait

    def _write(self, now: float, offset: int, length: int) -> float:
        model = self.model
        overhead = model.command_overhead
        self.stats.overhead += overhead
        self._ahead_from = -1
        if not model.write_cache:
            return overhead + self._access(now + overhead, offset, length)
        start = now + overhead
        media = self._access(max(start, self._dirty_until), offset, length)
        self._dirty_until = max(start, self._dirty_until) + media
        rate = self.place(offset)[2]
        return overhead + max(0.0, self._dirty_until - model.buffer / rate - start)
