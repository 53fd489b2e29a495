"""Fabric services in a switch: the fabric login server and the name server.

A request addressed to a well-known address is answered by the switch it
enters, after the model's service time: FLOGI (to FFFFFE) with an ACC that
carries the N_Port ID of the port (domain / port / 00), FDISC (NPIV, FC-LS-5:
a further N_Port ID behind a port that sent its FLOGI) with an ACC carrying
domain / port / k for its k-th, up to the model's ``npiv_logins``, after
which LS_RJT (insufficient resources), PLOGI to the name
server (FFFFFC) with an ACC, the registration of a port's FC-4 TYPEs (RFT_ID,
FC-GS-7) with a CT accept, and the name-server query GID_FT with the list of
N_Port IDs that have logged in with the fabric and either registered the
TYPE asked for or registered none (the model's hosts and FCP targets do not
register: they are listed for every TYPE); with FC-3 alias groups, the
alias server's joins (FFFFF8, :mod:`fcsim.fc3.alias`); in a run with faults
the fabric controller's State Change Registrations (FFFFFD,
:mod:`fcsim.fabric.rscn`) and the SW_RSCNs other switches send its domain
controller (FFFC00 + domain), and with zones a GID_FT lists only the ports that
share a zone with the asker (:mod:`fcsim.fabric.zoning`); with fabric
notifications, EDC (to FFFFFE) and RDF (to FFFFFD,
:mod:`fcsim.fabric.notifications`). Answers are Class 3
sequences sent back out of the port the request came in on: one frame, or
for a GID_FT accept longer than a data field (more than 524 ports) several,
with relative offsets.
"""

from __future__ import annotations

from typing import Protocol

from fcsim.engine.simulation import Simulation
from fcsim.fabric.addressing import (
    ALIAS_SERVER,
    DOMAIN_CONTROLLERS,
    FABRIC_CONTROLLER,
    FABRIC_LOGIN,
    NAME_SERVER,
    port_id,
)
from fcsim.fabric.switch_model import SwitchModel
from fcsim.fabric.switch_port import SwitchPort, SwitchStats
from fcsim.fabric.zoning import Zoning
from fcsim.fc1 import ordered_sets as osets
from fcsim.fc2 import els
from fcsim.fc2 import header as h
from fcsim.fc2.els_payload import (
    CT_ACCEPT,
    ct_command,
    ct_preamble,
    gid_ft_accept,
    gid_ft_type,
    login_payload,
    ls_rjt,
    rft_id_types,
)
from fcsim.fc2.fpin import ELS_EDC, ELS_RDF
from fcsim.fc2.frame import MAX_DATA_FIELD, Frame
from fcsim.fc2.sequence import Exchange, Sequence

E_D_TOV = 2.0
"""The fabric's E_D_TOV in its login answers, s (the FC-FS default)."""


class ServedSwitch(Protocol):
    """What the services read of their switch (:class:`fcsim.fabric.switch.Switch`)."""

    name: str
    domain: int
    sim: Simulation
    model: SwitchModel
    stats: SwitchStats

    def send_from(self, out: SwitchPort, frame: Frame) -> None:
        """Send a frame the switch originates out of port *out*."""


class Registrations(Protocol):
    """The fabric controller's State Change Registrations (a run with faults,
    :class:`fcsim.fabric.rscn.FabricController`)."""

    def register(self, frame: Frame) -> bytes:
        """The answer to the SCR *frame*."""

    def switch_changed(self, switch_name: str, payload: bytes) -> None:
        """An SW_RSCN (*payload*) reached the domain controller of switch *switch_name*."""


class Diagnostics(Protocol):
    """The fabric's notifications (:class:`fcsim.fabric.notifications.FabricNotifications`):
    what answers EDC and RDF."""

    def edc(self, frame: Frame) -> bytes:
        """The F_Port's answer to the EDC *frame*."""

    def rdf(self, frame: Frame) -> bytes:
        """The fabric controller's answer to the RDF *frame*."""


class AliasService(Protocol):
    """The alias server (FC-3's alias groups, :class:`fcsim.fc3.alias.AliasServer`)."""

    def request(self, payload: object) -> bytes:
        """The answer to the Common Transport request *payload*."""


class FabricServices:
    """The services of *switch*; *directory* is the fabric-wide name-server
    list, *fc4_types* the FC-4 TYPEs its ports registered (RFT_ID), fabric-wide.

    The fabric's builders plug in the alias server (*aliases*, with FC-3 alias
    groups), the fabric controller's registrations (*controller*, in a run
    with faults) and the fabric's *zoning* (with zones); each is None without.
    """

    def __init__(self, switch: ServedSwitch, directory: set[int],
                 fc4_types: dict[int, frozenset[int]] | None = None, bb_sc_n: int = 0) -> None:
        self.switch = switch
        self.directory = directory
        self.fc4_types = fc4_types if fc4_types is not None else {}
        self.bb_sc_n = bb_sc_n
        """The BB_SC_N the switch's F_Ports offer in their FLOGI and FDISC LS_ACCs."""
        self.aliases: AliasService | None = None
        self.controller: Registrations | None = None
        self.zoning: Zoning | None = None
        self.diagnostics: Diagnostics | None = None
        """EDC and RDF's answers (with fabric notifications; None: not answered)."""
        self.fdisc_accepted: dict[int, int] = {}
        """Per F_Port index, the FDISC logins it accepted (its N_Port IDs beyond the FLOGI's)."""
        self.queries = 0
        """Name-server queries (GID_FT) it answered."""
        self.fdisc_refused: dict[int, int] = {}
        """Per F_Port index, the FDISC logins it refused past the limit."""

    def request(self, inp: SwitchPort, frame: Frame) -> None:
        """Answer the service request *frame* that came in on *inp*."""
        if frame.sequence is None:
            return
        self.switch.stats.service_payload_in += frame.payload_len
        ulp = frame.sequence.ulp
        if (self.diagnostics is not None and isinstance(ulp, bytes) and frame.type == h.TYPE_ELS
                and ulp[0] in (ELS_EDC, ELS_RDF)):
            answer = (self.diagnostics.edc(frame) if ulp[0] == ELS_EDC
                      else self.diagnostics.rdf(frame))
            self._answer(inp, frame, h.R_CTL_ELS_REPLY, h.TYPE_ELS, answer, frame.s_id)
        elif (frame.d_id == FABRIC_LOGIN and frame.type == h.TYPE_ELS
                and isinstance(ulp, bytes) and ulp[0] == els.ELS_FDISC):
            self._fdisc(inp, frame)
        elif frame.d_id == FABRIC_LOGIN and frame.type == h.TYPE_ELS:
            assigned = port_id(self.switch.domain, inp.index)
            self.directory.add(assigned)
            self._answer(inp, frame, h.R_CTL_ELS_REPLY, h.TYPE_ELS,
                         self._accept(f"{self.switch.name}:{inp.index}", inp.port.rx_buffers,
                                      self.bb_sc_n), assigned)
        elif frame.d_id == NAME_SERVER and frame.type == h.TYPE_ELS:
            self._answer(inp, frame, h.R_CTL_ELS_REPLY, h.TYPE_ELS,
                         self._accept(f"{self.switch.name} name server",
                                      self.switch.model.bb_credit), frame.s_id)
        elif (frame.d_id == NAME_SERVER and frame.type == h.TYPE_CT and isinstance(ulp, bytes)
              and ct_command(ulp) == els.CT_RFT_ID):
            port, types = rft_id_types(ulp)
            self.fc4_types[port] = types
            self._answer(inp, frame, h.R_CTL_SOLICITED_CONTROL, h.TYPE_CT,
                         ct_preamble(CT_ACCEPT, 0), frame.s_id)
        elif frame.d_id == NAME_SERVER and frame.type == h.TYPE_CT:
            self.queries += 1
            ports = (sorted(self.directory) if self.zoning is None
                     else self.zoning.visible(frame.s_id, self.directory))
            if self.fc4_types and isinstance(ulp, bytes):
                wanted = gid_ft_type(ulp)
                ports = [p for p in ports
                         if wanted in self.fc4_types.get(p, frozenset((wanted,)))]
            self._answer(inp, frame, h.R_CTL_SOLICITED_CONTROL, h.TYPE_CT,
                         gid_ft_accept(ports), frame.s_id)
        elif (frame.d_id == FABRIC_CONTROLLER and frame.type == h.TYPE_ELS and self.controller
              and frame.sequence.r_ctl == h.R_CTL_ELS_REQUEST):  # an SCR; not an RSCN's LS_ACC
            self._answer(inp, frame, h.R_CTL_ELS_REPLY, h.TYPE_ELS,
                         self.controller.register(frame), frame.s_id)
        elif (frame.d_id >> 8 == DOMAIN_CONTROLLERS and self.controller
              and isinstance(ulp, bytes)):  # an SW_RSCN from another switch: its RSCNs
            self.controller.switch_changed(self.switch.name, ulp)  # go after the service time
        elif frame.d_id == ALIAS_SERVER and frame.type == h.TYPE_CT and self.aliases:
            self._answer(inp, frame, h.R_CTL_SOLICITED_CONTROL, h.TYPE_CT,
                         self.aliases.request(frame.sequence.ulp), frame.s_id)

    def _fdisc(self, inp: SwitchPort, frame: Frame) -> None:
        """An FDISC on F_Port *inp*: the next N_Port ID behind it (domain /
        port / k for the k-th), or LS_RJT past the model's limit."""
        index = inp.index
        k = self.fdisc_accepted.get(index, 0) + 1
        if k > self.switch.model.npiv_logins:
            self.fdisc_refused[index] = self.fdisc_refused.get(index, 0) + 1
            self._answer(inp, frame, h.R_CTL_ELS_REPLY, h.TYPE_ELS,
                         ls_rjt(els.LS_RJT_UNABLE, els.LS_RJT_NO_RESOURCES), frame.s_id)
            return
        self.fdisc_accepted[index] = k
        assigned = port_id(self.switch.domain, index) | k
        self.directory.add(assigned)
        self._answer(inp, frame, h.R_CTL_ELS_REPLY, h.TYPE_ELS,
                     self._accept(f"{self.switch.name}:{index}", inp.port.rx_buffers,
                                  self.bb_sc_n), assigned)

    def _accept(self, name: str, bb_credit: int, bb_sc_n: int = 0) -> bytes:
        """The LS_ACC of a login with the fabric port *name*: its *bb_credit*
        (an F_Port's receive buffers) and *bb_sc_n*, full data fields, Classes
        2 and 3 (no end-to-end credit)."""
        return login_payload(els.ELS_ACC, name, bb_credit, MAX_DATA_FIELD,
                             frozenset({2, 3}), 255, 0, E_D_TOV, bb_sc_n)

    def _answer(self, inp: SwitchPort, request: Frame, r_ctl: int, type_: int,
                payload: bytes, d_id: int) -> None:
        self.send(inp, request.sequence.exchange, request.seq_id + 1 & 0xFF,  # type: ignore[union-attr]
                  r_ctl, type_, payload, d_id, request.d_id,
                  h.F_CTL_EXCHANGE_CONTEXT | h.F_CTL_SEQUENCE_CONTEXT | h.F_CTL_RELATIVE_OFFSET)

    def send(self, out: SwitchPort, exchange: Exchange, seq_id: int, r_ctl: int, type_: int,
             payload: bytes, d_id: int, s_id: int, f_ctl: int) -> None:
        """Send *payload* from the service at *s_id* to *d_id* out of port *out*,
        after the model's service time: a Class 3 sequence *seq_id* of
        *exchange* with the F_CTL bits *f_ctl*, in as many frames as it needs."""
        sim = self.switch.sim
        size = len(payload)
        reply = Sequence(exchange, d_id, seq_id, size, 3, MAX_DATA_FIELD, sim.now, r_ctl, type_)
        reply.ulp = payload
        reply.f_ctl = f_ctl
        self.switch.stats.service_payload_out += size
        frames = []
        for cnt in range(reply.n_frames):  # a long accept (GID_FT of many ports) spans frames
            offset = cnt * MAX_DATA_FIELD
            last = cnt == reply.n_frames - 1
            bits = reply.f_ctl | (h.F_CTL_LAST_SEQUENCE | h.F_CTL_END_SEQUENCE if last else 0)
            frames.append(Frame(
                osets.SOFi3 if cnt == 0 else osets.SOFn3, osets.EOFt if last else osets.EOFn,
                r_ctl, d_id, s_id, type_, bits, reply.seq_id, cnt, exchange.ox_id, 0,
                min(MAX_DATA_FIELD, size - offset), 3, None, offset, 0, 0, reply))

        def send(_event: object = None) -> None:
            for frame in frames:
                self.switch.send_from(out, frame)

        delay = self.switch.model.service_time
        if delay > 0:
            sim.call_later(delay, send)
        else:
            send()
