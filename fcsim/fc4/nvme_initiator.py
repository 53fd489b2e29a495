"""The host side of FC-NVMe: PRLI for NVMe, one association per target with
its I/O connections (queues), and NVMe commands sent on them, never more at
once on a connection than its negotiated size (see :mod:`fcsim.fc4.nvme`),
with the recovery of commands whose frames are lost
(:mod:`fcsim.fc4.nvme_recovery`)."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fcsim.engine.simulation import Simulation
from fcsim.fc2 import header as h
from fcsim.fc2.login import R_A_TOV
from fcsim.fc2.nport import NPort
from fcsim.fc2.rec import REC_SIZE, Rec, RecAnswer
from fcsim.fc2.sequence import Exchange, Sequence
from fcsim.fc4.deadlines import Deadlines
from fcsim.fc4.nvme import (
    ADMIN_QUEUE_SIZE,
    CMD_IU_SIZE,
    CREATE_ASSOCIATION_SIZE,
    CREATE_CONNECTION_SIZE,
    DISCONNECT_ASSOCIATION_SIZE,
    HOST_ABORTED,
    PRLI_SIZE,
    R_CTL_ERSP,
    R_CTL_LS_REPLY,
    R_CTL_LS_REQUEST,
    R_CTL_SR,
    SR_SIZE,
    TYPE_NVME,
    CreateAssociation,
    CreateConnection,
    DisconnectAccept,
    DisconnectAssociation,
    LsAccept,
    NvmeCommand,
    NvmeResponse,
    NvmeSr,
    NvmeTransferReady,
    PrliNvme,
    ersp_ratio,
    is_path_error,
)
from fcsim.fc4.nvme_recovery import (
    COMMAND,
    CTRL_LOSS_TMO,
    HOST_PATH_ERROR,
    IO_TIMEOUT,
    LS_TIMEOUT,
    MAX_RECOVERIES,
    MAX_RETRIES,
    RECONNECT_DELAY,
    rec_tov,
    reconnect_limit,
    retry_r_ctl,
)
from fcsim.fc4.outstanding import HeldCommands, OutstandingLimit
from fcsim.fc4.retries import retry_allowed


@dataclass
class Connection:
    """An I/O connection (an NVMe submission/completion queue pair) to a
    target: its *connection* ID, its *sqsize* (commands outstanding at most),
    the commands outstanding now and the most in the measured interval, its next command
    sequence number, and the commands waiting for a free entry or for the
    association to be live again. *qid*: its queue ID (1 ..), which keeps it
    across a reset while its connection ID changes."""

    connection: int
    sqsize: int
    qid: int = 1
    outstanding: int = 0
    most: int = 0
    csn: int = 0
    waiting: deque[NvmeCommand] = field(default_factory=deque)


CONNECTING = "connecting"
"""An association being created (Linux ``NVME_CTRL_CONNECTING``; at first,
``NEW``): its commands wait."""
LIVE = "live"
"""An association whose connections carry commands (``NVME_CTRL_LIVE``)."""
RESETTING = "resetting"
"""An association being torn down, its commands aborted (``NVME_CTRL_RESETTING``)."""
LOST = "lost"
"""A controller given up after its last reconnection attempt
(``nvme_delete_ctrl``): its commands fail."""


@dataclass(eq=False)
class _Association:
    """The association with the target at N_Port *d_id*: its ID, the target's first burst,
    whether both ends use SLER on it, its I/O connections once made, and who
    waits for them; its *state*, the link service exchange it waits for the
    answer of (*ls*), the I/O connections made in the current attempt
    (*made*) and the attempts to create it again since it was last live
    (*attempts*)."""

    waiters: list[Callable[[], None]]
    d_id: int
    association: int = -1
    first_burst: int = 0
    sler: bool = False
    connections: list[Connection] = field(default_factory=list)
    state: str = CONNECTING
    turn: int = 0
    ls: Exchange | None = None
    made: int = 0
    attempts: int = 0

    def outstanding(self) -> int:
        """Commands outstanding on its connections."""
        return sum(c.outstanding for c in self.connections)


Discover = Callable[[Callable[[list[int]], None]], None]
"""How a host finds the NVMe subsystems it may connect to: called with a
callback, it calls it with their N_Port IDs (a fabric's name server, asked
GID_FT for TYPE 0x28: :class:`fcsim.fabric.discovery.NameServerQuery`)."""


@dataclass
class NvmeInitiatorStats:
    """Responses received as ERSP and as the shortened RSP, and commands that
    waited for a free submission queue entry."""

    ersp: int = 0
    rsp: int = 0
    waited: int = 0


@dataclass
class NvmeRecoveryStats:
    """The recovery of lost frames: RECs sent, IUs asked again with NVMe_SR,
    commands sent again in their exchange (SLER), commands timed out, ABTS
    sent, commands the NVMe layer sent again in a new exchange, and commands
    returned to the layer above with an error (*failed*: on a multipath node
    the namespace head fails those with a path error over to another path,
    so they need not end as errors of the job); associations reset after a
    command failed in the transport, the attempts to create one again
    (*reconnects*, each a Create Association) and the controllers given up
    after the last attempt (*controllers_lost*)."""

    recs: int = 0
    retransmission_requests: int = 0
    commands_resent: int = 0
    timeouts: int = 0
    aborts: int = 0
    retries: int = 0
    failed: int = 0
    association_resets: int = 0
    reconnects: int = 0
    controllers_lost: int = 0

    def __bool__(self) -> bool:
        return any(vars(self).values())


class NvmeInitiator:
    """FC-NVMe host on *nport*, in Class 3: to each target it logs in (PRLI,
    offering *first_burst* bytes; 0: none), creates an association and
    *queues* I/O connections of *queue_size* entries each (the target may
    grant fewer), one link service exchange at a time, then sends commands
    round robin over the connections. A command finding its connection full
    waits there for a completion (the block layer's wait for a free tag).
    With a limit on its outstanding commands (:meth:`limit_outstanding`) a
    command over it waits, in order, before its connection is chosen for it
    is filled (:mod:`fcsim.fc4.outstanding`).
    With *discover* it first asks which ports are NVMe subsystems and
    connects only to a target listed; one not listed is never connected to
    (:attr:`undiscovered`), so its commands are never sent (None: no
    discovery, the target is taken as given: point to point).

    *sler*: it offers sequence level error recovery at PRLI, used with a
    target that offers it too. A command lost is recovered as
    :mod:`fcsim.fc4.nvme_recovery` describes: within its exchange with SLER,
    else aborted after *io_timeout* s and sent again at most *max_retries*
    times before it fails. Such a command resets its association: the
    others are aborted, the association made again and they are sent again,
    with *reconnect_delay* s between failed attempts and the controller lost
    after *ctrl_loss_tmo* s (None: never), both as Linux reads them
    (:func:`~fcsim.fc4.nvme_recovery.reconnect_limit`).

    *failover*: its commands come from an NVMe multipath namespace head (Linux
    ``REQ_NVME_MPATH``): one failed with a path error completes at once with
    it, for the head to send on another path (``nvme_decide_disposition``:
    FAILOVER before RETRY); other errors are sent again as without."""

    def __init__(self, sim: Simulation, nport: NPort, queues: int = 1,
                 queue_size: int = 128, first_burst: int = 0,
                 discover: Discover | None = None, sler: bool = True,
                 io_timeout: float = IO_TIMEOUT, max_retries: int = MAX_RETRIES,
                 failover: bool = False, reconnect_delay: float = RECONNECT_DELAY,
                 ctrl_loss_tmo: float | None = CTRL_LOSS_TMO) -> None:
        if queues < 1 or queue_size < 2:
            raise ValueError(f"{nport.name}: NVMe needs >= 1 queue of >= 2 entries")
        self.sim, self.nport = sim, nport
        self.queues, self.queue_size, self.first_burst = queues, queue_size, first_burst
        self.sler, self.max_retries, self.failover = sler, max_retries, failover
        self.stats = NvmeInitiatorStats()
        self.recovery = NvmeRecoveryStats()
        """What its recovery of lost frames did (never reset: a run's whole)."""
        self._io_timer = Deadlines(sim, io_timeout, self._timed_out)
        self._rec_timer = Deadlines(sim, rec_tov(nport.params.e_d_tov), self._no_progress)
        self._abts_timer = Deadlines(sim, R_A_TOV, self._abort_unanswered)
        self._ls_timer = Deadlines(sim, LS_TIMEOUT, self._ls_unanswered)
        self.reconnect_delay, self.max_reconnects = reconnect_limit(reconnect_delay,
                                                                    ctrl_loss_tmo)
        self._aborting: dict[NvmeCommand, int] = {}  # ABTS sent for its exchange
        self._recs: dict[Exchange, Exchange] = {}  # a command's exchange: its REC's, unanswered
        self._targets: dict[int, _Association] = {}
        self._by_exchange: dict[Exchange, NvmeCommand] = {}
        self._next_cid = 0
        self.held: HeldCommands[NvmeCommand] = HeldCommands()
        """The commands held back over its limit on outstanding commands."""
        self.in_flight = 0
        """Commands outstanding on all its connections."""
        self._discover = discover
        self.undiscovered: list[int] = []
        self.listeners: list[Callable[[int, str], None]] = []
        """Who follows its associations' states: each called with the target's
        N_Port ID and the new state whenever its association is reset,
        connecting, live or lost (an NVMe multipath namespace head, for its
        paths)."""
        nport.register((h.TYPE_ELS, TYPE_NVME, h.TYPE_BLS), self._received)

    def limit_outstanding(self, limit: OutstandingLimit) -> None:
        """Keep the outstanding commands within *limit* (set when the network is built)."""
        self.held.limit = limit

    def release(self) -> None:
        """Send the commands held over the limit while it allows."""
        self.held.release(lambda: self.in_flight, self._send_or_wait)

    def _send_or_wait(self, command: NvmeCommand) -> None:
        """Send *command* on its connection, or queue it there if it is full or
        the association is not live; fail it if its controller is lost."""
        assoc, conn = self._connection(command)
        if assoc.state != LIVE:
            self._wait_live(assoc, conn, command)
        elif conn.outstanding >= conn.sqsize:
            self.stats.waited += 1
            conn.waiting.append(command)
        else:
            self._issue(command, conn, assoc.first_burst)

    def _wait_live(self, assoc: _Association, conn: Connection,
                   command: NvmeCommand) -> None:
        """*command* waits on *conn* for the association to be live again, or,
        its controller lost or with *failover*, fails with a host path error
        (Linux ``nvmf_fail_nonready_command``: a multipath request is not
        requeued on a controller that is not live), at once, in an event of
        its own: the layer above may send the next one from its completion."""
        if assoc.state == LOST or self.failover:
            self.sim.call_later(0.0, lambda _e: self._return_error(command, HOST_PATH_ERROR))
        else:
            conn.waiting.append(command)

    def reset_stats(self) -> None:
        """Start a new measured interval: its responses and waits counted from
        now, each connection's most outstanding commands from those
        outstanding now (its recovery counts are the run's whole)."""
        self.stats = NvmeInitiatorStats()
        for exchange in self._by_exchange:
            exchange.new_interval()
        for assoc in self._targets.values():
            for conn in assoc.connections:
                conn.most = conn.outstanding

    def targets(self) -> list[int]:
        """The N_Port IDs of the targets it has associations with."""
        return list(self._targets)

    def connections(self, d_id: int) -> list[Connection]:
        """The I/O connections to the target at *d_id* (empty before they are made)."""
        assoc = self._targets.get(d_id)
        return assoc.connections if assoc is not None else []

    # -- login, association and connections ------------------------------------------------

    def connect(self, d_id: int, then: Callable[[], None]) -> None:
        """PRLI with the target at N_Port *d_id*, Create Association and its I/O
        connections; *then()* once all are made."""
        assoc = self._targets.get(d_id)
        if assoc is not None:
            if assoc.state != CONNECTING or assoc.attempts:
                then()
            else:
                assoc.waiters.append(then)
            return
        self._targets[d_id] = _Association([then], d_id)
        if self._discover is None:
            self.nport.when_ready(lambda: self._login(d_id))
            return

        def listed(ports: list[int]) -> None:
            if d_id in ports:
                self._login(d_id)
            else:
                self.undiscovered.append(d_id)
        self._discover(listed)

    def _login(self, d_id: int) -> None:
        """PRLI for NVMe with the target, the first step of its association."""
        self._ls(d_id, PRLI_SIZE, PrliNvme(self.first_burst, self.sler), els=True)

    def _ls(self, d_id: int, size: int, request: object, els: bool = False) -> Exchange:
        """Send a link service request (PRLI as an ELS; the others as FC-NVMe
        LSs) in its own exchange, which it returns. The association waits
        for its answer, for :data:`LS_TIMEOUT` when it is made again."""
        r_ctl, type_ = ((h.R_CTL_ELS_REQUEST, h.TYPE_ELS) if els
                        else (R_CTL_LS_REQUEST, TYPE_NVME))
        exchange = self.nport.open_exchange(d_id)
        assoc = self._targets[d_id]
        if not isinstance(request, DisconnectAssociation):
            assoc.ls = exchange
            if assoc.attempts:
                self._ls_timer.arm(assoc, exchange)
        self.nport.send(exchange, size, 3, r_ctl=r_ctl, type_=type_, ulp=request,
                        initiative=True)
        return exchange

    def _answered(self, seq: Sequence) -> None:
        """The answer of a link service: the next step of the target's setup
        (an answer no longer waited for, its LS timed out, is dropped)."""
        d_id = seq.exchange.responder_id
        assoc = self._targets[d_id]
        if seq.exchange is not assoc.ls:
            return
        assoc.ls = None
        self._ls_timer.disarm(assoc)
        self.nport.close_exchange(seq.exchange)
        answer = seq.ulp
        if isinstance(answer, PrliNvme):
            assoc.first_burst = min(answer.first_burst, self.first_burst)
            assoc.sler = answer.sler and self.sler
            self._ls(d_id, CREATE_ASSOCIATION_SIZE,
                     CreateAssociation(ADMIN_QUEUE_SIZE, ersp_ratio(ADMIN_QUEUE_SIZE)))
            return
        accept: LsAccept = answer  # type: ignore[assignment]
        if assoc.association < 0:
            assoc.association = accept.association
        else:
            if assoc.made < len(assoc.connections):  # made again after a reset
                conn = assoc.connections[assoc.made]
                conn.connection, conn.sqsize, conn.csn = accept.connection, accept.sqsize, 0
            else:
                assoc.connections.append(Connection(accept.connection, accept.sqsize,
                                                    assoc.made + 1))
            assoc.made += 1
        if assoc.made < self.queues:
            self._ls(d_id, CREATE_CONNECTION_SIZE,
                     CreateConnection(assoc.association, assoc.made + 1, self.queue_size,
                                      ersp_ratio(self.queue_size)))
            return
        assoc.attempts = 0
        self._enter(assoc, LIVE)
        for conn in assoc.connections:  # what waited for it, in order
            waiting, conn.waiting = conn.waiting, deque()
            for command in waiting:
                self._send_or_wait(command)
        waiters, assoc.waiters = assoc.waiters, []
        for then in waiters:
            then()

    # -- association reset (nvme_fc_error_recovery) -------------------------------------------

    def _enter(self, assoc: _Association, state: str) -> None:
        """*assoc* enters *state*; those who follow it are told."""
        assoc.state = state
        for listener in self.listeners:
            listener(assoc.d_id, state)

    def live(self, d_id: int) -> bool:
        """Whether the association with the target at *d_id* is live (Linux's
        controller state ``NVME_CTRL_LIVE``)."""
        assoc = self._targets.get(d_id)
        return assoc is not None and assoc.state == LIVE

    def coming_back(self, d_id: int) -> bool:
        """Whether the association with the target at *d_id*, once made, is
        being reset or made again (``NVME_CTRL_RESETTING``, ``CONNECTING``):
        it may be live again."""
        assoc = self._targets.get(d_id)
        return assoc is not None and (assoc.state == RESETTING
                                      or (assoc.state == CONNECTING and assoc.attempts > 0))

    def _quiet(self, assoc: _Association) -> None:
        """Once a resetting *assoc* has no command outstanding: Disconnect
        Association, then at once the first attempt to create it again."""
        if assoc.state == RESETTING and not assoc.outstanding():
            self._disconnect(assoc)
            self._reconnect(assoc)

    def _disconnect(self, assoc: _Association) -> None:
        """Send the Disconnect Association LS for *assoc*, if it was made, and
        forget its ID; the answer is not waited for."""
        if assoc.association >= 0:
            self._ls(assoc.d_id, DISCONNECT_ASSOCIATION_SIZE,
                     DisconnectAssociation(assoc.association))
        assoc.association = -1

    def _reconnect(self, assoc: _Association) -> None:
        """An attempt to create *assoc* again: Create Association, then the
        I/O connections (:meth:`_answered`)."""
        if assoc.state == LOST:
            return
        assoc.attempts += 1
        assoc.made = 0
        self._enter(assoc, CONNECTING)
        self.recovery.reconnects += 1
        self._ls(assoc.d_id, CREATE_ASSOCIATION_SIZE,
                 CreateAssociation(ADMIN_QUEUE_SIZE, ersp_ratio(ADMIN_QUEUE_SIZE)))

    def _ls_unanswered(self, assoc: _Association, exchange: Exchange) -> None:
        """LS_TIMEOUT without the answer of a reconnection's LS: the attempt
        failed. Its exchange is ended, the association (if made) disconnected;
        another attempt follows reconnect_delay later while the limit allows,
        else the controller is lost."""
        if assoc.ls is not exchange:
            return
        assoc.ls = None
        self.nport.close_exchange(exchange, True)
        self._disconnect(assoc)
        if self.max_reconnects is None or assoc.attempts < self.max_reconnects:
            self.sim.call_later(self.reconnect_delay, lambda _e: self._reconnect(assoc))
            return
        self._lose(assoc)

    def _lose(self, assoc: _Association) -> None:
        """The controller of *assoc* is given up: every command waiting for it
        fails now, and each sent to it later."""
        self._enter(assoc, LOST)
        self.recovery.controllers_lost += 1
        for conn in assoc.connections:
            waiting, conn.waiting = conn.waiting, deque()
            for command in waiting:
                self._return_error(command, HOST_PATH_ERROR)

    # -- commands ---------------------------------------------------------------------------

    def submit(self, d_id: int, write: bool, offset: int, length: int,
               done: Callable[[NvmeCommand], None], meter: Any = None,
               nsid: int = 1) -> NvmeCommand:
        """Send an NVMe Write or Read of *length* bytes at byte *offset* of
        namespace *nsid* to the target at *d_id* (connected first,
        :meth:`connect`) on its next connection in turn; *done(command)* when
        it completes; *meter* counts its data frames as they arrive."""
        assoc = self._targets[d_id]
        conn = assoc.connections[assoc.turn]
        assoc.turn = (assoc.turn + 1) % len(assoc.connections)
        command = NvmeCommand(self._next_cid, write, offset, length, self.sim.now, done, d_id,
                              nsid=nsid, connection=conn.connection, qid=conn.qid, meter=meter)
        self._next_cid += 1
        if not self.held.holds(command, self.in_flight):
            self._send_or_wait(command)
        return command

    def uses_sler(self, d_id: int) -> bool:
        """Whether SLER was negotiated with the target at *d_id*."""
        assoc = self._targets.get(d_id)
        return assoc is not None and assoc.sler

    def _connection(self, command: NvmeCommand) -> tuple[_Association, Connection]:
        assoc = self._targets[command.d_id]
        return assoc, assoc.connections[command.qid - 1]

    def _issue(self, command: NvmeCommand, conn: Connection, first_burst: int) -> None:
        command.connection = conn.connection
        self.in_flight += 1
        conn.outstanding += 1
        conn.most = max(conn.most, conn.outstanding)
        command.csn, conn.csn = conn.csn, conn.csn + 1
        command.attempts += 1
        command.recoveries = 0
        command.moved = 0
        exchange = self.nport.open_exchange(command.d_id)
        command.exchange = exchange
        self._by_exchange[exchange] = command
        self._io_timer.arm(command, exchange)
        self._send_command(command, first_burst)

    def _send_command(self, command: NvmeCommand, first_burst: int) -> None:
        """Send *command*'s NVMe_CMND in its exchange, and its first burst."""
        command.sent = self.sim.now
        burst = min(first_burst, command.length) if command.write else 0
        command.first_burst = burst
        self._progress(command)
        self.nport.send(command.exchange, CMD_IU_SIZE, 3,  # type: ignore[arg-type]
                        r_ctl=h.R_CTL_UNSOLICITED_COMMAND, type_=TYPE_NVME, ulp=command,
                        initiative=not burst, from_host=True)
        if burst:
            self._data(command, NvmeTransferReady(0, burst))

    def _progress(self, command: NvmeCommand) -> None:
        """An IU of *command*'s exchange went or came: with SLER, its REC_TOV
        timer starts again."""
        if self._targets[command.d_id].sler:
            self._rec_timer.arm(command, command.exchange)

    def _data(self, command: NvmeCommand, ready: NvmeTransferReady) -> None:
        """Send write data: the burst *ready* asks for (or the first burst)."""
        def out(sent: Sequence, size: int = ready.burst) -> None:
            if sent.status in ("sent", "acked"):
                command.moved += size
        self._progress(command)
        self.nport.send(command.exchange, ready.burst, 3,  # type: ignore[arg-type]
                        r_ctl=h.R_CTL_SOLICITED_DATA, type_=TYPE_NVME, ulp=ready,
                        on_complete=out, initiative=True, from_host=True, meter=command.meter)

    def _received(self, seq: Sequence, time: float) -> bool:
        """An answer of one of its link services or RECs, or a sequence of one
        of its commands' exchanges (a BA_ACC among them): taken. Others are
        left (an FCP PRLI's answer, a target's sequences on this port)."""
        if seq.r_ctl in (h.R_CTL_ELS_REPLY, R_CTL_LS_REPLY):
            if seq.exchange.originator is not self.nport:
                return False
            if isinstance(seq.ulp, PrliNvme | LsAccept):
                self._answered(seq)
                return True
            if isinstance(seq.ulp, DisconnectAccept):
                self.nport.close_exchange(seq.exchange)
                return True
            if isinstance(seq.ulp, RecAnswer):
                if self._recs.get(seq.ulp.exchange) is seq.exchange:
                    del self._recs[seq.ulp.exchange]
                    self.nport.close_exchange(seq.exchange)
                    self._rec_answered(seq.ulp)
                return True
            return False
        command = self._by_exchange.get(seq.exchange)
        if command is None:
            return False
        if seq.r_ctl == h.R_CTL_BA_ACC:
            if command in self._aborting:
                self._transport_failed(command, HOST_ABORTED, aborted=True)
            return True
        if command in self._aborting:
            return True  # late for an exchange being aborted
        self._progress(command)
        if seq.r_ctl == h.R_CTL_DATA_DESCRIPTOR:
            self._data(command, seq.ulp)  # type: ignore[arg-type]
        elif seq.r_ctl == h.R_CTL_SOLICITED_DATA:
            command.moved += seq.size
        elif seq.r_ctl == h.R_CTL_COMMAND_STATUS or seq.r_ctl == R_CTL_ERSP:
            self._responded(command, seq.ulp)  # type: ignore[arg-type]
        return True

    def _responded(self, command: NvmeCommand, response: NvmeResponse) -> None:
        """*command*'s response came: complete, or, a read's data having come
        short, recovered (SLER: its data asked again at once) or failed."""
        if not command.write and command.moved < command.length:
            if self._targets[command.d_id].sler and command.recoveries < MAX_RECOVERIES:
                command.recoveries += 1
                self._ask_again(command, h.R_CTL_SOLICITED_DATA)
                return
            self._transport_failed(command, HOST_PATH_ERROR, aborted=False)
            return
        self._end_attempt(command)
        if response.ersp:
            self.stats.ersp += 1
        else:
            self.stats.rsp += 1
        command.status, command.ersp = response.status, response.ersp
        command.completed = self.sim.now
        command.done(command)

    def _end_attempt(self, command: NvmeCommand, aborted: bool = False,
                     given_up: bool = False) -> None:
        """*command*'s exchange ends (its OX_ID freed R_A_TOV later if
        *aborted*) and its submission queue entry with it: the next command
        waiting for one is sent. An attempt aborted or *given_up* (sent again,
        or failed) did not deliver its data: what its meter counted of it is
        taken back."""
        exchange: Exchange = command.exchange  # type: ignore[assignment]
        if aborted or given_up:
            self.nport.take_back(exchange, command.meter)
        del self._by_exchange[exchange]
        self._forget_rec(exchange)
        self._aborting.pop(command, None)
        self._io_timer.disarm(command)
        self._rec_timer.disarm(command)
        self._abts_timer.disarm(command)
        self.nport.close_exchange(exchange, aborted)
        assoc, conn = self._connection(command)
        conn.outstanding -= 1
        self.in_flight -= 1
        if assoc.state != LIVE:
            self._quiet(assoc)
        elif conn.waiting:
            self._issue(conn.waiting.popleft(), conn, assoc.first_burst)
        if self.held.queue:
            self.release()

    def _transport_failed(self, command: NvmeCommand, status: int, aborted: bool) -> None:
        """*command*'s exchange failed in the transport (*aborted*, or its
        read data short): it ends, and the NVMe layer decides whether to send
        it again (:meth:`_failed`). The first such failure on a live
        association resets it (``nvme_fc_fcpio_done`` sets terminate_assoc):
        every other command outstanding on it is aborted (those already being
        aborted go on), and once none is left :meth:`_quiet` disconnects and
        connects it again."""
        assoc = self._targets[command.d_id]
        if assoc.state == LIVE:
            self._enter(assoc, RESETTING)
            self.recovery.association_resets += 1
            for other in [c for c in self._by_exchange.values()
                          if c is not command and c.d_id == command.d_id
                          and c not in self._aborting]:
                self._abort(other)
            if self.failover:  # those waiting for an entry go back to the head
                for conn in assoc.connections:
                    waiting, conn.waiting = conn.waiting, deque()
                    for queued in waiting:
                        self._wait_live(assoc, conn, queued)
        self._end_attempt(command, aborted=aborted, given_up=not aborted)
        self._failed(command, status)

    def _failed(self, command: NvmeCommand, status: int) -> None:
        """*command*'s attempt failed with *status*: the NVMe layer sends it
        again while it may (a new exchange on its connection), else it
        completes with the error; with *failover*, a path error completes it
        at once."""
        if (retry_allowed(command.attempts - 1, self.max_retries)
                and not (self.failover and is_path_error(status))):
            self.recovery.retries += 1
            self._send_or_wait(command)
            return
        self._return_error(command, status)

    def _return_error(self, command: NvmeCommand, status: int) -> None:
        """*command* completes now with the error *status*, to the layer above."""
        self.recovery.failed += 1
        command.status = status
        command.completed = self.sim.now
        command.done(command)

    def terminate(self, d_id: int, status: int) -> int:
        """Fail every command to the target at *d_id* now with *status*, those
        outstanding (their exchanges ended as aborted) and those waiting for a
        queue entry or held over the limit, as nvme-fc does when it loses the
        remote port's connectivity (``nvme_fc_ctrl_connectivity_loss``: the
        association is torn down and its commands aborted); how many. Each
        completes at once, without another attempt."""
        doomed: list[NvmeCommand] = []
        assoc = self._targets.get(d_id)
        for conn in assoc.connections if assoc is not None else ():
            doomed += conn.waiting  # first: ending an attempt would send them
            conn.waiting.clear()
        held = [c for c in self.held.queue if c.d_id == d_id]
        for command in held:
            self.held.queue.remove(command)
        doomed += held
        outstanding = [c for c in self._by_exchange.values() if c.d_id == d_id]
        for command in outstanding:
            self._end_attempt(command, aborted=True)
        doomed += outstanding
        for command in doomed:
            self._return_error(command, status)
        return len(doomed)

    # -- recovery -------------------------------------------------------------------------

    def _timed_out(self, command: NvmeCommand, exchange: Exchange) -> None:
        """The NVMe layer's timeout: the exchange is aborted."""
        if command.exchange is exchange and exchange in self._by_exchange:
            if command not in self._aborting:
                self.recovery.timeouts += 1
                self._abort(command)

    def _abort(self, command: NvmeCommand) -> None:
        """Abort *command*'s exchange with ABTS (again, if one went unanswered)."""
        self._rec_timer.disarm(command)
        self._aborting[command] = self._aborting.get(command, 0) + 1
        self.recovery.aborts += 1
        self._abts_timer.arm(command, command.exchange)
        self.nport.send(command.exchange, 0, 3,  # type: ignore[arg-type]
                        r_ctl=h.R_CTL_ABTS, type_=h.TYPE_BLS)

    def _abort_unanswered(self, command: NvmeCommand, exchange: Exchange) -> None:
        """R_A_TOV after an ABTS without its BA_ACC: sent again, or given up."""
        if command.exchange is not exchange or command not in self._aborting:
            return
        if self._aborting[command] < MAX_RECOVERIES:
            self._abort(command)
            return
        self._transport_failed(command, HOST_ABORTED, aborted=True)

    def _no_progress(self, command: NvmeCommand, exchange: Exchange) -> None:
        """REC_TOV without an IU in *command*'s exchange (SLER): ask the
        target what it holds with REC, or abort after the last recovery."""
        if command.exchange is not exchange or exchange not in self._by_exchange:
            return
        if command in self._aborting:
            return
        if command.recoveries >= MAX_RECOVERIES:
            self._abort(command)
            return
        command.recoveries += 1
        self.recovery.recs += 1
        self._rec_timer.arm(command, exchange)
        self._forget_rec(exchange)
        rec = self._recs[exchange] = self.nport.open_exchange(command.d_id)
        self.nport.send(rec, REC_SIZE, 3, r_ctl=h.R_CTL_ELS_REQUEST, type_=h.TYPE_ELS,
                        ulp=Rec(exchange), initiative=True)

    def _forget_rec(self, exchange: Exchange) -> None:
        """End the exchange of a REC about *exchange* still unanswered (its
        answer lost, or no longer wanted), as aborted: its OX_ID is free
        again R_A_TOV later; an answer coming after is ignored."""
        rec = self._recs.pop(exchange, None)
        if rec is not None:
            self.nport.close_exchange(rec, True)

    def _rec_answered(self, answer: RecAnswer) -> None:
        """The target's answer to a REC: the IU it names is asked again."""
        command = self._by_exchange.get(answer.exchange)
        if command is None or command in self._aborting:
            return
        retry = retry_r_ctl(command.write, command.length, command.moved, answer)
        if retry == COMMAND:
            self.recovery.commands_resent += 1
            self._send_command(command, self._targets[command.d_id].first_burst)
        elif retry is not None:
            self._ask_again(command, retry)

    def _ask_again(self, command: NvmeCommand, r_ctl: int) -> None:
        """Send an NVMe_SR asking the target for the IU of *r_ctl* again (read
        data: the count of what came starts again)."""
        self.recovery.retransmission_requests += 1
        if r_ctl == h.R_CTL_SOLICITED_DATA:  # all of it comes again
            command.moved = 0
            self.nport.take_back(command.exchange, command.meter,  # type: ignore[arg-type]
                                 abandoned=False)
        self._progress(command)
        self.nport.send(command.exchange, SR_SIZE, 3,  # type: ignore[arg-type]
                        r_ctl=R_CTL_SR, type_=TYPE_NVME, ulp=NvmeSr(r_ctl), initiative=True)
