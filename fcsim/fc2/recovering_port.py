"""A link-level port that can fail and recover: :class:`~fcsim.fc2.port.Port`
with a Link Control Facility (:mod:`fcsim.fc2.link_recovery`).

The builder of a network whose scenario has faults makes every Fibre Channel
port of it a :class:`RecoveringPort` (:func:`fcsim.fc2.port_kinds.make_port`);
one without makes the plain :class:`Port`, whose per-frame path has no fault check at all.
What the recovering port adds:

- It sends frames and R_RDYs only while Active.
- It receives a frame only while Active and only if its receiver heard the
  whole of it: a frame that overlaps a loss of light or of synchronisation,
  or whose start-of-frame delimiter was corrupted, is lost (it takes no
  buffer and so returns no R_RDY: its BB credit is lost too); one whose
  other characters were corrupted is received with a transmission error and
  dropped as the CRC check finds it. R_RDYs lost the same way cost credit.
- Link timeout (FC-FS 7.8.3; FC-FS's "link timeout", 22.5.2): BB credit at
  zero with frames waiting and no R_RDY for E_D_TOV begins the Link Reset
  protocol. E_D_TOV is the N_Port's login value, the fabric's (2 s, FC-PH
  default) on switch ports.
- Leaving Active empties its receive buffers: *flush_hooks* (the owner's)
  discard the frames they hold; buffers still being handed on are freed
  without an R_RDY. Entering Active restores the BB credit to the login value
  and sends six Idles before the first frame.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from fcsim.fc2.link_recovery import LinkControl
from fcsim.fc2.port import Port
from fcsim.fc2.port_states import AC, IDLES_ON_ENTRY, LR1, SOF_CHARACTERS

if TYPE_CHECKING:
    from fcsim.engine.simulation import Simulation
    from fcsim.fc2.frame import Frame

RECEIVED, CORRUPTED, LOST = 0, 1, 2
"""What became of a transmission at a recovering port's receiver
(:meth:`RecoveringPort.fate`)."""


class RecoveringPort(Port):
    """A :class:`Port` with a Link Control Facility :attr:`lcf`, Active from
    the start; *e_d_tov* is the link timeout, s. It is the
    :class:`~fcsim.fc2.link_recovery.ControlledPort` of its :attr:`lcf`."""

    def __init__(self, sim: Simulation, name: str, rx_buffers: int, e_d_tov: float) -> None:
        super().__init__(sim, name, rx_buffers)
        self.lcf = LinkControl(self)
        self.e_d_tov = e_d_tov
        self.flush_hooks: list[Callable[[], int]] = []
        """Called when the port leaves Active: each discards the frames its owner
        holds in this port's receive buffers and returns how many buffers it freed."""
        self._stale = 0  # buffers freed by a reset whose frames are still handed on
        self._credit_seen = 0.0  # when BB credit last arrived, s
        self._timing = False  # a link timeout check is pending

    # -- transmitter -------------------------------------------------------------

    @property
    def drained(self) -> bool:
        """Always false: a recovering port keeps an event at the end of every
        gap, because the R_RDYs that event counts in may later be cleared or
        lost by the link's recovery (see :mod:`fcsim.fc2.port`)."""
        return False

    @drained.setter
    def drained(self, _value: bool) -> None:
        """The owner's mark is not used."""

    def _send_next(self, _event: object = None) -> None:
        if self.lcf.state != AC:
            self._busy = False
            return
        super()._send_next(_event)
        if self._stall_since is not None and not self._timing:
            self._timing = True
            self.sim.call_later(self.e_d_tov, self._link_timeout, None)

    def _absorb(self, now: float) -> float | None:
        arrived = super()._absorb(now)
        if arrived is not None:
            self._credit_seen = arrived
        return arrived

    def _link_timeout(self, _value: object) -> None:
        """E_D_TOV after a credit stall began: a Link Reset if no credit came."""
        self._timing = False
        now = self.sim.now
        self._absorb(now)
        if self.credit > 0 or self.lcf.state != AC or not self.owner.waits_for_credit():  # type: ignore[union-attr]
            return
        waited = now - self._credit_seen
        if waited >= self.e_d_tov * (1 - 1e-9):
            self.lcf.enter(LR1, f"link timeout: no R_RDY for E_D_TOV ({self.e_d_tov:g} s)")
        else:
            self._timing = True
            self.sim.call_later(self.e_d_tov - waited, self._link_timeout, None)

    def send_r_rdy(self) -> None:
        """Send an R_RDY if Active; one the peer does not hear is lost."""
        if self.lcf.state != AC:
            return
        super().send_r_rdy()
        peer: RecoveringPort = self.peer  # type: ignore[assignment]
        arrival = peer._r_rdys[-1]
        if peer.fate(arrival - self.word_time, arrival) != RECEIVED:
            peer._r_rdys.pop()
            peer.lcf.stats.r_rdy_lost += 1

    def lose_r_rdys(self, start: float, end: float) -> None:
        """R_RDYs on their way to this port that arrive from *start* to *end* (s)
        are lost."""
        kept = [a for a in self._r_rdys if not start <= a <= end]
        self.lcf.stats.r_rdy_lost += len(self._r_rdys) - len(kept)
        self._r_rdys.clear()
        self._r_rdys.extend(kept)

    # -- receiver ----------------------------------------------------------------

    def _receive(self, frame: Frame) -> None:
        now = self.sim.now
        duration = frame.chars * self.char_time
        start = now - duration if self.header_notice is None else now - self.header_notice
        fate = self.fate(start, start + duration)
        if fate == LOST:
            self.lose(frame)
            return
        if fate == CORRUPTED:
            frame.corrupt = True
        super()._receive(frame)

    def lose(self, frame: Frame) -> None:
        """Count *frame* as lost on its way to (or in the buffers of) this port."""
        self.lcf.stats.lose(frame)

    def release_buffer(self, at: float = 0.0, frame: Frame | None = None) -> None:
        """Free a receive buffer, not before *at* (s); one emptied by a reset
        was freed already."""
        if self._stale and at <= self.sim.now:
            self._stale -= 1
            return
        super().release_buffer(at, frame)

    def fate(self, start: float, end: float) -> int:
        """What became of a transmission that reached the receiver from *start*
        to *end* (s): :data:`RECEIVED`, :data:`CORRUPTED`, or :data:`LOST`
        (nothing heard, its start-of-frame delimiter corrupted, or the port not
        Active)."""
        lcf = self.lcf
        if lcf.state != AC or not lcf.receiving or lcf.ok_since > start + 1e-15:
            return LOST
        verdict = RECEIVED
        sof_end = start + SOF_CHARACTERS * self.char_time
        for first, last, lost in lcf.impairments:
            if first < end and last > start:
                if lost or first < sof_end:
                    return LOST
                verdict = CORRUPTED
        return verdict

    # -- state -------------------------------------------------------------------

    def state_changed(self, old: str, new: str) -> None:
        """The Link Control Facility went from *old* to *new* (called by it)."""
        now = self.sim.now
        if old == AC:
            freed = sum(hook() for hook in self.flush_hooks)
            self._stale += self.buffers_used - freed
            self.buffers_used = 0
            self._r_rdys.clear()
            if self._stall_since is not None:
                self.stats.credit_wait += now - self._stall_since
                self._stall_since = None
        if new == AC:
            self.credit = self.credit_login
            if self._zero_since is not None:  # the reset restores the credit
                self.stats.credit_zero_time += now - self._zero_since
                self._zero_since = None
            self._r_rdys.clear()
            self._credit_seen = now
            self.gap_end = max(self.gap_end, max(now, self.line_free)
                                + IDLES_ON_ENTRY * self.word_time)
