"""The initiator side of FCP: SCSI commands sent as exchanges, with PRLI first
and recovery of commands lost in Class 3 (see :mod:`fcsim.fc4.fcp`)."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fcsim.engine.simulation import Simulation
from fcsim.fc2 import header as h
from fcsim.fc2.nport import NPort
from fcsim.fc2.sequence import Exchange, Sequence
from fcsim.fc4.deadlines import Deadlines
from fcsim.fc4.fcp import (
    DID_TIME_OUT,
    FCP_CMND_SIZE,
    GOOD,
    PRLI_SIZE,
    QUEUE_FULL_DELAY,
    TASK_SET_FULL,
    Command,
    Response,
    TransferReady,
)
from fcsim.fc4.outstanding import HeldCommands, OutstandingLimit

PRLI = "PRLI"
"""The upper-layer unit of a PRLI request (and, answered, of its LS_ACC)."""


@dataclass
class InitiatorStats:
    """Recovery counts: commands timed out (and aborted with ABTS), answered
    TASK SET FULL, sent again, and read data short of FCP_DL (a data frame
    lost while the response arrived)."""

    timeouts: int = 0
    queue_full: int = 0
    retries: int = 0
    short_data: int = 0


DEFAULT_TIMEOUT = 30.0
"""Command timeout, s: Linux sd's (``SD_TIMEOUT``, 30 * HZ)."""


class FcpInitiator:
    """FCP initiator on *nport*, sending in Class *cls*; a command not answered
    within *timeout* s is aborted and sent again. A command answered TASK SET
    FULL waits, with every command submitted to that target after it, and
    the oldest waiting is sent when one of the initiator's own commands to
    that target completes, or after :data:`QUEUE_FULL_DELAY` when none is
    outstanding (Linux requeues it at the head of the device's queue and runs
    the queue again at a completion, or after SCSI_QUEUE_DELAY when the
    device has none). :attr:`fabric` sums, per
    target N_Port, the time its completed commands spent outside the device: from
    the FCP_CMND's sending to the FCP_RSP's arrival, less the device's time
    (s), and counts them.

    With *failfast* (a path of a multipath device, whose requests Linux's
    dm-multipath marks REQ_FAILFAST_TRANSPORT) a command whose abort is
    answered, or goes unanswered for the timeout too, is not sent again on
    this port: it completes with :data:`~fcsim.fc4.fcp.DID_TIME_OUT`, for the
    layer above to retry on another path. :meth:`terminate` fails every
    command to a remote port at once, as the FC transport does when the
    port's fast_io_fail_tmo or dev_loss_tmo expires."""

    def __init__(self, sim: Simulation, nport: NPort, cls: int = 3,
                 timeout: float = DEFAULT_TIMEOUT, failfast: bool = False) -> None:
        if cls not in (2, 3):
            raise ValueError(f"{nport.name}: FCP runs in Class 2 or 3, got {cls}")
        self.sim, self.nport, self.cls, self.timeout = sim, nport, cls, timeout
        self.failfast = failfast
        self.stats = InitiatorStats()
        self.fabric: dict[int, tuple[float, int]] = {}
        self._by_exchange: dict[Exchange, Command] = {}
        self._pending = Deadlines(sim, timeout, self._expired)  # by tag, issue order
        self._logged_in: dict[int, list[Callable[[], None]] | None] = {}
        self._outstanding: dict[int, int] = {}
        self._waiting_room: dict[int, deque[Command]] = {}
        self._delayed: set[int] = set()  # targets whose waiting room a timer will wake
        self.held: HeldCommands[Command] = HeldCommands()
        """The commands held back over its limit on outstanding commands."""
        self.in_flight = 0
        """Commands outstanding (sent, not yet answered or aborted)."""
        self._next_tag = 0
        nport.register((h.TYPE_ELS, h.TYPE_FCP, h.TYPE_BLS), self._received)

    # -- PRLI -------------------------------------------------------------------------------

    def login(self, d_id: int, then: Callable[[], None]) -> None:
        """Process login to the FCP service of N_Port *d_id* (once the port has
        logged in to the fabric, if it does); *then()* once accepted."""
        state = self._logged_in.get(d_id, [])
        if state is None:
            then()
            return
        state.append(then)
        if d_id not in self._logged_in:
            self._logged_in[d_id] = state
            self.nport.when_ready(lambda: self.nport.send(
                self.nport.open_exchange(d_id), PRLI_SIZE, self.cls,
                r_ctl=h.R_CTL_ELS_REQUEST, type_=h.TYPE_ELS, ulp=PRLI, initiative=True))

    def limit_outstanding(self, limit: OutstandingLimit) -> None:
        """Keep the outstanding commands within *limit* (set when the network is built)."""
        self.held.limit = limit

    def release(self) -> None:
        """Send the commands held over the limit while it allows."""
        self.held.release(lambda: self.in_flight, self._send_or_wait)

    def _send_or_wait(self, command: Command) -> None:
        """Send *command*, or queue it behind those waiting after TASK SET FULL."""
        waiting = self._waiting_room.get(command.d_id)
        if waiting:
            waiting.append(command)
        else:
            self._issue(command)

    def reset_stats(self) -> None:
        """Start a new measured interval of the fabric times and of the data its
        commands' exchanges counted (its recovery counts are the run's whole)."""
        self.fabric = {}
        for exchange in self._by_exchange:
            exchange.new_interval()

    # -- commands ---------------------------------------------------------------------------

    def submit(self, d_id: int, write: bool, offset: int, length: int,
               done: Callable[[Command], None], meter: Any = None, lun: int = 0) -> Command:
        """Send READ(10) or WRITE(10) of *length* bytes at byte *offset* of
        logical unit *lun* to the target at N_Port *d_id*; *done(command)* when
        it completes; *meter* counts its data frames as they arrive
        (:attr:`Command.meter`). While commands to *d_id* wait after TASK SET
        FULL, it waits behind them."""
        command = Command(self._next_tag, write, offset, length, self.sim.now, done, d_id,
                          lun=lun)
        command.meter = meter
        self._next_tag += 1
        waiting = self._waiting_room.get(d_id)
        if waiting:
            waiting.append(command)
        elif not self.held.holds(command, self.in_flight):
            self._issue(command)
        return command

    def _issue(self, command: Command) -> None:
        command.attempts += 1
        command.moved = 0
        command.sent = self.sim.now
        exchange = self.nport.open_exchange(command.d_id)
        command.exchange = exchange
        self._by_exchange[exchange] = command
        self.in_flight += 1
        self._outstanding[command.d_id] = self._outstanding.get(command.d_id, 0) + 1
        self._pending.arm(command.tag, (command, command.attempts, False))
        self.nport.send(exchange, FCP_CMND_SIZE, self.cls, r_ctl=h.R_CTL_UNSOLICITED_COMMAND,
                        type_=h.TYPE_FCP, ulp=command, initiative=True, from_host=True)

    def _received(self, seq: Sequence, time: float) -> bool:
        """A PRLI's answer (ELS), or a sequence in one of its commands' exchanges
        (FCP, and the BA_ACC of an ABTS): taken. Others are left (a target's on
        this port, or late for an aborted command)."""
        if seq.r_ctl == h.R_CTL_ELS_REPLY and seq.ulp == PRLI:
            waiters = self._logged_in.get(seq.exchange.responder_id) or []
            self._logged_in[seq.exchange.responder_id] = None
            for then in waiters:
                then()
            return True
        command = self._by_exchange.get(seq.exchange)
        if command is None:  # not ours (a target on this port), or late for an aborted one
            return False
        if seq.r_ctl == h.R_CTL_DATA_DESCRIPTOR:
            ready: TransferReady = seq.ulp  # type: ignore[assignment]

            def burst_out(sent: Sequence, size: int = ready.burst) -> None:
                if sent.status in ("sent", "acked"):
                    command.moved += size
            self.nport.send(seq.exchange, ready.burst, self.cls, r_ctl=h.R_CTL_SOLICITED_DATA,
                            type_=h.TYPE_FCP, ulp=ready, on_complete=burst_out,
                            initiative=True, from_host=True, meter=command.meter)
        elif seq.r_ctl == h.R_CTL_SOLICITED_DATA:
            command.moved += seq.size
        elif seq.r_ctl == h.R_CTL_COMMAND_STATUS:
            self._responded(command, seq.ulp)  # type: ignore[arg-type]
        elif seq.r_ctl == h.R_CTL_BA_ACC:
            self._end_attempt(command, aborted=True)
            self._after_abort(command)
        return True

    def _after_abort(self, command: Command) -> None:
        """*command*'s abort is over: sent again, or with :attr:`failfast`
        handed up as timed out."""
        if self.failfast:
            self._fail(command, DID_TIME_OUT)
            return
        self.stats.retries += 1
        self._issue(command)

    def _fail(self, command: Command, status: int) -> None:
        """*command*, no longer outstanding here, completes with *status* (a
        host byte: the transport gave it up)."""
        self._pending.disarm(command.tag)
        command.status = status
        command.completed = self.sim.now
        command.done(command)

    def terminate(self, d_id: int, status: int) -> int:
        """Fail every command to N_Port *d_id* now with *status*, those
        outstanding (their exchanges ended as aborted) and those waiting after
        TASK SET FULL (Linux ``fc_terminate_rport_io``); how many."""
        doomed = [c for c in self._by_exchange.values() if c.d_id == d_id]
        for command in doomed:
            self._end_attempt(command, aborted=True)
        doomed += self._waiting_room.pop(d_id, ())
        for command in doomed:
            self._fail(command, status)
        return len(doomed)

    def _end_attempt(self, command: Command, aborted: bool = False,
                     given_up: bool = False) -> None:
        """The exchange of *command*'s attempt ends: its OX_ID is freed, R_A_TOV
        later if the attempt was *aborted* (:mod:`fcsim.fc2.exchange_ids`). An
        attempt aborted or *given_up* (sent again, or failed) did not deliver
        its data: what its meter counted of it is taken back."""
        exchange: Exchange = command.exchange  # type: ignore[assignment]
        if aborted or given_up:
            self.nport.take_back(exchange, command.meter)
        del self._by_exchange[exchange]
        self.in_flight -= 1
        self._outstanding[command.d_id] -= 1
        self.nport.close_exchange(exchange, aborted)

    def _responded(self, command: Command, response: Response) -> None:
        short = response.status == GOOD and not command.write and command.moved < command.length
        self._end_attempt(command, given_up=short)
        if response.status == TASK_SET_FULL:
            self._refused(command)
            return
        if short:
            self.stats.short_data += 1
            self.stats.retries += 1
            self._issue(command)
            return
        self._pending.disarm(command.tag)
        self._send_waiting(command.d_id)
        if self.held.queue:
            self.release()
        command.status = response.status
        command.completed = self.sim.now
        total, count = self.fabric.get(command.d_id, (0.0, 0))
        self.fabric[command.d_id] = (total + command.completed - command.sent
                                     - command.device_s, count + 1)
        command.done(command)

    def _refused(self, command: Command) -> None:
        """*command* was answered TASK SET FULL: it waits for a completion, or
        for the delay when nothing to its target is outstanding."""
        d_id = command.d_id
        self.stats.queue_full += 1
        self._pending.disarm(command.tag)
        self._waiting_room.setdefault(d_id, deque()).append(command)
        if not self._outstanding[d_id] and d_id not in self._delayed:
            self._delayed.add(d_id)
            self.sim.call_later(QUEUE_FULL_DELAY, self._delay_over, d_id)

    def _send_waiting(self, d_id: int) -> None:
        """Send the oldest command waiting for *d_id*, if any (a resend when it
        was refused before)."""
        waiting = self._waiting_room.get(d_id)
        if waiting:
            command = waiting.popleft()
            self.stats.retries += command.attempts > 0
            self._issue(command)

    def _delay_over(self, d_id: int) -> None:
        self._delayed.discard(d_id)
        if not self._outstanding[d_id]:
            self._send_waiting(d_id)

    def _expired(self, tag: int, value: tuple[Command, int, bool]) -> None:
        """The timeout of the attempt *value* names: abort it (ABTS), or, its
        ABTS unanswered as long, send the command again."""
        command, attempt, aborting = value
        if command.attempts != attempt or command.exchange not in self._by_exchange:
            return
        if aborting:
            self._end_attempt(command, aborted=True)
            self._after_abort(command)
            return
        self.stats.timeouts += 1
        self._pending.arm(tag, (command, attempt, True))
        self.nport.send(command.exchange, 0, self.cls,  # type: ignore[arg-type]
                        r_ctl=h.R_CTL_ABTS, type_=h.TYPE_BLS)
