"""Explicit login of the two N_Ports of a point-to-point link.

At the start of a run point-to-point login is implicit and takes no time
(:mod:`fcsim.topology.point_to_point`); after the link failed and came back
the two N_Ports log in again frame by frame, as FC-LS defines it for a
point-to-point topology: each sends FLOGI and answers the other's with an
LS_ACC (an N_Port that receives FLOGI knows it faces another N_Port, not a
fabric); the N_Port with the higher N_Port_Name then sends PLOGI, which the
other answers with LS_ACC. Each is logged in again when its last part is
done: the PLOGI's sender when the ACC arrives, its recipient when its ACC is
sent. Requests and replies are Class 3 ELS sequences, 116 bytes each.
"""

from __future__ import annotations

from collections.abc import Callable

from fcsim.fc2 import els
from fcsim.fc2 import header as h
from fcsim.fc2.els_payload import login_of, port_name
from fcsim.fc2.nport import NPort
from fcsim.fc2.sequence import Exchange, Sequence


class PointToPointLogin:
    """Logs N_Ports *a* and *b*, which share a link, in with each other again."""

    def __init__(self, a: NPort, b: NPort) -> None:
        self.peer_of = {a: b, b: a}
        self._done: dict[NPort, Callable[[], None]] = {}
        self._flogi: dict[NPort, Exchange] = {}
        self._plogi: dict[NPort, Exchange] = {}
        for nport in (a, b):
            nport.register((h.TYPE_ELS,), self._handler(nport))

    def start(self, nport: NPort, done: Callable[[], None]) -> None:
        """*nport*'s link is Active again: send its FLOGI; *done* once it is
        logged in with its peer."""
        self._done[nport] = done
        self._flogi[nport] = self._request(nport, els.ELS_FLOGI)

    def _request(self, nport: NPort, command: int) -> Exchange:
        exchange = nport.open_exchange(self.peer_of[nport].port_id)
        payload = login_of(command, nport.name, nport.params)
        nport.send(exchange, len(payload), 3, r_ctl=h.R_CTL_ELS_REQUEST, type_=h.TYPE_ELS,
                   ulp=payload)
        return exchange

    def _handler(self, nport: NPort) -> Callable[[Sequence, float], bool]:
        """*nport*'s ELS handler: it takes the login sequences."""
        def received(seq: Sequence, time: float) -> bool:
            ulp = seq.ulp
            if isinstance(ulp, bytes) and ulp[0] in (els.ELS_FLOGI, els.ELS_PLOGI, els.ELS_ACC):
                self._login_received(nport, seq)
                return True
            return False
        return received

    def _login_received(self, nport: NPort, seq: Sequence) -> None:
        command = seq.ulp[0]  # type: ignore[index]
        if seq.r_ctl == h.R_CTL_ELS_REQUEST:
            accept = login_of(els.ELS_ACC, nport.name, nport.params)
            finished = (lambda _seq: self._finish(nport)) if command == els.ELS_PLOGI else None
            nport.send(seq.exchange, len(accept), 3, r_ctl=h.R_CTL_ELS_REPLY,
                       type_=h.TYPE_ELS, last=True, ulp=accept, on_complete=finished)
        elif seq.exchange is self._flogi.get(nport):
            peer = self.peer_of[nport]
            if port_name(nport.name) > port_name(peer.name):
                self._plogi[nport] = self._request(nport, els.ELS_PLOGI)
        elif seq.exchange is self._plogi.get(nport):
            self._finish(nport)

    def _finish(self, nport: NPort) -> None:
        done = self._done.pop(nport, None)
        if done is not None:
            done()
