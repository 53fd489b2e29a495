"""Timed fabric login of an N_Port, frame by frame.

At start an N_Port logs in with the fabric (FLOGI to FFFFFE, sent on the
login BB credit of one, whose ACC brings its N_Port ID and the F_Port's BB
credit), logs in with the name server (PLOGI to FFFFFC), asks it for
the ports of the fabric (GID_FT), and logs in with each port it will send to
(PLOGI, answered ACC by that N_Port). Its workloads start when the last ACC
arrives. Every request and answer is a Class 3 sequence through the fabric.
An N_Port also answers the PLOGIs it receives, at any time. After its link
failed and came back it logs in again the same way (:meth:`FabricLogin.restart`).
A virtual N_Port behind a physical one (NPIV) logs in with FDISC instead of
FLOGI (FC-LS-5), once the N_Port before it on the port has its N_Port ID
(:mod:`fcsim.fabric.npiv`); an FDISC the switch refuses (LS_RJT, past its
port's login limit) leaves it logged out, :attr:`FabricLogin.refused`, and
its workloads never start.
An N_Port given FC-4 TYPEs to register (an FC-NVMe controller's, so that
hosts find it by TYPE) registers them with the name server (RFT_ID, FC-GS-7)
right after the name server's login, before its GID_FT; the others register
none, as before, and the name server lists them for every TYPE
(:mod:`fcsim.fabric.services`).
In a run with faults it also registers for state changes (SCR to the fabric
controller, after the name server's login) and, told by an RSCN that peers
it sends to changed, asks the name server again (GID_FT) and logs in with
those it lists (:mod:`fcsim.fabric.rscn`).
With fabric notifications (:mod:`fcsim.fabric.notifications`) a physical
N_Port, once its FLOGI is accepted, exchanges diagnostic capabilities with
its F_Port (EDC to FFFFFE, when it takes congestion signals) and registers
for notifications with the fabric controller (RDF to FFFFFD) before the name
server's login, as Linux lpfc does after its fabric login
(``lpfc_issue_els_edc``, then ``lpfc_issue_els_rdf``; a virtual N_Port sends
neither); it never answers an FPIN (:mod:`fcsim.fc2.fpin`).
"""

from __future__ import annotations

from collections.abc import Callable

from fcsim.fabric.addressing import FABRIC_CONTROLLER, FABRIC_LOGIN, NAME_SERVER
from fcsim.fc2 import els
from fcsim.fc2 import header as h
from fcsim.fc2.els_payload import (
    gid_ft_ports,
    gid_ft_request,
    login_bb_credit,
    login_of,
    ls_acc,
    rft_id_request,
    rscn_ports,
    scr_request,
)
from fcsim.fc2.fpin import (
    ELS_FPIN,
    NOTIFICATION_TAGS,
    SIGNALS_NONE,
    edc_request,
    rdf_request,
    registered_tags,
    signal_capability,
)
from fcsim.fc2.frame import MAX_DATA_FIELD
from fcsim.fc2.login import LOGIN_BB_CREDIT, PeerLogin
from fcsim.fc2.nport import NPort
from fcsim.fc2.sequence import Exchange, Sequence

SERVICE_CLASSES = frozenset({2, 3})
FABRIC_EXCHANGES = 3
"""Exchanges an N_Port opens with the fabric at login before those with its
peers (FLOGI, the name server's PLOGI, GID_FT; no SCR in a run without
faults): its first exchange with a peer after its peers' PLOGIs has OX_ID
``FABRIC_EXCHANGES + peers``."""


class FabricLogin:
    """Logs *nport* in with the fabric, then with each N_Port ID in *targets*;
    *fdisc*: a virtual N_Port (NPIV), which logs in with FDISC; *assigned*:
    called once the fabric has answered its FLOGI or FDISC (ACC or LS_RJT);
    *fc4_types*: the FC-4 TYPEs it registers with the name server (RFT_ID;
    empty: none, no RFT_ID)."""

    def __init__(self, nport: NPort, targets: list[int], fdisc: bool = False,
                 assigned: Callable[[], None] | None = None,
                 fc4_types: frozenset[int] = frozenset()) -> None:
        self.nport = nport
        self.fc4_types = fc4_types
        self._registering: Exchange | None = None
        self.targets = targets
        self.fdisc = fdisc
        self.refused = False
        """The fabric refused its FDISC (LS_RJT): it stays logged out."""
        self._assigned = assigned
        self.rscn_queries = 0
        """Name-server queries (GID_FT) it sent after RSCNs."""
        self.rscn_logins = 0
        """PLOGIs it sent after RSCNs, to peers the name server listed again."""
        self.assigned = nport.port_id
        self.pending: set[int] = set()
        self._step: Exchange | None = None
        self.scr = False  # registers for state changes (a run with faults)
        self._query: Exchange | None = None  # a name-server query after an RSCN
        self._looking: set[int] = set()  # peers an RSCN named, to log in with again
        self.notifications = False  # registers for FPINs (RDF) after FLOGI
        self.signals_offered = (SIGNALS_NONE, 0.0)  # congestion signals it takes (EDC)
        self.signals = (SIGNALS_NONE, 0.0)
        """The congestion signals EDC settled on with its F_Port, and their period, s."""
        self.fpin_tags: tuple[int, ...] = ()
        """The notifications the fabric controller accepted its RDF for."""
        self._edc: Exchange | None = None
        self._rdf: Exchange | None = None
        for address in (FABRIC_LOGIN, NAME_SERVER):
            nport.peers[address] = PeerLogin(address, MAX_DATA_FIELD, 1, SERVICE_CLASSES)
        self._done: Callable[[], None] = nport.set_ready
        nport.port_id = 0
        nport.ready_at = None
        nport.register((h.TYPE_ELS, h.TYPE_CT), self._received)

    def start(self) -> None:
        """Send the FLOGI (call at time 0) on the login BB credit: the F_Port's
        buffers are known only from the FLOGI's LS_ACC. A virtual N_Port sends
        its FDISC on the link its physical N_Port logged in, whose credit is
        known already."""
        if self.fdisc:
            command = els.ELS_FDISC
        else:
            self.nport.port.learn_credit(LOGIN_BB_CREDIT)
            command = els.ELS_FLOGI
        self._request(FABRIC_LOGIN, self._login(command), h.R_CTL_ELS_REQUEST, h.TYPE_ELS)

    def restart(self, done: Callable[[], None]) -> None:
        """Log in again from FLOGI, as at start (a Link Failure or Link
        Initialization logs an N_Port out of the fabric, FC-FS 7.8.2); *done*
        once every ACC is back."""
        self._done = done
        self.nport.port_id = 0
        self.start()

    def _login(self, command: int) -> bytes:
        """This N_Port's FLOGI, PLOGI or ACC payload, with its service parameters."""
        return login_of(command, self.nport.name, self.nport.params)

    def _request(self, d_id: int, payload: bytes, r_ctl: int, type_: int) -> Exchange:
        exchange = self.nport.open_exchange(d_id)
        self.nport.send(exchange, len(payload), 3, r_ctl=r_ctl, type_=type_, ulp=payload)
        self._step = exchange
        return exchange

    def register_changes(self) -> None:
        """Register with the fabric controller for state changes (SCR) after the
        name server's login, and act on the RSCNs that come (a run with faults)."""
        self.scr = True
        self.nport.peers[FABRIC_CONTROLLER] = PeerLogin(FABRIC_CONTROLLER, MAX_DATA_FIELD, 1,
                                                        SERVICE_CLASSES)

    def register_notifications(self, signals: int, period: float) -> None:
        """After its FLOGI, exchange diagnostic capabilities with the F_Port
        (EDC, offering to take the congestion *signals*, a ``SIGNALS_*`` value of
        :mod:`fcsim.fc2.fpin`, every *period* s; none: no EDC) and register for
        every notification with the fabric controller (RDF)."""
        if self.fdisc:  # lpfc: a virtual port sends neither
            return
        self.notifications = True
        self.signals_offered = (signals, period)
        self.nport.peers[FABRIC_CONTROLLER] = PeerLogin(FABRIC_CONTROLLER, MAX_DATA_FIELD, 1,
                                                        SERVICE_CLASSES)

    def _logged_in(self) -> None:
        """The FLOGI was accepted: EDC, RDF, then the name server's PLOGI."""
        signals, period = self.signals_offered
        if self.notifications and signals != SIGNALS_NONE:
            self._edc = self._request(FABRIC_LOGIN, edc_request(signals, period),
                                      h.R_CTL_ELS_REQUEST, h.TYPE_ELS)
        elif self.notifications:
            self._rdf = self._request(FABRIC_CONTROLLER, rdf_request(NOTIFICATION_TAGS),
                                      h.R_CTL_ELS_REQUEST, h.TYPE_ELS)
        else:
            self._request(NAME_SERVER, self._login(els.ELS_PLOGI), h.R_CTL_ELS_REQUEST,
                          h.TYPE_ELS)

    def _diagnostics(self, seq: Sequence) -> None:
        """The LS_ACC of its EDC (then RDF) or of its RDF (then the name server)."""
        ulp = seq.ulp if isinstance(seq.ulp, bytes) else b""
        accepted = ulp[:1] == bytes([els.ELS_ACC])
        if seq.exchange is self._edc:
            self._edc = None
            if accepted:  # lpfc_least_capable_settings: the lesser signals, the longer period
                transmit, every, _, _ = signal_capability(ulp)
                offered, period = self.signals_offered
                both = min(offered, transmit)
                self.signals = (both, max(period, every)) if both else (SIGNALS_NONE, 0.0)
            self._rdf = self._request(FABRIC_CONTROLLER, rdf_request(NOTIFICATION_TAGS),
                                      h.R_CTL_ELS_REQUEST, h.TYPE_ELS)
            return
        self._rdf = None
        self.fpin_tags = registered_tags(ulp) if accepted else ()
        self._request(NAME_SERVER, self._login(els.ELS_PLOGI), h.R_CTL_ELS_REQUEST, h.TYPE_ELS)

    def _received(self, seq: Sequence, time: float) -> None:
        nport = self.nport
        if seq.r_ctl == h.R_CTL_ELS_REQUEST:  # a PLOGI from another N_Port, or an RSCN
            if isinstance(seq.ulp, bytes) and seq.ulp[:1] == bytes([ELS_FPIN]):
                return  # not answered (lpfc: "There are no replies")
            changed = isinstance(seq.ulp, bytes) and seq.ulp[0] == els.ELS_RSCN
            accept = ls_acc() if changed else self._login(els.ELS_ACC)
            nport.send(seq.exchange, len(accept), 3, r_ctl=h.R_CTL_ELS_REPLY,
                       type_=h.TYPE_ELS, last=True, ulp=accept)
            if changed:
                self._changed(rscn_ports(seq.ulp))  # type: ignore[arg-type]
            return
        exchange = seq.exchange
        if exchange.originator is not nport:
            return
        d_id = exchange.responder_id
        if exchange is self._edc or exchange is self._rdf:
            self._diagnostics(seq)
        elif d_id == FABRIC_LOGIN and exchange is self._step:
            if self._assigned is not None:
                self._assigned()
            if isinstance(seq.ulp, bytes) and seq.ulp[0] == els.ELS_LS_RJT:
                self.refused, self._step = True, None
                return
            nport.port_id = self.assigned
            if isinstance(seq.ulp, bytes) and not self.fdisc:
                nport.port.learn_credit(login_bb_credit(seq.ulp))
            self._logged_in()
        elif (d_id == NAME_SERVER and seq.type == h.TYPE_ELS and self.fc4_types
              and exchange is self._step):
            self._registering = self._request(
                NAME_SERVER, rft_id_request(self.assigned, sorted(self.fc4_types)),
                h.R_CTL_UNSOLICITED_CONTROL, h.TYPE_CT)
        elif ((d_id == NAME_SERVER and seq.type == h.TYPE_ELS and not self.scr)
              or d_id == FABRIC_CONTROLLER
              or (exchange is self._registering and not self.scr)) and exchange is self._step:
            # the name server answers with every logged-in N_Port; the query names
            # IP, the FC-4 of the hosts that use fabric login
            self._request(NAME_SERVER, gid_ft_request(h.TYPE_IP), h.R_CTL_UNSOLICITED_CONTROL,
                          h.TYPE_CT)
        elif ((d_id == NAME_SERVER and seq.type == h.TYPE_ELS) or exchange is self._registering) \
                and exchange is self._step:
            self._registering = None
            self._request(FABRIC_CONTROLLER, scr_request(), h.R_CTL_ELS_REQUEST, h.TYPE_ELS)
        elif d_id == NAME_SERVER and seq.type == h.TYPE_CT and exchange is self._step:
            self.pending = set(self.targets)
            for target in self.targets:
                self._request(target, self._login(els.ELS_PLOGI), h.R_CTL_ELS_REQUEST,
                              h.TYPE_ELS)
            self._step = None
            if not self.pending:
                self._done()
        elif d_id == NAME_SERVER and exchange is self._query:
            listed = set(gid_ft_ports(seq.ulp))  # type: ignore[arg-type]
            for target in sorted(self._looking & listed):
                self._request(target, self._login(els.ELS_PLOGI), h.R_CTL_ELS_REQUEST,
                              h.TYPE_ELS)
                self.rscn_logins += 1
            self._looking, self._query, self._step = set(), None, None
        elif d_id in self.pending and seq.r_ctl == h.R_CTL_ELS_REPLY:
            self.pending.discard(d_id)
            if not self.pending:
                self._done()

    def _changed(self, ports: list[int]) -> None:
        """An RSCN named *ports*: ask the name server which are there, to log in
        again with those it sends to."""
        wanted = set(ports) & set(self.targets)
        if wanted and self._step is None and not self.pending:
            self._looking |= wanted
            exchange = self.nport.open_exchange(NAME_SERVER)
            payload = gid_ft_request(h.TYPE_IP)
            self.nport.send(exchange, len(payload), 3, r_ctl=h.R_CTL_UNSOLICITED_CONTROL,
                            type_=h.TYPE_CT, ulp=payload)
            self._query = exchange
            self.rscn_queries += 1
