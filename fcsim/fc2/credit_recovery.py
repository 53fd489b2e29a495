"""Buffer-to-buffer credit recovery (FC-FS-5 BB_SC_N; FC-FS-2 onwards): a
lost R_RDY or frame comes back at the next checkpoint, not at a Link Reset.

Both ports of a link offer BB_SC_N at login (the common service parameters'
word 1, bits 15-12, :func:`fcsim.fc2.els_payload.login_payload`); if either
offers 0 the link has no credit recovery, otherwise both use the larger
(:func:`negotiated_bb_sc_n`). With it, M = 2^BB_SC_N and each port counts,
modulo M:

- frames sent (those that use BB credit): after each M-th it sends the
  primitive signal BB_SCs. The receiver counts the frames it received since
  the last BB_SCs; when BB_SCs comes, M less that count (modulo M) frames
  were lost on the way, and it sends an R_RDY for each: their credit goes
  back to the sender;
- R_RDYs sent: after each M-th it sends BB_SCr. The sender of the frames
  counts the R_RDYs it received since the last BB_SCr; when BB_SCr comes, M
  less that count (modulo M) R_RDYs were lost, and it adds them to its
  credit.

Counting modulo M recovers a lost BB_SCs or BB_SCr at the next one, and up
to M - 1 losses in one interval. Each BB_SC primitive takes one transmission
word in the fill words after a frame, as an R_RDY does. The counters start
from zero when the port enters Active (a Link Reset zeroes them, as it
restores the credit).

Sources: the field and its meaning, "the sender of the PLOGI or FLOGI frame
is requesting 2 power BB_SC_N number of frames to be sent between two
consecutive BB_SCs primitives, and 2 power BB_SC_N number of R_RDY
primitives to be sent between two consecutive BB_SCr primitives" (Cisco
CISCO-FC-FE-MIB, fcIfBbScn, after FC-FS); the counters "BB_RDY_N counts the
number of R_RDY primitives received modulo 2^BB_SC_N; BB_FRM_N counts the
number of frames received modulo 2^BB_SC_N" (Brocade Fabric OS
Administrator's Guide 53-1002148-02, "Buffer credit recovery"); the larger
value is used, none if either offers 0 (Cisco Press, "Storage Networking
Fundamentals"-style account of FLOGI/ELP negotiation).

Frames and R_RDYs are only lost in a run with faults, so only there does a
port recover credit: the builder makes a :class:`CreditRecoveringPort` of
each end of a link whose negotiated BB_SC_N is not zero when the network
recovers from faults (:func:`fcsim.fc2.port_kinds.make_port`); every
other port is as before and costs nothing more per frame.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fcsim.fc2.recovering_port import RECEIVED, RecoveringPort

if TYPE_CHECKING:
    from fcsim.engine.simulation import Simulation
    from fcsim.fc2.frame import Frame

BB_SC_N_MAX = 15
"""The largest BB_SC_N: a 4-bit field (word 1, bits 15-12)."""
BB_SCS, BB_SCR = "BB_SCs", "BB_SCr"
"""The two primitive signals, as trace sinks are told them."""


def negotiated_bb_sc_n(a: int, b: int) -> int:
    """The BB_SC_N a link whose ends offer *a* and *b* uses: 0 (no credit
    recovery) if either offers 0, else the larger."""
    for n in (a, b):
        if not 0 <= n <= BB_SC_N_MAX:
            raise ValueError(f"BB_SC_N must be 0..{BB_SC_N_MAX}, got {n}")
    return 0 if a == 0 or b == 0 else max(a, b)


class CreditRecoveryStats:
    """What one port's credit recovery did since the last reset: the BB_SCs
    and BB_SCr it sent, the R_RDYs it returned for frames lost on their way to
    it (*frames_recovered*) and the credit it restored for R_RDYs lost on
    their way to it (*credit_recovered*)."""

    __slots__ = ("bb_scs_tx", "bb_scr_tx", "frames_recovered", "credit_recovered")

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Zero every counter."""
        self.bb_scs_tx = self.bb_scr_tx = self.frames_recovered = self.credit_recovered = 0

    def as_dict(self) -> dict[str, int]:
        """The counters by name."""
        return {name: getattr(self, name) for name in self.__slots__}


class CreditRecoveringPort(RecoveringPort):
    """A :class:`RecoveringPort` whose link uses BB_SC_N *bb_sc_n* (1..15)."""

    def __init__(self, sim: Simulation, name: str, rx_buffers: int, e_d_tov: float,
                 bb_sc_n: int) -> None:
        if not 1 <= bb_sc_n <= BB_SC_N_MAX:
            raise ValueError(f"{name}: BB_SC_N must be 1..{BB_SC_N_MAX}, got {bb_sc_n}")
        super().__init__(sim, name, rx_buffers, e_d_tov)
        self.bb_sc_n = bb_sc_n
        self.modulus = 1 << bb_sc_n
        self.recovery = CreditRecoveryStats()
        self.recovered_at: list[float] = []
        """When each recovery (a BB_SCs or BB_SCr that found losses) happened, s."""
        self._frames_tx = self._frames_rx = self._r_rdy_tx = self._r_rdy_rx = 0

    # -- counting --------------------------------------------------------------------

    def _send_next(self, _event: object = None) -> None:
        credit, r_rdys = self.credit, self.stats.r_rdy_rx
        super()._send_next(_event)
        if credit + self.stats.r_rdy_rx - r_rdys > self.credit:  # a frame spent a credit
            self._frames_tx += 1
            if self._frames_tx == self.modulus:
                self._frames_tx = 0
                self.recovery.bb_scs_tx += 1
                self._send_bb_sc(BB_SCS)

    def send_r_rdy(self) -> None:
        """Send an R_RDY if Active, and BB_SCr after every M-th."""
        sent = self.stats.r_rdy_tx
        super().send_r_rdy()
        if self.stats.r_rdy_tx != sent:
            self._r_rdy_tx += 1
            if self._r_rdy_tx == self.modulus:
                self._r_rdy_tx = 0
                self.recovery.bb_scr_tx += 1
                self._send_bb_sc(BB_SCR)

    def _absorb(self, now: float) -> float | None:
        counted = self.stats.r_rdy_rx
        arrived = super()._absorb(now)
        self._r_rdy_rx = (self._r_rdy_rx + self.stats.r_rdy_rx - counted) % self.modulus
        return arrived

    def _receive(self, frame: Frame) -> None:
        heard = self.stats.frames_rx
        super()._receive(frame)
        if frame.uses_bb_credit and self.stats.frames_rx != heard:  # not lost: it took a
            self._frames_rx += 1                                    # buffer, even with an error

    # -- the checkpoints ---------------------------------------------------------------

    def _send_bb_sc(self, name: str) -> None:
        """Send primitive signal *name* in the next free fill word."""
        now = self.sim.now
        start = self.line_free if self.line_free > now else now
        end = start + self.word_time
        self.line_free = end
        if end > self.gap_end:
            self.gap_end = end
        if self.sinks:
            for sink in self.sinks:
                sink.primitive(now, self, name, start)
        peer: CreditRecoveringPort = self.peer  # type: ignore[assignment]
        handler = peer._bb_scs_arrived if name == BB_SCS else peer._bb_scr_arrived
        self._later(end + self.delay - now, handler, end + self.delay - self.word_time)

    def _bb_scs_arrived(self, start: float) -> None:
        """BB_SCs (heard from *start*, s): return an R_RDY for each frame lost
        since the last one."""
        if self.fate(start, self.sim.now) != RECEIVED:
            return
        lost = (self.modulus - self._frames_rx) % self.modulus
        self._frames_rx = 0
        if lost:
            self.recovery.frames_recovered += lost
            self.recovered_at.append(self.sim.now)
            for _ in range(lost):
                self.send_r_rdy()

    def _bb_scr_arrived(self, start: float) -> None:
        """BB_SCr (heard from *start*, s): restore the credit of each R_RDY lost
        since the last one."""
        if self.fate(start, self.sim.now) != RECEIVED:
            return
        self._absorb(self.sim.now)
        lost = (self.modulus - self._r_rdy_rx) % self.modulus
        self._r_rdy_rx = 0
        if lost:
            self.recovery.credit_recovered += lost
            self.recovered_at.append(self.sim.now)
            self.credit += lost
            if self._zero_since is not None:
                self.stats.credit_zero_time += self.sim.now - self._zero_since
                self._zero_since = None
            if self._stall_since is not None:
                self.stats.credit_wait += self.sim.now - self._stall_since
                self._stall_since = None
            self.kick()

    # -- state -------------------------------------------------------------------------

    def state_changed(self, old: str, new: str) -> None:
        """As :class:`RecoveringPort`; entering Active also zeroes the counters."""
        super().state_changed(old, new)
        if new != old:
            self._frames_tx = self._frames_rx = self._r_rdy_tx = self._r_rdy_rx = 0

    def reset_stats(self) -> None:
        """Start a new measurement interval (the recovery counters too)."""
        super().reset_stats()
        self.recovery.reset()
