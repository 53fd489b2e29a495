"""The host side of FC-NVMe: PRLI for NVMe, one association per target with
its I/O connections (queues), and NVMe commands sent on them, never more at
once on a connection than its negotiated size (see :mod:`fcsim.fc4.nvme`)."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fcsim.engine.simulation import Simulation
from fcsim.fc2 import header as h
from fcsim.fc2.nport import NPort
from fcsim.fc2.sequence import Exchange, Sequence
from fcsim.fc4.nvme import (
    ADMIN_QUEUE_SIZE,
    CMD_IU_SIZE,
    CREATE_ASSOCIATION_SIZE,
    CREATE_CONNECTION_SIZE,
    PRLI_SIZE,
    R_CTL_LS_REPLY,
    R_CTL_LS_REQUEST,
    TYPE_NVME,
    CreateAssociation,
    CreateConnection,
    LsAccept,
    NvmeCommand,
    NvmeResponse,
    NvmeTransferReady,
    PrliNvme,
    ersp_ratio,
)
from fcsim.fc4.outstanding import HeldCommands, OutstandingLimit


@dataclass
class Connection:
    """An I/O connection (an NVMe submission/completion queue pair) to a
    target: its *connection* ID, its *sqsize* (commands outstanding at most),
    the commands outstanding now and the most ever, its next command
    sequence number, and the commands waiting for a free entry."""

    connection: int
    sqsize: int
    outstanding: int = 0
    most: int = 0
    csn: int = 0
    waiting: deque[NvmeCommand] = field(default_factory=deque)


@dataclass
class _Association:
    """The association with one target: its ID, the target's first burst,
    its I/O connections once made, and who waits for them."""

    waiters: list[Callable[[], None]]
    association: int = -1
    first_burst: int = 0
    connections: list[Connection] = field(default_factory=list)
    ready: bool = False
    turn: int = 0


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
    discovery, the target is taken as given: point to point)."""

    def __init__(self, sim: Simulation, nport: NPort, queues: int = 1,
                 queue_size: int = 128, first_burst: int = 0,
                 discover: Discover | None = None) -> None:
        if queues < 1 or queue_size < 2:
            raise ValueError(f"{nport.name}: NVMe needs >= 1 queue of >= 2 entries")
        self.sim, self.nport = sim, nport
        self.queues, self.queue_size, self.first_burst = queues, queue_size, first_burst
        self.stats = NvmeInitiatorStats()
        self._targets: dict[int, _Association] = {}
        self._by_exchange: dict[Exchange, NvmeCommand] = {}
        self._next_cid = 0
        self.held: HeldCommands[NvmeCommand] = HeldCommands()
        """The commands held back over its limit on outstanding commands."""
        self.in_flight = 0
        """Commands outstanding on all its connections."""
        self._discover = discover
        self.undiscovered: list[int] = []
        nport.register((h.TYPE_ELS, TYPE_NVME), self._received)

    def limit_outstanding(self, limit: OutstandingLimit) -> None:
        """Keep the outstanding commands within *limit* (set when the network is built)."""
        self.held.limit = limit

    def release(self) -> None:
        """Send the commands held over the limit while it allows."""
        self.held.release(lambda: self.in_flight, self._send_or_wait)

    def _send_or_wait(self, command: NvmeCommand) -> None:
        """Send *command* on its connection, or queue it there if it is full."""
        assoc = self._targets[command.d_id]
        conn = next(c for c in assoc.connections if c.connection == command.connection)
        if conn.outstanding >= conn.sqsize:
            self.stats.waited += 1
            conn.waiting.append(command)
        else:
            self._issue(command, conn, assoc.first_burst)

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
            if assoc.ready:
                then()
            else:
                assoc.waiters.append(then)
            return
        self._targets[d_id] = _Association([then])
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
        self._ls(d_id, PRLI_SIZE, PrliNvme(self.first_burst), els=True)

    def _ls(self, d_id: int, size: int, request: object, els: bool = False) -> None:
        """Send a link service request (PRLI as an ELS; the others as FC-NVMe
        LSs) in its own exchange."""
        r_ctl, type_ = ((h.R_CTL_ELS_REQUEST, h.TYPE_ELS) if els
                        else (R_CTL_LS_REQUEST, TYPE_NVME))
        self.nport.send(self.nport.open_exchange(d_id), size, 3, r_ctl=r_ctl, type_=type_,
                        ulp=request, initiative=True)

    def _answered(self, seq: Sequence) -> None:
        """The answer of a link service: the next step of the target's setup."""
        d_id = seq.exchange.responder_id
        assoc = self._targets[d_id]
        self.nport.close_exchange(seq.exchange)
        answer = seq.ulp
        if isinstance(answer, PrliNvme):
            assoc.first_burst = min(answer.first_burst, self.first_burst)
            self._ls(d_id, CREATE_ASSOCIATION_SIZE,
                     CreateAssociation(ADMIN_QUEUE_SIZE, ersp_ratio(ADMIN_QUEUE_SIZE)))
            return
        accept: LsAccept = answer  # type: ignore[assignment]
        if assoc.association < 0:
            assoc.association = accept.association
        else:
            assoc.connections.append(Connection(accept.connection, accept.sqsize))
        if len(assoc.connections) < self.queues:
            qid = len(assoc.connections) + 1
            self._ls(d_id, CREATE_CONNECTION_SIZE,
                     CreateConnection(assoc.association, qid, self.queue_size,
                                      ersp_ratio(self.queue_size)))
            return
        assoc.ready = True
        waiters, assoc.waiters = assoc.waiters, []
        for then in waiters:
            then()

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
                              nsid=nsid, connection=conn.connection, meter=meter)
        self._next_cid += 1
        if self.held.holds(command, self.in_flight):
            return command
        if conn.outstanding >= conn.sqsize:
            self.stats.waited += 1
            conn.waiting.append(command)
        else:
            self._issue(command, conn, assoc.first_burst)
        return command

    def _issue(self, command: NvmeCommand, conn: Connection, first_burst: int) -> None:
        self.in_flight += 1
        conn.outstanding += 1
        conn.most = max(conn.most, conn.outstanding)
        command.csn, conn.csn = conn.csn, conn.csn + 1
        command.sent = self.sim.now
        exchange = self.nport.open_exchange(command.d_id)
        command.exchange = exchange
        self._by_exchange[exchange] = command
        burst = min(first_burst, command.length) if command.write else 0
        command.first_burst = burst
        self.nport.send(exchange, CMD_IU_SIZE, 3, r_ctl=h.R_CTL_UNSOLICITED_COMMAND,
                        type_=TYPE_NVME, ulp=command, initiative=not burst, from_host=True)
        if burst:
            self._data(command, NvmeTransferReady(0, burst))

    def _data(self, command: NvmeCommand, ready: NvmeTransferReady) -> None:
        """Send write data: the burst *ready* asks for (or the first burst)."""
        def out(sent: Sequence, size: int = ready.burst) -> None:
            if sent.status in ("sent", "acked"):
                command.moved += size
        self.nport.send(command.exchange, ready.burst, 3,  # type: ignore[arg-type]
                        r_ctl=h.R_CTL_SOLICITED_DATA, type_=TYPE_NVME, ulp=ready,
                        on_complete=out, initiative=True, from_host=True, meter=command.meter)

    def _received(self, seq: Sequence, time: float) -> bool:
        """An answer of one of its link services, or a sequence of one of its
        commands' exchanges: taken. Others are left (an FCP PRLI's answer, a
        target's sequences on this port)."""
        if seq.r_ctl in (h.R_CTL_ELS_REPLY, R_CTL_LS_REPLY):
            if isinstance(seq.ulp, PrliNvme | LsAccept) and seq.exchange.originator is self.nport:
                self._answered(seq)
                return True
            return False
        command = self._by_exchange.get(seq.exchange)
        if command is None:
            return False
        if seq.r_ctl == h.R_CTL_DATA_DESCRIPTOR:
            self._data(command, seq.ulp)  # type: ignore[arg-type]
        elif seq.r_ctl == h.R_CTL_SOLICITED_DATA:
            command.moved += seq.size
        elif seq.r_ctl == h.R_CTL_COMMAND_STATUS:
            self._completed(command, seq.ulp)  # type: ignore[arg-type]
        return True

    def _completed(self, command: NvmeCommand, response: NvmeResponse) -> None:
        del self._by_exchange[command.exchange]  # type: ignore[arg-type]
        self.nport.close_exchange(command.exchange)  # type: ignore[arg-type]
        if response.ersp:
            self.stats.ersp += 1
        else:
            self.stats.rsp += 1
        assoc = self._targets[command.d_id]
        conn = next(c for c in assoc.connections if c.connection == command.connection)
        conn.outstanding -= 1
        self.in_flight -= 1
        command.status, command.ersp = response.status, response.ersp
        command.completed = self.sim.now
        if conn.waiting:
            self._issue(conn.waiting.popleft(), conn, assoc.first_burst)
        if self.held.queue:
            self.release()
        command.done(command)
