"""The NVM subsystem side of FC-NVMe: a controller behind an N_Port that
accepts PRLI for NVMe, Create Association and Create I/O Connection, and
serves each connection's commands with its device, answering with the
shortened response or an ERSP as FC-NVMe requires (see :mod:`fcsim.fc4.nvme`),
and, with a host that uses SLER, the host's REC and NVMe_SR
(:mod:`fcsim.fc4.nvme_recovery`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from fcsim.engine.simulation import Simulation
from fcsim.fc2 import header as h
from fcsim.fc2.login import R_A_TOV
from fcsim.fc2.nport import NPort
from fcsim.fc2.rec import Rec, RecAnswer
from fcsim.fc2.sequence import Exchange, Sequence
from fcsim.fc4.fcp_target import Device
from fcsim.fc4.nvme import (
    CREATE_ASSOCIATION_ACC_SIZE,
    CREATE_CONNECTION_ACC_SIZE,
    DISCONNECT_ASSOCIATION_ACC_SIZE,
    ERSP_SIZE,
    INVALID_NAMESPACE,
    PRLI_SIZE,
    R_CTL_ERSP,
    R_CTL_LS_REPLY,
    R_CTL_LS_REQUEST,
    R_CTL_SR,
    R_CTL_SR_RSP,
    RSP_SIZE,
    SR_RSP_SIZE,
    SUCCESS,
    TYPE_NVME,
    XFER_RDY_SIZE,
    CreateAssociation,
    CreateConnection,
    DisconnectAccept,
    DisconnectAssociation,
    LsAccept,
    NvmeCommand,
    NvmeResponse,
    NvmeSr,
    NvmeSrResponse,
    NvmeTransferReady,
    PrliNvme,
)
from fcsim.fc4.nvme_recovery import MAX_RECOVERIES, rec_tov

KEPT_R_A_TOVS = 2
"""A command answered is remembered, for a host using SLER, (MAX_RECOVERIES
+ 1) REC_TOV plus this many R_A_TOV after its response: the host asks about
it at most MAX_RECOVERIES times REC_TOV apart after the last IU it saw, and
a frame lives at most R_A_TOV in the fabric each way. It is forgotten sooner
once the host has its response (and a read's data) whole: the simulation
sees the delivery, and a host that has them asks nothing more, so nothing
it would see changes; the target keeps only the commands whose answers may
have been lost."""


@dataclass
class TargetConnection:
    """A connection the target granted: its *sqsize* and *ersp_ratio*, the
    commands it holds now and the most in the measured interval, the
    responses sent since it was made (*sent*, the count the ersp_ratio runs
    on), and in the interval the responses, of which ERSPs, and commands
    that arrived with the queue already full (a host that broke the
    negotiated size); *association*: the association it belongs to, and
    *closed* once a Disconnect Association ended it (kept for its figures)."""

    sqsize: int
    ersp_ratio: int
    association: int = 0
    closed: bool = False
    held: int = 0
    most: int = 0
    sent: int = 0
    responses: int = 0
    ersps: int = 0
    overruns: int = 0


class _Io:
    """A command being served: its exchange, connection, the write data
    received so far (or the read data sent), whether the target holds the
    sequence initiative, its response once sent, and whether it was aborted."""

    __slots__ = ("command", "exchange", "conn", "received", "initiative", "response",
                 "aborted", "data_delivered")

    def __init__(self, command: NvmeCommand, exchange: Exchange,
                 conn: TargetConnection) -> None:
        self.command, self.exchange, self.conn = command, exchange, conn
        self.received = 0
        self.initiative = False
        self.response: tuple[int, NvmeResponse] | None = None
        self.aborted = False
        self.data_delivered = False


class NvmeTarget:
    """FC-NVMe controller on *nport* serving *namespaces* namespaces (NSID 1 ..
    *namespaces*) with *device*, each *namespace_size* bytes of it in turn
    (NSID *n* from byte (*n* - 1) x *namespace_size*); a command to another
    NSID completes at once with Invalid Namespace or Format, in an ERSP. It
    grants each I/O connection at most *mqes* entries (the controller's
    maximum queue entries supported) and accepts a first burst of at most
    *first_burst* bytes (0: none). A read's data go in one NVMe_DATA IU once
    the device has them; a write's rest after its first burst is asked for in
    one NVMe_XFER_RDY. *namespace_commands* counts each namespace's commands
    in the measured interval.

    *sler*: it offers sequence level error recovery at PRLI. With a host that
    offers it too, it answers the host's REC about a command's exchange and
    its NVMe_SR, sending the IU asked for again, and remembers each command
    answered for as long as the host may ask about it (:data:`KEPT_R_A_TOVS`)."""

    def __init__(self, sim: Simulation, nport: NPort, device: Device, mqes: int,
                 first_burst: int = 0, namespaces: int = 1, namespace_size: int = 0,
                 sler: bool = True) -> None:
        self.sim, self.nport, self.device = sim, nport, device
        self.mqes, self.first_burst, self.sler = mqes, first_burst, sler
        self.aborts = self.retransmissions = 0
        self._sler_hosts: set[object] = set()
        self._answered: dict[Exchange, tuple[float, _Io]] = {}  # in the order answered
        self._kept_for = ((MAX_RECOVERIES + 1) * rec_tov(nport.params.e_d_tov)
                          + KEPT_R_A_TOVS * R_A_TOV)
        self.namespaces, self.namespace_size = namespaces, namespace_size
        self.namespace_commands = [0] * namespaces
        self.connections: dict[int, TargetConnection] = {}
        self._associations = 0
        self._ios: dict[Exchange, _Io] = {}
        nport.register((h.TYPE_ELS, TYPE_NVME, h.TYPE_BLS), self._received)

    @property
    def held(self) -> int:
        """Commands being served now."""
        return len(self._ios)

    def _received(self, seq: Sequence, time: float) -> bool:
        """A PRLI for NVMe, an FC-NVMe link service, a command or a sequence of
        a command being served: taken; others are left."""
        ulp = seq.ulp
        if seq.r_ctl == h.R_CTL_ELS_REQUEST:
            if isinstance(ulp, Rec):
                self._rec(seq, ulp)
                return True
            if not isinstance(ulp, PrliNvme):
                return False
            sler = ulp.sler and self.sler
            if sler:
                self._sler_hosts.add(seq.exchange.originator)
            self._answer(seq, PRLI_SIZE,
                         PrliNvme(min(ulp.first_burst, self.first_burst), sler), els=True)
            return True
        if seq.r_ctl == h.R_CTL_ABTS:
            return self._abts(seq)
        if seq.type != TYPE_NVME:
            return False
        if seq.r_ctl == R_CTL_LS_REQUEST:
            self._link_service(seq)
        elif seq.r_ctl == h.R_CTL_UNSOLICITED_COMMAND:
            if seq.exchange in self._ios:  # sent again (SLER): its first copy was here
                return True
            self._command(seq)
        elif seq.r_ctl == h.R_CTL_SOLICITED_DATA:
            io = self._ios.get(seq.exchange)
            if io is None:
                return False
            io.received += seq.size
            command = io.command
            if io.received >= command.length:
                io.initiative = True
                self._device(io, True)
            elif io.received == command.first_burst:
                self._ready(io)
        elif seq.r_ctl == R_CTL_SR:
            self._retransmit(seq, ulp)  # type: ignore[arg-type]
        else:
            return False
        return True

    # -- recovery (SLER) --------------------------------------------------------------------

    def _io(self, exchange: Exchange) -> _Io | None:
        """The command of *exchange*, being served or answered and remembered."""
        io = self._ios.get(exchange)
        if io is None:
            kept = self._answered.get(exchange)
            io = kept[1] if kept is not None else None
        return io

    def _rec(self, seq: Sequence, rec: Rec) -> None:
        """Answer a REC: what this target holds of the exchange asked about."""
        io = self._io(rec.exchange)
        answer = (RecAnswer(rec.exchange, False) if io is None else
                  RecAnswer(rec.exchange, True, io.received, io.initiative,
                            io.response is not None))
        self.nport.send(seq.exchange, answer.size, seq.cls, r_ctl=h.R_CTL_ELS_REPLY,
                        type_=h.TYPE_ELS, ulp=answer, last=True)

    def _retransmit(self, seq: Sequence, request: NvmeSr) -> None:
        """An NVMe_SR: accept it, then send the IU asked for again (read data
        with its response after it)."""
        io = self._io(seq.exchange)
        if io is None or io.aborted:
            return
        self.retransmissions += 1
        self.nport.send(io.exchange, SR_RSP_SIZE, 3, r_ctl=R_CTL_SR_RSP, type_=TYPE_NVME,
                        ulp=NvmeSrResponse())
        retry = request.retry_r_ctl
        if retry == h.R_CTL_DATA_DESCRIPTOR and io.response is None:
            self._ready(io)
        elif retry == h.R_CTL_SOLICITED_DATA and io.response is not None:
            self._send_read(io, lambda sent: self._send_response(io))
        elif retry == h.R_CTL_COMMAND_STATUS and io.response is not None:
            self._send_response(io)

    def _abts(self, seq: Sequence) -> bool:
        """An ABTS for a command it serves or remembers: ended, answered
        BA_ACC. Others are left (an FCP target's, on this port)."""
        io = self._io(seq.exchange)
        if io is None:
            return False
        self.aborts += 1
        if self._ios.pop(seq.exchange, None) is not None:
            io.conn.held -= 1
        self._answered.pop(seq.exchange, None)
        io.aborted = True
        self.nport.accept_abort(seq)
        return True

    def _remember(self, io: _Io) -> None:
        """Keep *io*, answered, for a host using SLER to ask about; forget the
        ones no host can ask about any more (:data:`KEPT_R_A_TOVS`)."""
        now = self.sim.now
        answered = self._answered
        cutoff = now - self._kept_for
        while answered:
            exchange, (since, _io) = next(iter(answered.items()))
            if since >= cutoff:
                break
            del answered[exchange]
        answered[io.exchange] = (now, io)

    def _data_delivered(self, io: _Io) -> None:
        io.data_delivered = True

    def _response_delivered(self, io: _Io) -> None:
        """The host has *io*'s response whole, and a read's data: it will ask
        nothing more of it."""
        if io.command.write or io.data_delivered:
            self._answered.pop(io.exchange, None)

    def _answer(self, seq: Sequence, size: int, answer: object, els: bool = False) -> None:
        r_ctl, type_ = (h.R_CTL_ELS_REPLY, h.TYPE_ELS) if els else (R_CTL_LS_REPLY, TYPE_NVME)
        self.nport.send(seq.exchange, size, seq.cls, r_ctl=r_ctl, type_=type_, ulp=answer,
                        last=True)

    def _link_service(self, seq: Sequence) -> None:
        request = seq.ulp
        if isinstance(request, CreateAssociation):
            self._associations += 1
            self._answer(seq, CREATE_ASSOCIATION_ACC_SIZE,
                         LsAccept(self._associations, 0, min(request.sqsize, self.mqes)))
        elif isinstance(request, CreateConnection):
            sqsize = min(request.sqsize, self.mqes)
            ident = len(self.connections) + 1
            self.connections[ident] = TargetConnection(sqsize, request.ersp_ratio,
                                                       request.association)
            self._answer(seq, CREATE_CONNECTION_ACC_SIZE,
                         LsAccept(request.association, ident, sqsize))
        elif isinstance(request, DisconnectAssociation):
            self._disconnect(request.association)
            self._answer(seq, DISCONNECT_ASSOCIATION_ACC_SIZE,
                         DisconnectAccept(request.association))

    def _disconnect(self, association: int) -> None:
        """Disconnect Association: its connections end, and the commands it
        still serves or remembers on them with them (their answers would go
        nowhere; nvmet-fc's ``nvmet_fc_delete_target_assoc``)."""
        for conn in self.connections.values():
            if conn.association == association:
                conn.closed = True
        for exchange, io in list(self._ios.items()):
            if io.conn.closed:
                io.aborted = True
                io.conn.held -= 1
                del self._ios[exchange]
        for exchange, (_since, io) in list(self._answered.items()):
            if io.conn.closed:
                del self._answered[exchange]

    def _command(self, seq: Sequence) -> None:
        command: NvmeCommand = seq.ulp  # type: ignore[assignment]
        conn = self.connections[command.connection]
        if conn.held >= conn.sqsize:
            conn.overruns += 1
        conn.held += 1
        conn.most = max(conn.most, conn.held)
        io = self._ios[seq.exchange] = _Io(command, seq.exchange, conn)
        if not 1 <= command.nsid <= self.namespaces:
            self._respond(io, INVALID_NAMESPACE)
            return
        self.namespace_commands[command.nsid - 1] += 1
        if not command.write:
            self._device(io, False)
        elif not command.first_burst:
            self._ready(io)

    def _ready(self, io: _Io) -> None:
        left = io.command.length - io.received
        io.initiative = False
        self.nport.send(io.exchange, XFER_RDY_SIZE, 3, r_ctl=h.R_CTL_DATA_DESCRIPTOR,
                        type_=TYPE_NVME, ulp=NvmeTransferReady(io.received, left),
                        initiative=True)

    def _device(self, io: _Io, write: bool) -> None:
        command = io.command
        began = self.sim.now

        def through() -> None:
            command.device_s = self.sim.now - began
            if io.aborted:
                return
            if write:
                self._respond(io)
            else:
                io.received = command.length
                self._send_read(io, lambda sent: self._respond(io))
        io.initiative = True
        self.device.submit(write, command.offset + (command.nsid - 1) * self.namespace_size,
                           command.length, through)

    def _send_read(self, io: _Io, then: Callable[[Sequence], None] | None = None) -> None:
        """Send the command's read data in one NVMe_DATA IU; *then(sequence)*
        when it is sent."""
        command = io.command
        remembered = io.exchange.originator in self._sler_hosts
        self.nport.send(io.exchange, command.length, 3, r_ctl=h.R_CTL_SOLICITED_DATA,
                        type_=TYPE_NVME, ulp=NvmeTransferReady(0, command.length),
                        meter=command.meter, on_complete=then,
                        on_delivered=(lambda _seq, _at: self._data_delivered(io))
                        if remembered else None)

    def _respond(self, io: _Io, status: int = SUCCESS) -> None:
        """Complete the command: an ERSP every ersp_ratio-th response of the
        connection or when the status is not success, else the shortened RSP
        (FC-NVMe; Linux ``nvmet_fc_prep_fcp_rsp``)."""
        if io.aborted:
            return
        conn = io.conn
        del self._ios[io.exchange]
        conn.held -= 1
        conn.sent += 1
        conn.responses += 1
        ersp = status != SUCCESS or conn.sent % conn.ersp_ratio == 0
        conn.ersps += ersp
        io.response = (ERSP_SIZE if ersp else RSP_SIZE, NvmeResponse(status, ersp))
        if io.exchange.originator in self._sler_hosts:
            self._remember(io)
        self._send_response(io)

    def _send_response(self, io: _Io) -> None:
        """Send the command's response IU (again, when the host asks)."""
        size, response = io.response  # type: ignore[misc]
        remembered = io.exchange in self._answered
        r_ctl = R_CTL_ERSP if response.ersp else h.R_CTL_COMMAND_STATUS
        self.nport.send(io.exchange, size, 3, r_ctl=r_ctl, type_=TYPE_NVME,
                        ulp=response, last=True,
                        on_delivered=(lambda _seq, _at: self._response_delivered(io))
                        if remembered else None)

    def reset_stats(self) -> None:
        """Start a new measured interval."""
        for conn in self.connections.values():
            conn.most = conn.held
            conn.responses = conn.ersps = conn.overruns = 0
        self.aborts = self.retransmissions = 0
        self.namespace_commands = [0] * self.namespaces

    def results(self) -> dict[str, object]:
        """Its connections' figures, with several namespaces each one's
        commands, and the ABTS and NVMe_SR it answered in the interval, if any."""
        out: dict[str, object] = {
            "connections": {str(i): {"sqsize": c.sqsize, "ersp_ratio": c.ersp_ratio,
                                     "max_outstanding": c.most, "responses": c.responses,
                                     "ersp": c.ersps, "overruns": c.overruns,
                                     **({"closed": True} if c.closed else {})}
                            for i, c in self.connections.items()}}
        if self.aborts or self.retransmissions:
            out["recovery"] = {"aborts": self.aborts, "retransmissions": self.retransmissions}
        if self.namespaces > 1:
            out["namespace_commands"] = {str(n + 1): k
                                         for n, k in enumerate(self.namespace_commands)}
        return out


