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
    DID_ERROR,
    DID_TIME_OUT,
    DID_TRANSPORT_MARGINAL,
    FCP_CMND_SIZE,
    GOOD,
    PRLI_SIZE,
    QUEUE_FULL_DELAY,
    SD_MAX_RETRIES,
    TASK_SET_FULL,
    Command,
    Response,
    TransferReady,
)
from fcsim.fc4.outstanding import HeldCommands, OutstandingLimit
from fcsim.fc4.retries import retry_allowed, runtime_exceeded

PRLI = "PRLI"
"""The upper-layer unit of a PRLI request (and, answered, of its LS_ACC)."""


@dataclass
class InitiatorStats:
    """Recovery counts: commands timed out (and aborted with ABTS), answered
    TASK SET FULL, sent again, read data short of FCP_DL (a data frame
    lost while the response arrived), and commands returned with an error
    (*failed*: their retries used up, or failed by the FC transport; on a
    multipath node the device sends those on another path)."""

    timeouts: int = 0
    queue_full: int = 0
    retries: int = 0
    short_data: int = 0
    failed: int = 0


DEFAULT_TIMEOUT = 30.0
"""Command timeout, s: Linux sd's (``SD_TIMEOUT``, 30 * HZ)."""


class FcpInitiator:
    """FCP initiator on *nport*, sending in Class *cls*, as Linux's SCSI
    midlayer and sd drive an FC HBA.

    A command not answered within *timeout* s is aborted (ABTS); once the
    abort is answered (BA_ACC), or has gone unanswered for *timeout* too, the
    command is sent again as a new exchange if it has used fewer than
    *max_retries* retries (Linux ``scmd_eh_abort_handler``; sd allows
    :data:`~fcsim.fc4.fcp.SD_MAX_RETRIES`), else it completes with
    :data:`~fcsim.fc4.fcp.DID_TIME_OUT`. A read answered GOOD with its data
    short uses a retry the same way and, out of them, completes with
    :data:`~fcsim.fc4.fcp.DID_ERROR`. A command answered TASK SET FULL uses
    none (``ADD_TO_MLQUEUE``): it waits, with every command submitted to that
    target after it, and the oldest waiting is sent when one of the
    initiator's own commands to that target completes (or fails), or after
    :data:`QUEUE_FULL_DELAY` when none is outstanding (Linux requeues it at
    the head of the device's queue and runs the queue again at a completion,
    or after SCSI_QUEUE_DELAY when the device has none), unless it has been
    around longer than (max_retries + 1) x *timeout* since it was first sent
    (a TEST UNIT READY, an SG_IO request with no retries: 1 x *timeout*):
    it then completes with that status (``scsi_cmd_runtime_exceeded``).
    :attr:`fabric` sums, per target N_Port, the time its completed commands
    spent outside the device: from the FCP_CMND's sending to the FCP_RSP's
    arrival, less the device's time (s), and counts them.

    With *failfast* (a path of a multipath device, whose requests Linux's
    dm-multipath marks REQ_FAILFAST_TRANSPORT) a timed-out command is still
    retried on this port as above: ``scsi_noretry_cmd`` makes a DID_TIME_OUT
    final only for REQ_FAILFAST_DEV (``drivers/scsi/scsi_error.c``), so the
    layer above sees it only once its retries are used up. But while the
    target's remote port is marginal (:meth:`mark_marginal`: multipathd set
    it so on an FPIN) the command is not retried after its abort: it
    completes with :data:`~fcsim.fc4.fcp.DID_TRANSPORT_MARGINAL`
    (``fc_eh_should_retry_cmd``, consulted by ``scmd_eh_abort_handler``).

    The FC transport's state of each remote port is given to it
    (``scsi_transport_fc``): while a target's port is blocked
    (:meth:`block`: the local link is down) its commands are not sent but
    wait, and those outstanding do not time out (``fc_eh_timed_out`` restarts
    their timers); none uses a retry. :meth:`unblock` sends what waited;
    :meth:`fail_port` (fast_io_fail_tmo or dev_loss_tmo expired) fails
    every command to the port at once and each new one as it comes, until
    the port is back. :meth:`terminate` fails every command to a port once."""

    def __init__(self, sim: Simulation, nport: NPort, cls: int = 3,
                 timeout: float = DEFAULT_TIMEOUT, failfast: bool = False,
                 max_retries: int = SD_MAX_RETRIES) -> None:
        if cls not in (2, 3):
            raise ValueError(f"{nport.name}: FCP runs in Class 2 or 3, got {cls}")
        self.sim, self.nport, self.cls, self.timeout = sim, nport, cls, timeout
        self.failfast, self.max_retries = failfast, max_retries
        self.stats = InitiatorStats()
        self.fabric: dict[int, tuple[float, int]] = {}
        self._by_exchange: dict[Exchange, Command] = {}
        self._pending = Deadlines(sim, timeout, self._expired)  # by tag, issue order
        self._own_timeouts: dict[float, Deadlines] = {}  # commands with their own timeout
        self._logged_in: dict[int, list[Callable[[], None]] | None] = {}
        self._outstanding: dict[int, int] = {}
        self._waiting_room: dict[int, deque[Command]] = {}
        self._delayed: set[int] = set()  # targets whose waiting room a timer will wake
        self._blocked: dict[int, deque[Command]] = {}  # blocked remote ports: commands held
        self._failing: dict[int, int] = {}  # failed remote ports: the status new commands get
        self._marginal: set[int] = set()  # marginal remote ports
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
        self._start(command)
        return command

    def test_unit_ready(self, d_id: int, done: Callable[[Command], None],
                        lun: int = 0, timeout: float | None = None) -> Command:
        """Send TEST UNIT READY to logical unit *lun* of the target at N_Port
        *d_id* as an SG_IO passthrough command (multipathd's ``tur`` checker:
        ``libmultipath/checkers/tur.c``), no data, with *timeout* s (SG_IO's
        ``timeout``, the request's: ``scsi_fill_sghdr_rq``; None: the
        initiator's); *done(command)* when it completes. Timed out, it is not
        sent again after its abort: ``scsi_noretry_cmd`` makes a DID_TIME_OUT
        final for a passthrough request (``drivers/scsi/scsi_error.c``)."""
        command = Command(self._next_tag, False, 0, 0, self.sim.now, done, d_id, lun=lun,
                          test_unit_ready=True, timeout=timeout)
        self._start(command)
        return command

    def _start(self, command: Command) -> None:
        """Send new *command*, or hold it behind those waiting after TASK SET
        FULL or over the limit on outstanding commands."""
        self._next_tag += 1
        waiting = self._waiting_room.get(command.d_id)
        if waiting:
            waiting.append(command)
        elif not self.held.holds(command, self.in_flight):
            self._issue(command)

    def _issue(self, command: Command) -> None:
        """Send *command* (again) as a new exchange; while its target's remote
        port is blocked it waits instead, while the port is failed it fails."""
        if self._blocked or self._failing:
            status = self._failing.get(command.d_id)
            if status is not None:  # fc_remote_port_chkready refuses it
                self.sim.call_later(0.0, self._refuse, (command, status))
                return
            held = self._blocked.get(command.d_id)
            if held is not None:
                held.append(command)
                return
        if command.first_sent is None:
            command.first_sent = self.sim.now
        command.attempts += 1
        command.moved = 0
        command.sent = self.sim.now
        exchange = self.nport.open_exchange(command.d_id)
        command.exchange = exchange
        self._by_exchange[exchange] = command
        self.in_flight += 1
        self._outstanding[command.d_id] = self._outstanding.get(command.d_id, 0) + 1
        self._deadlines(command).arm(command.tag, (command, command.attempts, False))
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
        """*command*'s abort is over: sent again while it has a retry left,
        else handed up as timed out; with :attr:`failfast` to a marginal
        remote port, handed up at once (``fc_eh_should_retry_cmd``)."""
        if self.failfast and command.d_id in self._marginal:
            self._fail(command, DID_TRANSPORT_MARGINAL)
            return
        if command.test_unit_ready:  # a passthrough command: scsi_noretry_cmd
            self._fail(command, DID_TIME_OUT)
            return
        self._retry(command, DID_TIME_OUT)

    def _retry(self, command: Command, status: int) -> None:
        """*command*'s try failed in a way that uses a retry: it is sent again
        if it has one left, else it completes with *status*."""
        if retry_allowed(command.retries, self.max_retries):
            command.retries += 1
            self.stats.retries += 1
            self._issue(command)
        else:
            self._fail(command, status)

    def _fail(self, command: Command, status: int) -> None:
        """*command*, no longer outstanding here, completes with the error
        *status* (a host byte: the transport gave it up; or the last status a
        target gave it). Its end, as a completion's, sends the oldest command
        waiting after TASK SET FULL."""
        self._deadlines(command).disarm(command.tag)
        self.stats.failed += 1
        self._send_waiting(command.d_id)
        command.status = status
        command.completed = self.sim.now
        command.done(command)

    def _refuse(self, value: tuple[Command, int]) -> None:
        """A command given while its target's remote port is failed completes
        with the port's status."""
        command, status = value
        self._fail(command, status)

    def block(self, d_id: int) -> None:
        """The remote port at N_Port *d_id* is blocked (the local link went
        down; Linux ``fc_remote_port_delete``): its commands wait, and those
        outstanding do not time out, until :meth:`unblock` or :meth:`fail_port`."""
        self._blocked.setdefault(d_id, deque())

    def unblock(self, d_id: int) -> None:
        """The remote port at *d_id* is back (``fc_remote_port_add``): the
        commands that waited for it are sent, in order (each had passed those
        waiting after TASK SET FULL), and new ones go."""
        self._failing.pop(d_id, None)
        self._marginal.discard(d_id)
        for command in self._blocked.pop(d_id, ()):
            self._issue(command)

    def mark_marginal(self, d_id: int) -> None:
        """The remote port at *d_id* is marginal (its sysfs ``port_state``
        written "Marginal"), until :meth:`unblock`: a timed-out command of
        :attr:`failfast` to it is not retried after its abort."""
        self._marginal.add(d_id)

    def fail_port(self, d_id: int, status: int) -> int:
        """The remote port at *d_id* is given up (fast_io_fail_tmo or
        dev_loss_tmo expired): every command to it fails now with *status*,
        and each new one when it comes, until :meth:`unblock`; how many now."""
        self._failing[d_id] = status
        return self.terminate(d_id, status)

    def terminate(self, d_id: int, status: int) -> int:
        """Fail every command to N_Port *d_id* now with *status*, those
        outstanding (their exchanges ended as aborted), those waiting after
        TASK SET FULL and those held for a blocked port (Linux
        ``fc_terminate_rport_io``); how many."""
        doomed = [c for c in self._by_exchange.values() if c.d_id == d_id]
        for command in doomed:
            self._end_attempt(command, aborted=True)
        doomed += self._waiting_room.pop(d_id, ())
        held = self._blocked.get(d_id)
        if held:
            doomed += held
            held.clear()
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
            if self._outlived(command):
                self._fail(command, DID_ERROR)
            else:
                self._retry(command, DID_ERROR)
            return
        self._deadlines(command).disarm(command.tag)
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
        self._deadlines(command).disarm(command.tag)
        if self._outlived(command):
            self._fail(command, TASK_SET_FULL)
        else:
            self._waiting_room.setdefault(d_id, deque()).append(command)
        if (self._waiting_room.get(d_id) and not self._outstanding[d_id]
                and d_id not in self._delayed):
            self._delayed.add(d_id)
            self.sim.call_later(QUEUE_FULL_DELAY, self._delay_over, d_id)

    def _outlived(self, command: Command) -> bool:
        """Whether *command*, its try over without success, has been around too
        long to be requeued (Linux ``scsi_cmd_runtime_exceeded``): a TEST UNIT
        READY, an SG_IO request, is allowed no retries (``cmd->allowed`` 0),
        a read or write sd's."""
        allowed = 0 if command.test_unit_ready else self.max_retries
        timeout = self.timeout if command.timeout is None else command.timeout
        return runtime_exceeded(command.first_sent, self.sim.now,  # type: ignore[arg-type]
                                allowed, timeout)

    def _deadlines(self, command: Command) -> Deadlines:
        """The timer of *command*: the initiator's, or one for its own timeout."""
        if command.timeout is None:
            return self._pending
        timer = self._own_timeouts.get(command.timeout)
        if timer is None:
            timer = self._own_timeouts[command.timeout] = Deadlines(
                self.sim, command.timeout, self._expired)
        return timer

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
        ABTS unanswered as long, end the try (:meth:`_after_abort`). While
        the target's remote port is blocked the timer only starts again."""
        command, attempt, aborting = value
        if command.attempts != attempt or command.exchange not in self._by_exchange:
            return
        if command.d_id in self._blocked:  # fc_eh_timed_out: the port is blocked, wait again
            self._deadlines(command).arm(tag, value)
            return
        if aborting:
            self._end_attempt(command, aborted=True)
            self._after_abort(command)
            return
        self.stats.timeouts += 1
        self._deadlines(command).arm(tag, (command, attempt, True))
        self.nport.send(command.exchange, 0, self.cls,  # type: ignore[arg-type]
                        r_ctl=h.R_CTL_ABTS, type_=h.TYPE_BLS)
