"""The block layer's request queue of one device on a host.

Requests wait in the queue while the device already has *depth* commands
(the queue depth the host gives the device: a drive's tagged-queue depth, 1
for an ATA drive). A request is cut into pieces of at most *max_request*
bytes (FreeBSD's physio cuts raw I/O at the device's limit, MAXPHYS =
128 KiB in FreeBSD 4's ``sys/i386/include/param.h``). A piece that continues
a waiting request of the same direction (it starts where that one ends, or
ends where it starts) merges into it while the result stays within
*max_request*, and the grown request merges with a waiting neighbour it now
touches, as Linux's ``__make_request`` and ``attempt_merge`` do
(``drivers/block/ll_rw_blk.c``, 2.2 and 2.3); a request already handed to the
device is never merged. With *elevator*, the device gets next the waiting
request at or after the end of the last one dispatched, else the lowest (a
one-way elevator, C-LOOK, as FreeBSD's ``bufqdisksort`` orders a disk's
queue); otherwise requests go in arrival order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from fcsim.engine.simulation import Simulation

Status = Callable[[int], None]
"""Called with a command's SCSI status when it completes."""


class Device(Protocol):
    """What a queue hands its commands to: an FCP logical unit or a disk on a channel."""

    def login(self, then: Callable[[], None]) -> None:
        """Make the device reachable (PRLI for an FCP target); *then()*."""

    def submit(self, write: bool, offset: int, length: int, done: Status) -> None:
        """Read or write; *done(status)* when through."""


class SplitMeter:
    """The data meter of one command serving several requests: the payload its
    frames deliver (frame by frame, in increasing relative offset, as FCP sends
    data unless EMDP is set) goes to the requests' own meters in offset order,
    each up to its length. *parts*: (bytes, meter or None) in offset order.
    Any object with ``frames`` and ``payload`` counters is a meter
    (:class:`~fcsim.fc2.sequence.Sequence`)."""

    __slots__ = ("frames", "_payload", "_parts")

    def __init__(self, parts: list[tuple[int, Any]]) -> None:
        self.frames = self._payload = 0
        self._parts = parts

    @property
    def payload(self) -> int:
        """Payload delivered for the command so far, bytes."""
        return self._payload

    @payload.setter
    def payload(self, total: int) -> None:
        old, self._payload = self._payload, total
        start = 0
        for length, meter in self._parts:
            before = min(max(old - start, 0), length)
            after = min(max(total - start, 0), length)
            if after != before and meter is not None:
                meter.payload += after - before
            start += length


class _Request:
    """A request in the queue: direction, range, the callers it answers and
    the data meters of its parts ((bytes, meter), in offset order)."""

    __slots__ = ("write", "offset", "length", "waiters", "parts")

    def __init__(self, write: bool, offset: int, length: int, done: Status,
                 meter: Any = None) -> None:
        self.write, self.offset, self.length = write, offset, length
        self.waiters = [done]
        self.parts = [(length, meter)]

    def meter(self) -> Any:
        """The meter its command's data frames count into (None: none)."""
        parts = self.parts
        if len(parts) == 1:
            return parts[0][1]
        return SplitMeter(parts) if any(m is not None for _, m in parts) else None


class RequestQueue:
    """The queue named *name* in front of *device*: at most *depth* commands at
    the device (None: no limit), requests cut at and merged up to
    *max_request* bytes (None: no limit), merging on with *merge*, C-LOOK order
    with *elevator*. *on_command()* runs at each command's completion, before
    its requests are answered (the host's interrupt). A request's data meter
    (``submit(..., meter=)``) counts its bytes as they arrive: frame by frame
    when the device is *metered* (an FCP logical unit, whose data frames count
    into it), else whole when its command completes (a disk on the node's own
    channel)."""

    def __init__(self, sim: Simulation, name: str, device: Device, depth: int | None = None,
                 max_request: int | None = None, merge: bool = True, elevator: bool = True,
                 on_command: Callable[[], None] | None = None, metered: bool = False) -> None:
        if depth is not None and depth < 1:
            raise ValueError(f"{name}: queue depth must be >= 1")
        if max_request is not None and max_request < 1:
            raise ValueError(f"{name}: max_request must be >= 1 byte")
        self.sim, self.name, self.device = sim, name, device
        self.depth, self.max_request = depth, max_request
        self.merge, self.elevator, self.on_command = merge, elevator, on_command
        self.metered = metered
        self._waiting: list[_Request] = []
        self._outstanding = 0
        self._head = 0
        self.max_depth = 0
        self._depth_time = 0.0
        self._since = 0.0
        self.requests = self.merges = self.commands = 0
        self.bytes = self.command_bytes = 0

    def login(self, then: Callable[[], None]) -> None:
        """The device's login."""
        self.device.login(then)

    @property
    def depth_now(self) -> int:
        """Requests waiting and commands at the device now."""
        return len(self._waiting) + self._outstanding

    def _track(self) -> None:
        now = self.sim.now
        self._depth_time += (len(self._waiting) + self._outstanding) * (now - self._since)
        self._since = now

    def submit(self, write: bool, offset: int, length: int, done: Status,
               meter: Any = None) -> None:
        """Queue a read or write of *length* bytes at *offset*; *done(status)*
        once every piece is through, with the worst status of its commands;
        *meter* counts its data bytes as they arrive."""
        cut = self.max_request
        if cut is None or length <= cut:
            self._add(write, offset, length, done, meter)
            return
        count = -(-length // cut)
        left, worst = [count], [0]

        def one(status: int) -> None:
            worst[0] = max(worst[0], status)
            left[0] -= 1
            if left[0] == 0:
                done(worst[0])
        for k in range(count):
            self._add(write, offset + k * cut, min(cut, length - k * cut), one, meter)

    def _add(self, write: bool, offset: int, length: int, done: Status, meter: Any) -> None:
        self._track()
        self.requests += 1
        self.bytes += length
        if self.merge and self._waiting and self._merged(write, offset, length, done, meter):
            self.merges += 1
        else:
            self._waiting.append(_Request(write, offset, length, done, meter))
        self.max_depth = max(self.max_depth, len(self._waiting) + self._outstanding)
        self._dispatch()

    def _fits(self, a: _Request, length: int) -> bool:
        return self.max_request is None or a.length + length <= self.max_request

    def _merged(self, write: bool, offset: int, length: int, done: Status, meter: Any) -> bool:
        """Merge the piece into a waiting request it continues; True if it did."""
        end = offset + length
        for r in self._waiting:
            if r.write != write or not self._fits(r, length):
                continue
            if r.offset + r.length == offset:  # back merge
                r.length += length
                r.waiters.append(done)
                r.parts.append((length, meter))
                self._join(r, r.offset + r.length, after=True)
                return True
            if end == r.offset:  # front merge
                r.offset, r.length = offset, r.length + length
                r.waiters.append(done)
                r.parts.insert(0, (length, meter))
                self._join(r, r.offset, after=False)
                return True
        return False

    def _join(self, r: _Request, at: int, after: bool) -> None:
        """Merge *r* with the waiting request it now touches at *at*, if any: a
        request merged into another counts as a merge, as Linux counts one
        (block/blk-merge.c, attempt_merge -> blk_account_io_merge_request)."""
        for s in self._waiting:
            if s is r or s.write != r.write or not self._fits(r, s.length):
                continue
            if (s.offset == at) if after else (s.offset + s.length == at):
                r.offset = min(r.offset, s.offset)
                r.length += s.length
                r.waiters.extend(s.waiters)
                r.parts = r.parts + s.parts if after else s.parts + r.parts
                self._waiting.remove(s)
                self.merges += 1
                return

    def _dispatch(self) -> None:
        waiting = self._waiting
        while waiting and (self.depth is None or self._outstanding < self.depth):
            index = 0
            if self.elevator and len(waiting) > 1:
                ahead = [i for i, r in enumerate(waiting) if r.offset >= self._head]
                pool = ahead or range(len(waiting))
                index = min(pool, key=lambda i: waiting[i].offset)
            r = waiting.pop(index)
            self._head = r.offset + r.length
            self._outstanding += 1
            self.commands += 1
            self.command_bytes += r.length

            def done(status: int, r: _Request = r) -> None:
                self._completed(r, status)
            if self.metered:
                self.device.submit(r.write, r.offset, r.length, done,  # type: ignore[call-arg]
                                   r.meter())
            else:
                self.device.submit(r.write, r.offset, r.length, done)

    def _completed(self, r: _Request, status: int) -> None:
        self._track()
        self._outstanding -= 1
        if not self.metered:  # the data arrived with the command's completion
            for length, meter in r.parts:
                if meter is not None:
                    meter.payload += length
        if self.on_command is not None:
            self.on_command()
        self._dispatch()
        for done in r.waiters:
            done(status)

    def results(self, interval: float) -> dict[str, Any]:
        """Requests, merges and commands over *interval* s, with the mean and
        largest number queued (waiting or at the device)."""
        self._track()
        return {"requests": self.requests, "merged": self.merges, "commands": self.commands,
                "bytes": self.bytes, "command_bytes": self.command_bytes,
                "mean_depth": self._depth_time / interval if interval > 0 else 0.0,
                "max_depth": self.max_depth}

    def reset_stats(self) -> None:
        """Start a new measured interval."""
        self._track()
        self._depth_time = 0.0
        self.requests = self.merges = self.commands = 0
        self.bytes = self.command_bytes = 0
        self.max_depth = self.depth_now
