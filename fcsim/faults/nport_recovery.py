"""An N_Port's side of a link that fails and comes back.

When its link fails (Link Failure, a failed port, Link Initialization) an
N_Port loses what the link held: its Class 1 connection (FC-FS: Link Failure
and Link Reset remove Class 1 connections) and the link-control frames
(ACK, busy, reject) queued for its transmitter, which are counted as lost.
Its upper layers' sequences stay queued in host memory, and those it is
given meanwhile wait with them: while the link is down and until it has
logged in again, it sends only login and name-server sequences (ELS and CT).
When the link is Active again it logs in as its topology requires (a
fabric: FLOGI, the name server, PLOGI to its peers; a point-to-point link:
FLOGI both ways and PLOGI, :mod:`fcsim.fc2.p2p_login`), asking again after
the ELS timeout if a reply does not come, and then sends what waited, in
order. A Link Reset leaves logins and queues alone.
"""

from __future__ import annotations

from collections.abc import Callable

from fcsim.fc2 import header as h
from fcsim.fc2.link_recovery import LinkControl
from fcsim.fc2.login import ELS_TIMEOUT
from fcsim.fc2.nport import NPort
from fcsim.fc2.port_states import AC, DOWN
from fcsim.fc2.sequence import Sequence

Relogin = Callable[[NPort, Callable[[], None]], None]
"""Logs an N_Port in again and calls back when done."""
SERVICE_TYPES = (h.TYPE_ELS, h.TYPE_CT)
"""FC-4 types of the sequences an N_Port sends while it logs in again."""


class NPortRecovery:
    """Recovery of *nport*: *relogin* logs it in again (None: logins take no
    time, as a fabric without ``run.login`` has them). *on_back(nport, time)*
    is called each time it is logged in again and sending."""

    def __init__(self, nport: NPort, relogin: Relogin | None,
                 on_back: Callable[[NPort, float], None]) -> None:
        self.nport = nport
        self.relogin = relogin
        self.on_back = on_back
        self.down = False
        self.held: list[Sequence] | None = None
        self._attempt = 0
        lcf: LinkControl = nport.port.lcf  # type: ignore[attr-defined]
        lcf.listeners.append(self._changed)

    def _changed(self, lcf: LinkControl, old: str, new: str, reason: str) -> None:
        if new in DOWN:
            if not self.down:
                self.down = True
                self._link_lost(lcf)
        elif new == AC and self.down:
            self.down = False
            self._log_in()

    def _link_lost(self, lcf: LinkControl) -> None:
        nport = self.nport
        nport.connection = None
        lcf.stats.frames_lost += len(nport._control)
        nport._control.clear()
        if self.held is None:
            self._hold()

    def _hold(self) -> None:
        """Take the upper layers' sequences out of the ready queue, each exchange's
        in order, and keep new ones back until logged in."""
        nport = self.nport
        held = [seq for stream in nport._streams.values() for seq in stream
                if seq.type not in SERVICE_TYPES]
        for seq in held:
            nport._ready_remove(seq)
        self.held = held
        nport._ready_add = self._keep  # type: ignore[method-assign]

    def _keep(self, seq: Sequence) -> None:
        """The N_Port queues *seq* while holding: a service sequence goes out."""
        if seq.type in SERVICE_TYPES:
            NPort._ready_add(self.nport, seq)
        else:
            self.held.append(seq)  # type: ignore[union-attr]

    def _log_in(self) -> None:
        if self.relogin is None:
            self._release()
            return
        self._attempt += 1
        attempt = self._attempt
        self.relogin(self.nport, lambda: self._logged_in(attempt))
        self.nport.sim.call_later(ELS_TIMEOUT, self._check, attempt)

    def _logged_in(self, attempt: int) -> None:
        if attempt == self._attempt and not self.down and self.held is not None:
            self._release()

    def _check(self, attempt: int) -> None:
        """The ELS timeout after a login began: ask again if it is not done."""
        if attempt == self._attempt and not self.down and self.held is not None:
            self._log_in()

    def _release(self) -> None:
        """Logged in: send what waited, in the order it was given."""
        nport = self.nport
        del nport._ready_add
        held, self.held = self.held or [], None
        for seq in held:
            if seq.status == "open":
                nport._ready_add(seq)
        self.on_back(nport, nport.sim.env._now)
        nport.port.kick()
