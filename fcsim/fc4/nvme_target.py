"""The NVM subsystem side of FC-NVMe: a controller behind an N_Port that
accepts PRLI for NVMe, Create Association and Create I/O Connection, and
serves each connection's commands with its device, answering with the
shortened response or an ERSP as FC-NVMe requires (see :mod:`fcsim.fc4.nvme`)."""

from __future__ import annotations

from dataclasses import dataclass

from fcsim.engine.simulation import Simulation
from fcsim.fc2 import header as h
from fcsim.fc2.nport import NPort
from fcsim.fc2.sequence import Exchange, Sequence
from fcsim.fc4.fcp_target import Device
from fcsim.fc4.nvme import (
    CREATE_ASSOCIATION_ACC_SIZE,
    CREATE_CONNECTION_ACC_SIZE,
    ERSP_SIZE,
    INVALID_NAMESPACE,
    PRLI_SIZE,
    R_CTL_LS_REPLY,
    R_CTL_LS_REQUEST,
    RSP_SIZE,
    SUCCESS,
    TYPE_NVME,
    XFER_RDY_SIZE,
    CreateAssociation,
    CreateConnection,
    LsAccept,
    NvmeCommand,
    NvmeResponse,
    NvmeTransferReady,
    PrliNvme,
)


@dataclass
class TargetConnection:
    """A connection the target granted: its *sqsize* and *ersp_ratio*, the
    commands it holds now and the most in the measured interval, the
    responses sent since it was made (*sent*, the count the ersp_ratio runs
    on), and in the interval the responses, of which ERSPs, and commands
    that arrived with the queue already full (a host that broke the
    negotiated size)."""

    sqsize: int
    ersp_ratio: int
    held: int = 0
    most: int = 0
    sent: int = 0
    responses: int = 0
    ersps: int = 0
    overruns: int = 0


class _Io:
    """A command being served: its exchange, connection and the write data
    received so far."""

    __slots__ = ("command", "exchange", "conn", "received")

    def __init__(self, command: NvmeCommand, exchange: Exchange,
                 conn: TargetConnection) -> None:
        self.command, self.exchange, self.conn = command, exchange, conn
        self.received = 0


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
    in the measured interval."""

    def __init__(self, sim: Simulation, nport: NPort, device: Device, mqes: int,
                 first_burst: int = 0, namespaces: int = 1, namespace_size: int = 0) -> None:
        self.sim, self.nport, self.device = sim, nport, device
        self.mqes, self.first_burst = mqes, first_burst
        self.namespaces, self.namespace_size = namespaces, namespace_size
        self.namespace_commands = [0] * namespaces
        self.connections: dict[int, TargetConnection] = {}
        self._associations = 0
        self._ios: dict[Exchange, _Io] = {}
        nport.register((h.TYPE_ELS, TYPE_NVME), self._received)

    @property
    def held(self) -> int:
        """Commands being served now."""
        return len(self._ios)

    def _received(self, seq: Sequence, time: float) -> bool:
        """A PRLI for NVMe, an FC-NVMe link service, a command or a sequence of
        a command being served: taken; others are left."""
        ulp = seq.ulp
        if seq.r_ctl == h.R_CTL_ELS_REQUEST:
            if not isinstance(ulp, PrliNvme):
                return False
            self._answer(seq, PRLI_SIZE, PrliNvme(min(ulp.first_burst, self.first_burst)),
                         els=True)
            return True
        if seq.type != TYPE_NVME:
            return False
        if seq.r_ctl == R_CTL_LS_REQUEST:
            self._link_service(seq)
        elif seq.r_ctl == h.R_CTL_UNSOLICITED_COMMAND:
            self._command(seq)
        elif seq.r_ctl == h.R_CTL_SOLICITED_DATA:
            io = self._ios.get(seq.exchange)
            if io is None:
                return False
            io.received += seq.size
            command = io.command
            if io.received >= command.length:
                self._device(io, True)
            elif io.received == command.first_burst:
                self._ready(io)
        else:
            return False
        return True

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
            self.connections[ident] = TargetConnection(sqsize, request.ersp_ratio)
            self._answer(seq, CREATE_CONNECTION_ACC_SIZE,
                         LsAccept(request.association, ident, sqsize))

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
        self.nport.send(io.exchange, XFER_RDY_SIZE, 3, r_ctl=h.R_CTL_DATA_DESCRIPTOR,
                        type_=TYPE_NVME, ulp=NvmeTransferReady(io.received, left),
                        initiative=True)

    def _device(self, io: _Io, write: bool) -> None:
        command = io.command
        began = self.sim.now

        def through() -> None:
            command.device_s = self.sim.now - began
            if write:
                self._respond(io)
            else:
                self.nport.send(io.exchange, command.length, 3, r_ctl=h.R_CTL_SOLICITED_DATA,
                                type_=TYPE_NVME, ulp=NvmeTransferReady(0, command.length),
                                meter=command.meter, on_complete=lambda sent: self._respond(io))
        self.device.submit(write, command.offset + (command.nsid - 1) * self.namespace_size,
                           command.length, through)

    def _respond(self, io: _Io, status: int = SUCCESS) -> None:
        """Complete the command: an ERSP every ersp_ratio-th response of the
        connection or when the status is not success, else the shortened RSP
        (FC-NVMe; Linux ``nvmet_fc_prep_fcp_rsp``)."""
        conn = io.conn
        del self._ios[io.exchange]
        conn.held -= 1
        conn.sent += 1
        conn.responses += 1
        ersp = status != SUCCESS or conn.sent % conn.ersp_ratio == 0
        conn.ersps += ersp
        self.nport.send(io.exchange, ERSP_SIZE if ersp else RSP_SIZE, 3,
                        r_ctl=h.R_CTL_COMMAND_STATUS, type_=TYPE_NVME,
                        ulp=NvmeResponse(status, ersp), last=True)

    def reset_stats(self) -> None:
        """Start a new measured interval."""
        for conn in self.connections.values():
            conn.most = conn.held
            conn.responses = conn.ersps = conn.overruns = 0
        self.namespace_commands = [0] * self.namespaces

    def results(self) -> dict[str, object]:
        """Its connections' figures, and with several namespaces each one's
        commands."""
        out: dict[str, object] = {
            "connections": {str(i): {"sqsize": c.sqsize, "ersp_ratio": c.ersp_ratio,
                                     "max_outstanding": c.most, "responses": c.responses,
                                     "ersp": c.ersps, "overruns": c.overruns}
                            for i, c in self.connections.items()}}
        if self.namespaces > 1:
            out["namespace_commands"] = {str(n + 1): k
                                         for n, k in enumerate(self.namespace_commands)}
        return out


