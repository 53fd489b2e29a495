"""Round-trip time estimation and the retransmission timeout.

Jacobson/Karels (SIGCOMM 1988; RFC 6298 section 2) as 4.4BSD tcp_xmit_timer
does it: the first sample sets SRTT = R and RTTVAR = R/2; later samples
update SRTT += (R - SRTT)/8 and RTTVAR += (|R - SRTT| - RTTVAR)/4; the
timeout is SRTT + 4 RTTVAR, bounded by [rto_min, rto_max]. Each timeout backs
off by the BSD ``tcp_backoff`` table (1, 2, 4, ..., 64, 64, ...). Karn's rule
(only segments sent once are timed; a valid sample clears the backoff) is
applied by the caller, which times one segment at a time as BSD does
(t_rtt/t_rtseq). BSD counts in 500 ms slow-timer ticks; fcsim in seconds.
"""

from __future__ import annotations

BACKOFF = (1, 2, 4, 8, 16, 32, 64, 64, 64, 64, 64, 64, 64)
"""4.4BSD tcp_timer.c tcp_backoff[]: timeout multiplier per retransmission."""


class RttEstimator:
    """Smoothed RTT, its mean deviation and the (backed-off) timeout, s.

    Before the first sample SRTT is 0 and RTTVAR is a quarter of
    *rto_initial*, so the timeout formula gives *rto_initial*.
    """

    __slots__ = ("rto_min", "rto_max", "srtt", "rttvar", "measured", "shift")

    def __init__(self, rto_initial: float, rto_min: float, rto_max: float) -> None:
        self.rto_min = rto_min
        self.rto_max = rto_max
        self.srtt = 0.0
        """Smoothed round-trip time, s; 0 until the first sample."""
        self.rttvar = rto_initial / 4
        """Smoothed mean deviation of the round-trip time, s."""
        self.measured = False
        """True once a sample has set SRTT (cleared again after long backoff)."""
        self.shift = 0
        """Retransmissions of the oldest unacknowledged segment (t_rxtshift)."""

    def sample(self, rtt: float) -> None:
        """Fold in one measured round-trip time *rtt*, s, and clear the backoff."""
        if self.measured:
            delta = rtt - self.srtt
            self.srtt += delta / 8
            self.rttvar += (abs(delta) - self.rttvar) / 4
        else:
            self.srtt = rtt
            self.rttvar = rtt / 2
            self.measured = True
        self.shift = 0

    def _backoff(self) -> int:
        return BACKOFF[min(self.shift, len(BACKOFF) - 1)]

    @property
    def rto(self) -> float:
        """The current timeout with the backoff applied, s."""
        base = min(max(self.srtt + 4 * self.rttvar, self.rto_min), self.rto_max)
        if not self.shift:  # no backoff: BACKOFF[0] is 1 and base is within rto_max
            return base
        return min(base * self._backoff(), self.rto_max)

    def back_off(self) -> None:
        """A timeout: the next one waits one step longer in the backoff table.

        After a quarter of the table (BSD ``TCP_MAXRXTSHIFT / 4``) SRTT is
        folded into RTTVAR (keeping the timeout) and cleared, so the next sample
        restarts the estimate, as tcp_timers() does.
        """
        self.shift += 1
        if self.shift > (len(BACKOFF) - 1) // 4 and self.measured:
            self.rttvar += self.srtt / 4
            self.srtt = 0.0
            self.measured = False

    def persist_interval(self, persist_min: float, persist_max: float) -> float:
        """Persist-timer interval, s: (SRTT + 2 RTTVAR) x backoff within [min, max].

        4.4BSD tcp_setpersist(); the caller advances :attr:`shift` per probe.
        """
        base = (self.srtt + 2 * self.rttvar) * self._backoff()
        return min(max(base, persist_min), persist_max)


__all__ = ["BACKOFF", "RttEstimator"]
