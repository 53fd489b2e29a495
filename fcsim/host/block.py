"""The host's block path: a volume striped over FCP targets, and the system-call
and copy costs of reading and writing it from a process.

A :class:`Volume` is the block layer's view of one or more targets. Over one
target a request is one SCSI command. Over *n* targets the volume stripes in
grains of *stripe* bytes, round robin (grain *g* on target *g mod n*, at
offset *(g div n) * stripe* there), as the Slice client stripes its block
servers; a request becomes one command per target it touches, its pieces on
one target being contiguous there. The request completes when every command
has; its status is the worst of theirs.

:class:`HostIo` puts a process on a host in front of a volume, as a program
reading or writing a raw device does (dd, fio's psync engine): each request
costs a system call; a write first copies the data from the process into the
kernel; a read, once its data is in memory, wakes the process (a context
switch) and copies the data out. With the host model's copy avoidance the
copies are page remaps, as FreeBSD 4.0's read() did for requests of a page or
more. Each command's completion costs one interrupt.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from fcsim.engine.simulation import Simulation
from fcsim.fc4.fcp import GOOD, Command
from fcsim.fc4.fcp_initiator import FcpInitiator
from fcsim.host.cpu import INTERRUPT, PROCESS
from fcsim.host.host import Host


def striped_capacity(sizes: list[int], stripe: int | None) -> int:
    """Bytes of a volume over targets of *sizes* bytes: the one target's, or as
    many whole grains of *stripe* bytes on each as the smallest holds."""
    if len(sizes) == 1:
        return sizes[0]
    return min(sizes) // stripe * stripe * len(sizes)  # type: ignore[operator]


@dataclass
class Request:
    """A block request: *write* or read of *length* bytes at *offset* of the
    volume, issued at *issued* s; *status* and *completed* once done."""

    write: bool
    offset: int
    length: int
    issued: float
    status: int | None = None
    completed: float | None = None


class Volume:
    """Targets at N_Ports *d_ids* through *initiator*, striped in grains of
    *stripe* bytes when more than one."""

    def __init__(self, sim: Simulation, initiator: FcpInitiator, d_ids: tuple[int, ...],
                 stripe: int | None = None) -> None:
        if len(d_ids) > 1 and not stripe:
            raise ValueError("a volume over several targets needs a stripe size")
        self.sim, self.initiator, self.d_ids, self.stripe = sim, initiator, d_ids, stripe

    def login(self, then: Callable[[], None]) -> None:
        """PRLI with every target; *then()* when all have accepted."""
        left = [len(self.d_ids)]

        def one() -> None:
            left[0] -= 1
            if left[0] == 0:
                then()
        for d_id in self.d_ids:
            self.initiator.login(d_id, one)

    def pieces(self, offset: int, length: int) -> dict[int, tuple[int, int]]:
        """The command each target gets for the volume range: target index ->
        (offset there, bytes)."""
        n = len(self.d_ids)
        if n == 1:
            return {0: (offset, length)}
        grain = self.stripe
        out: dict[int, tuple[int, int]] = {}
        end = offset + length
        while offset < end:
            index, into = divmod(offset, grain)  # type: ignore[operator]
            target, row = index % n, index // n
            size = min(grain - into, end - offset)  # type: ignore[operator]
            at, had = out.get(target, (row * grain + into, 0))  # type: ignore[operator]
            out[target] = (at, had + size)
            offset += size
        return out

    def submit(self, write: bool, offset: int, length: int, done: Callable[[Request], None],
               request: Request | None = None, on_command: Callable[[], None] | None = None
               ) -> Request:
        """Read or write the range; *done(request)* when every command is back.
        *on_command()* runs at each command's completion, before."""
        request = request or Request(write, offset, length, self.sim.now)
        pieces = self.pieces(offset, length)
        left = [len(pieces)]
        worst = [GOOD]

        def one(command: Command) -> None:
            if on_command is not None:
                on_command()
            worst[0] = max(worst[0], command.status or GOOD)
            left[0] -= 1
            if left[0] == 0:
                request.status, request.completed = worst[0], self.sim.now
                done(request)
        for target, (at, size) in pieces.items():
            self.initiator.submit(self.d_ids[target], write, at, size, one)
        return request


class HostIo:
    """A process on *host* reading and writing *volume* through system calls."""

    def __init__(self, host: Host, volume: Volume) -> None:
        self.host, self.volume = host, volume
        self.sim = volume.sim

    def login(self, then: Callable[[], None]) -> None:
        """The volume's logins."""
        self.volume.login(then)

    def submit(self, write: bool, offset: int, length: int,
               done: Callable[[Request], None]) -> Request:
        """A read() or write() of *length* bytes at *offset*; *done(request)* when
        the call returns to the process."""
        host = self.host
        cpu, model = host.cpu, host.model
        request = Request(write, offset, length, self.sim.now)
        copy = host.copy_cost(length, sending=write)

        def interrupt() -> None:
            cpu.run(model.interrupt, None, INTERRUPT)

        def returned(req: Request) -> None:
            after = model.context_switch + (0.0 if write else copy)
            cpu.run(after, lambda: done(req), PROCESS)

        def issue() -> None:
            self.volume.submit(write, offset, length, returned, request, interrupt)
        cpu.run(model.syscall + (copy if write else 0.0), issue, PROCESS)
        return request
