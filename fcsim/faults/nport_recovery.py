"""An N_Port's side of a link that fails and comes back.

When its link fails (Link Failure, a failed port, Link Initialization) an
N_Port loses what the link held: its Class 1 connection (FC-FS: Link Failure
and Link Reset remove Class 1 connections) and the link-control frames
(ACK, busy, reject) queued for its transmitter, which are counted as lost.
Its upper layers' sequences stay queued in host memory, and those it is
given meanwhile wait with them, or are dropped, as its node's ``link_down``
says (:data:`fcsim.faults.config.LINK_DOWN_POLICIES`: by default IP
packets are dropped, as a Linux network device without carrier drops them
in its noop queueing discipline, and FCP and FC-2 sequences held, as
Linux's FC transport blocks a remote port and holds its SCSI I/O); those
still held ``dev_loss_tmo`` after the link went down are dropped then (the
transport's dev_loss_tmo, after which it fails the I/O), and so are new ones
until it is back. A dropped sequence is completed as aborted, its upper
layer told. While the link is down and until it has logged in again, the
N_Port sends only login and name-server sequences (ELS and CT).
When the link is Active again it logs in as its topology requires (a
fabric: FLOGI, the name server, PLOGI to its peers; a point-to-point link:
FLOGI both ways and PLOGI, :mod:`fcsim.fc2.p2p_login`), asking again after
the ELS timeout if a reply does not come, and then sends what waited, in
order, but for the sequences of exchanges it originated that its upper
layer gave up meanwhile (a SCSI command failed at fast_io_fail_tmo): those
are dropped. A Link Reset leaves logins and queues alone; the frames a slow receive
path (:mod:`fcsim.fc2.receive_drain`) still holds in its buffers are
discarded and counted lost.
"""

from __future__ import annotations

from collections.abc import Callable

from fcsim.faults.config import BY_PROTOCOL, DEV_LOSS_TMO, DROP, HOLD
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
    is called each time it is logged in again and sending. *link_down*
    (hold, drop or by-protocol) and *dev_loss_tmo* (s) say what becomes of
    its upper layers' sequences meanwhile."""

    def __init__(self, nport: NPort, relogin: Relogin | None,
                 on_back: Callable[[NPort, float], None], link_down: str = BY_PROTOCOL,
                 dev_loss_tmo: float = DEV_LOSS_TMO) -> None:
        self.nport = nport
        self.relogin = relogin
        self.on_back = on_back
        self.link_down, self.dev_loss_tmo = link_down, dev_loss_tmo
        self.down = False
        self.held: list[Sequence] | None = None
        self.dropped = self.dropped_bytes = 0
        self._lost = False  # dev_loss_tmo passed: everything is dropped until back
        self._episode = 0
        self._attempt = 0
        lcf: LinkControl = nport.port.lcf  # type: ignore[attr-defined]
        lcf.listeners.append(self._changed)
        if nport.drain is not None:  # a reset empties the slow receive path's buffers
            nport.port.flush_hooks.append(self._flush)  # type: ignore[attr-defined]

    def _flush(self) -> int:
        """Discard the frames the receive path holds (the link left Active) and
        count them lost; how many receive buffers they held."""
        stats = self.nport.port.lcf.stats  # type: ignore[attr-defined]
        frames = self.nport.drain.flush()  # type: ignore[union-attr]
        for frame in frames:
            stats.lose(frame)
        return sum(frame.uses_bb_credit for frame in frames)

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
        lcf.stats.frames_lost += nport.drop_link_control()
        if self.held is None:
            self._hold()

    def _hold(self) -> None:
        """Take the upper layers' sequences out of the ready queue, each exchange's
        in order, and keep new ones back until logged in."""
        nport = self.nport
        waiting = [seq for seq in nport.queued() if seq.type not in SERVICE_TYPES]
        for seq in waiting:
            nport.withdraw(seq)
        self.held = []
        for seq in waiting:
            self._hold_or_drop(seq)
        nport.hold(self)
        self._episode += 1
        nport.sim.call_later(self.dev_loss_tmo, self._dev_loss, self._episode)

    def keeps(self, seq: Sequence) -> bool:
        """The N_Port queues *seq* while holding (its
        :class:`~fcsim.fc2.nport.Keeper`): a service sequence goes out, others
        are held or dropped."""
        if seq.type in SERVICE_TYPES:
            return False
        self._hold_or_drop(seq)
        return True

    def holds(self, seq: Sequence) -> bool:
        """Whether *seq* waits for the link (rather than being dropped)."""
        if self._lost or self.link_down == DROP:
            return False
        return self.link_down == HOLD or seq.type != h.TYPE_IP

    def _hold_or_drop(self, seq: Sequence) -> None:
        if self.holds(seq):
            self.held.append(seq)  # type: ignore[union-attr]
        else:
            self._drop(seq)

    def _drop(self, seq: Sequence) -> None:
        self.dropped += 1
        self.dropped_bytes += seq.size
        self.nport.discard(seq)

    def _dev_loss(self, episode: int) -> None:
        """dev_loss_tmo after the link went down: if it is not back, what is held
        is dropped, and so is what comes until it is."""
        if episode != self._episode or self.held is None:
            return
        self._lost = True
        held, self.held = self.held, []
        for seq in held:
            if seq.status == "open":
                self._drop(seq)

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
        """Logged in: send what waited, in the order it was given, but for the
        sequences of an exchange this N_Port originated and its upper layer
        has given up meanwhile (``Exchange.abandoned``: the FC transport
        failed the command at fast_io_fail_tmo, say): those are dropped, as
        the HBA closes the exchange without sending more of it (Linux's
        ``fc_terminate_rport_io`` has the driver abort the remote port's I/O)."""
        nport = self.nport
        nport.hold(None)
        held, self.held = self.held or [], None
        self._lost = False
        self._episode += 1
        for seq in held:
            if seq.status != "open":
                continue
            if seq.exchange.abandoned and seq.exchange.originator is nport:
                self._drop(seq)
            else:
                nport.enqueue(seq)
        self.on_back(nport, nport.sim.now)
        nport.port.kick()
