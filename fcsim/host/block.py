"""The host's block path: a volume striped over block devices (FCP targets,
disks on the host's own channels), and the system-call and copy costs of
reading and writing it from a process.

A :class:`Volume` is the block layer's view of one or more devices, each
behind its request queue (:mod:`fcsim.host.request_queue`). Over one device
a request goes to its queue whole. Over *n* devices the volume stripes in
grains of *stripe* bytes, round robin (grain *g* on device *g mod n*, at
offset *(g div n) * stripe* there), as the Slice client stripes its block
servers; a request becomes one request per device it touches, its pieces on
one device being contiguous there. The request completes when every piece
has; its status is the worst of theirs. :class:`FcpLun` is an FCP target's
logical unit reached through the node's initiator, :class:`NvmeNamespace` an
FC-NVMe controller's namespace through its NVMe initiator.

:class:`HostIo` puts a process on a host in front of a volume, as a program
reading or writing a raw device does (dd, fio's psync engine): each request
costs a system call; a write first copies the data from the process into the
kernel; a read, once its data is in memory, wakes the process (a context
switch) and copies the data out. With the host model's copy avoidance the
copies are page remaps; with *remap_reads* a read of a page or more is a remap
(:func:`fcsim.host.copies.block_copy_time`); with *direct_block_io* (raw
devices) the data move by DMA to and from the process's own buffer and the
copies are the pinning of its pages. Each command's completion costs one
interrupt (the request queue's
*on_command*, set by the node's storage).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fcsim.engine.simulation import Simulation
from fcsim.fc4.fcp import CHECK_CONDITION, GOOD, Command
from fcsim.fc4.fcp_initiator import FcpInitiator
from fcsim.fc4.nvme import SUCCESS, NvmeCommand
from fcsim.fc4.nvme_initiator import NvmeInitiator
from fcsim.host.copies import block_copy_time
from fcsim.host.cpu import PROCESS
from fcsim.host.host import Host
from fcsim.host.request_queue import RequestQueue, Status


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


class FcpLun:
    """Logical unit *lun* of the FCP target at N_Port *d_id*, through *initiator*."""

    def __init__(self, initiator: FcpInitiator, d_id: int, lun: int = 0) -> None:
        self.initiator, self.d_id, self.lun = initiator, d_id, lun

    def login(self, then: Callable[[], None]) -> None:
        """PRLI with the target; *then()* once accepted."""
        self.initiator.login(self.d_id, then)

    def submit(self, write: bool, offset: int, length: int, done: Status,
               meter: Any = None) -> None:
        """READ(10) or WRITE(10); *done(status)* when it completes; *meter*
        counts its data frames as they arrive."""
        self.initiator.submit(self.d_id, write, offset, length,
                              lambda command: done(_status(command)), meter, lun=self.lun)

    def test_unit_ready(self, done: Status, timeout: float) -> None:
        """TEST UNIT READY to the logical unit (an SG_IO passthrough command)
        with a command timeout of *timeout* s; *done(status)* when it completes."""
        self.initiator.test_unit_ready(self.d_id, lambda command: done(_status(command)),
                                       lun=self.lun, timeout=timeout)

    def terminate(self, status: int) -> int:
        """Fail every command outstanding to the target now with *status* (the
        FC transport gave its remote port up); how many."""
        return self.initiator.terminate(self.d_id, status)


class NvmeNamespace:
    """Namespace *nsid* of the FC-NVMe controller at N_Port *d_id*, through
    *initiator* (its association and I/O connections made at login)."""

    def __init__(self, initiator: NvmeInitiator, d_id: int, nsid: int = 1) -> None:
        self.initiator, self.d_id, self.nsid = initiator, d_id, nsid

    def login(self, then: Callable[[], None]) -> None:
        """PRLI, Create Association and the I/O connections; *then()* once made."""
        self.initiator.connect(self.d_id, then)

    def submit(self, write: bool, offset: int, length: int, done: Status,
               meter: Any = None) -> None:
        """NVMe Write or Read; *done(status)* when it completes (GOOD for an
        NVMe success, CHECK CONDITION otherwise); *meter* counts its data
        frames as they arrive."""
        self.initiator.submit(self.d_id, write, offset, length,
                              lambda command: done(_nvme_status(command)), meter,
                              nsid=self.nsid)


def _nvme_status(command: NvmeCommand) -> int:
    return GOOD if command.status == SUCCESS else CHECK_CONDITION


def _status(command: Command) -> int:
    return command.status or GOOD


class Volume:
    """The block *devices* (each behind its request queue), striped in grains of
    *stripe* bytes when more than one."""

    def __init__(self, sim: Simulation, devices: tuple[RequestQueue, ...],
                 stripe: int | None = None) -> None:
        if len(devices) > 1 and not stripe:
            raise ValueError("a volume over several devices needs a stripe size")
        self.sim, self.devices, self.stripe = sim, devices, stripe

    def login(self, then: Callable[[], None]) -> None:
        """Log in to every device; *then()* when all have."""
        left = [len(self.devices)]

        def one() -> None:
            left[0] -= 1
            if left[0] == 0:
                then()
        for device in self.devices:
            device.login(one)

    def pieces(self, offset: int, length: int) -> dict[int, tuple[int, int]]:
        """The request each device gets for the volume range: device index ->
        (offset there, bytes)."""
        n = len(self.devices)
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
               request: Request | None = None, meter: Any = None) -> Request:
        """Read or write the range; *done(request)* when every piece is back;
        *meter* counts its data bytes as they arrive."""
        request = request or Request(write, offset, length, self.sim.now)
        pieces = self.pieces(offset, length)
        left = [len(pieces)]
        worst = [GOOD]

        def one(status: int) -> None:
            worst[0] = max(worst[0], status)
            left[0] -= 1
            if left[0] == 0:
                request.status, request.completed = worst[0], self.sim.now
                done(request)
        for target, (at, size) in pieces.items():
            self.devices[target].submit(write, at, size, one, meter)
        return request


class HostIo:
    """A process on *host* reading and writing *volume* through system calls;
    each request also takes *stack_time* of the processor in the storage stack
    below the block layer (the SCSI or NVMe stack's time per command, s), with
    its system call."""

    def __init__(self, host: Host, volume: Volume, stack_time: float = 0.0) -> None:
        self.host, self.volume, self.stack_time = host, volume, stack_time
        self.sim = volume.sim

    def login(self, then: Callable[[], None]) -> None:
        """The volume's logins."""
        self.volume.login(then)

    def submit(self, write: bool, offset: int, length: int,
               done: Callable[[Request], None], meter: Any = None) -> Request:
        """A read() or write() of *length* bytes at *offset*; *done(request)* when
        the call returns to the process; *meter* counts its data bytes as they
        arrive at the device or from it."""
        host = self.host
        cpu, model = host.cpu, host.model
        request = Request(write, offset, length, self.sim.now)
        copy = block_copy_time(model, length, write)

        def returned(req: Request) -> None:
            after = model.context_switch + (0.0 if write else copy)
            cpu.run(after, lambda: done(req), PROCESS)

        def issue() -> None:
            self.volume.submit(write, offset, length, returned, request, meter)
        cpu.run(model.syscall + (copy if write else 0.0) + self.stack_time, issue, PROCESS)
        return request
