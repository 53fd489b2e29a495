"""The target side of FCP: a logical unit behind an N_Port, its task set of at
most *queue_depth* commands, and the device that serves them (see
:mod:`fcsim.fc4.fcp`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable

from fcsim.engine.simulation import Simulation
from fcsim.fc2 import header as h
from fcsim.fc2.nport import NPort
from fcsim.fc2.sequence import Exchange, Sequence
from fcsim.fc4.fcp import (
    CHECK_CONDITION,
    FCP_RSP_SIZE,
    FCP_XFER_RDY_SIZE,
    GOOD,
    PRLI_SIZE,
    TASK_SET_FULL,
    Command,
    Response,
    TransferReady,
)
from fcsim.fc4.fcp_initiator import PRLI


class Device(Protocol):
    """What a target serves commands with: a disk or a RAM disk."""

    def submit(self, write: bool, offset: int, length: int, done: Callable[[], None]) -> None:
        """Read or write; *done()* when through."""


@runtime_checkable
class StreamingDevice(Device, Protocol):
    """A device that hands a read's data over as it reads it (a disk reading
    more than its buffer holds)."""

    def stream_read(self, offset: int, length: int, arrived: Callable[[int], None],
                    done: Callable[[], None]) -> None:
        """Read; *arrived(bytes)* for each piece ready before the end, *done()*
        when the rest is."""


class _Task:
    """A command in the task set: its *exchange* and class of service *cls*, the
    write data received (or read data sent) so far, whether it was aborted."""

    __slots__ = ("command", "exchange", "cls", "received", "aborted")

    def __init__(self, command: Command, exchange: Exchange, cls: int) -> None:
        self.command, self.exchange, self.cls = command, exchange, cls
        self.received = 0
        self.aborted = False


class FcpTarget:
    """FCP target on *nport* with *units* logical units (LUN 0 .. *units* - 1)
    served by *device*, each *unit_size* bytes of it in turn (LUN *k* from
    byte *k* x *unit_size*); a command to another LUN is answered CHECK
    CONDITION (ILLEGAL REQUEST, LOGICAL UNIT NOT SUPPORTED) at once. At most
    *queue_depth* commands are in its task set; one more is answered TASK SET
    FULL. A TEST UNIT READY is a command like any other (SAM-2 5.2: TASK SET
    FULL is returned when the logical unit receives a command and has no
    room to enter its task in the task set; Linux's LIO target runs it as a
    command, ``spc_emulate_testunitready``, its qla2xxx driver refusing any
    command over its threshold of commands pending): it needs room in the
    task set, else it is answered TASK SET FULL, and is then answered GOOD
    at once from the logical unit's state, without the device, which leaves
    its task set as it was. It is not counted in *unit_commands* (not I/O
    to the unit). Data moves in bursts of
    at most *max_burst* bytes (the maximum burst size of the
    disconnect-reconnect mode page; None: no limit, the whole
    command): write data is asked for in FCP_XFER_RDYs of that burst length,
    read data is sent in FCP_DATA sequences (IUs) of that size ("the maximum
    size of FCP_DATA IU that the device server shall transfer to the initiator
    or request from the initiator", Oracle StorageTek SL150 interface reference,
    Mode Sense page 02h), once the device has it or, from a
    :class:`StreamingDevice`, piece by piece as the device hands it over.
    Every answer goes in the class of the sequence it answers. The task set
    is the device's: one for all its logical units. *unit_commands* counts
    each LUN's commands in the measured interval."""

    def __init__(self, sim: Simulation, nport: NPort, device: Device, queue_depth: int,
                 max_burst: int | None = None, units: int = 1, unit_size: int = 0) -> None:
        self.sim, self.nport, self.device = sim, nport, device
        self.queue_depth, self.max_burst = queue_depth, max_burst
        self.units, self.unit_size = units, unit_size
        self.unit_commands = [0] * units
        self._tasks: dict[Exchange, _Task] = {}
        self._stream = device.stream_read if isinstance(device, StreamingDevice) else None
        self.queue_full = self.aborts = 0
        self.depth_time = 0.0  # integral of the task set's size over time
        self._depth_since = 0.0
        self.max_depth = 0
        nport.register((h.TYPE_ELS, h.TYPE_FCP, h.TYPE_BLS), self._received)

    @property
    def depth(self) -> int:
        """Commands in the task set now."""
        return len(self._tasks)

    def _track(self) -> None:
        now = self.sim.now
        self.depth_time += len(self._tasks) * (now - self._depth_since)
        self._depth_since = now

    def mean_depth(self, interval: float) -> float:
        """Mean size of the task set over the measured *interval* (s) ending now."""
        self._track()
        return self.depth_time / interval if interval > 0 else 0.0

    def reset_stats(self) -> None:
        """Start a new measured interval."""
        self._track()
        self.depth_time = 0.0
        self.queue_full = self.aborts = 0
        self.max_depth = len(self._tasks)
        self.unit_commands = [0] * self.units

    def _received(self, seq: Sequence, time: float) -> bool:
        """A PRLI (ELS), a command (FCP), a sequence in a task's exchange or an
        ABTS (BLS): taken. Others are left (an initiator's on this port, say)."""
        if seq.type == h.TYPE_ELS and seq.r_ctl == h.R_CTL_ELS_REQUEST and seq.ulp == PRLI:
            self.nport.send(seq.exchange, PRLI_SIZE, seq.cls, r_ctl=h.R_CTL_ELS_REPLY,
                            type_=h.TYPE_ELS, ulp=PRLI, last=True)
            return True
        if seq.type == h.TYPE_FCP and seq.r_ctl == h.R_CTL_UNSOLICITED_COMMAND:
            self._command(seq)
            return True
        task = self._tasks.get(seq.exchange)
        if task is None:
            if seq.r_ctl == h.R_CTL_ABTS and seq.exchange.originator is not self.nport:
                self.nport.accept_abort(seq)  # a command already answered
                return True
            return False  # an initiator's on this port, say
        if seq.r_ctl == h.R_CTL_ABTS:
            self._track()
            task.aborted = True
            del self._tasks[seq.exchange]
            self.aborts += 1
            self.nport.accept_abort(seq)
        elif seq.r_ctl == h.R_CTL_SOLICITED_DATA:
            task.received += seq.size
            if task.received < task.command.length:
                self._ready(task)
            else:
                self._device(task, True, self._respond)
        return True

    def _command(self, seq: Sequence) -> None:
        command: Command = seq.ulp  # type: ignore[assignment]
        if command.lun >= self.units:
            self.nport.send(seq.exchange, FCP_RSP_SIZE, seq.cls,
                            r_ctl=h.R_CTL_COMMAND_STATUS, type_=h.TYPE_FCP,
                            ulp=Response(CHECK_CONDITION, command.length), last=True)
            return
        if not command.test_unit_ready:
            self.unit_commands[command.lun] += 1
        if len(self._tasks) >= self.queue_depth:
            self.queue_full += 1
            self.nport.send(seq.exchange, FCP_RSP_SIZE, seq.cls,
                            r_ctl=h.R_CTL_COMMAND_STATUS, type_=h.TYPE_FCP,
                            ulp=Response(TASK_SET_FULL, command.length), last=True)
            return
        if command.test_unit_ready:  # in the task set and through at once: GOOD, no device
            self.nport.send(seq.exchange, FCP_RSP_SIZE, seq.cls,
                            r_ctl=h.R_CTL_COMMAND_STATUS, type_=h.TYPE_FCP,
                            ulp=Response(GOOD), last=True)
            return
        self._track()
        task = self._tasks[seq.exchange] = _Task(command, seq.exchange, seq.cls)
        self.max_depth = max(self.max_depth, len(self._tasks))
        if command.write:
            self._ready(task)
        else:
            self._device(task, False, self._read_done)

    def _device(self, task: _Task, write: bool, then: Callable[[_Task], None]) -> None:
        """Hand the task's command to the device; *then(task)* when it is through,
        its device time noted on the command."""
        command = task.command
        began = self.sim.now

        def through() -> None:
            command.device_s = self.sim.now - began
            then(task)
        offset = command.offset + command.lun * self.unit_size
        if write or self._stream is None:
            self.device.submit(write, offset, command.length, through)
        else:
            self._stream(offset, command.length,
                         lambda size: self._send_data(task, size), through)

    def _ready(self, task: _Task) -> None:
        left = task.command.length - task.received
        burst = left if self.max_burst is None else min(self.max_burst, left)
        self.nport.send(task.exchange, FCP_XFER_RDY_SIZE, task.cls,
                        r_ctl=h.R_CTL_DATA_DESCRIPTOR, type_=h.TYPE_FCP,
                        ulp=TransferReady(task.received, burst), initiative=True)

    def _send_data(self, task: _Task, size: int) -> None:
        """Send *size* bytes of the task's read data, the next piece."""
        if not task.aborted:
            self._send_read(task, size, None)

    def _read_done(self, task: _Task) -> None:
        if task.aborted:
            return
        self._send_read(task, task.command.length - task.received,
                        lambda sent: self._respond(task))

    def _send_read(self, task: _Task, size: int,
                   then: Callable[[Sequence], None] | None) -> None:
        """Send the next *size* bytes of the task's read data, in FCP_DATA
        sequences of at most *max_burst* bytes each labelled with its
        relative offset; *then(sequence)* when the last is sent."""
        offset, meter = task.received, task.command.meter
        end = offset + size
        task.received = end
        burst = self.max_burst or size or 1
        while True:
            piece = min(burst, end - offset)
            last = offset + piece >= end
            self.nport.send(task.exchange, piece, task.cls, r_ctl=h.R_CTL_SOLICITED_DATA,
                            type_=h.TYPE_FCP, ulp=TransferReady(offset, piece), meter=meter,
                            on_complete=then if last else None)
            offset += piece
            if last:
                return

    def _respond(self, task: _Task) -> None:
        if task.aborted:
            return
        self._track()
        del self._tasks[task.exchange]
        self.nport.send(task.exchange, FCP_RSP_SIZE, task.cls, r_ctl=h.R_CTL_COMMAND_STATUS,
                        type_=h.TYPE_FCP, ulp=Response(GOOD), last=True)
