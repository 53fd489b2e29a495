"""An FCP initiator that slows its own I/O when the fabric says its port is congested.

Linux lpfc's congestion management framework (CMF, ``lpfc_cmf_timer``) in
its "managed" mode limits the bytes the host may issue in each interval of
``LPFC_CMF_INTERVAL`` (90 ms) and holds what is over in the driver; the
limit falls when the adapter sees congestion (Congestion FPINs or congestion
signals, warnings and alarms counted separately) and rises back towards the
line rate when they stop. The arithmetic of the fall and the rise is in the
adapter's firmware and not published, so the rule here is stated as an
assumption, additive increase and multiplicative decrease (as TCP answers a
loss, RFC 5681), on the commands the initiator keeps outstanding (for
commands of one size, bytes per interval and commands outstanding are the
same limit by Little's law):

* on a Congestion FPIN for its own port, or a congestion signal: the limit
  becomes the commands outstanding (or the limit, if lower) times
  ``ALARM_FACTOR`` (1/2) for an alarm, ``WARNING_FACTOR`` (3/4) for a warning,
  rounded down, at least one; at most one fall per notification period (an
  FPIN and the signals of the same period count once);
* after each *recovery* interval (lpfc's 90 ms by default) with no
  notification, the limit rises by one command; when it reaches the
  outstanding count at which throttling began, the limit is lifted.

Commands over the limit wait, in order, in the initiator
(:meth:`fcsim.fc4.fcp_initiator.FcpInitiator.limit_outstanding`; an FC-NVMe
host's likewise) and are sent as completions or a rise make room: the
application sees them as latency.
A Peer Congestion FPIN (a target's port is congested) does not change the
limit: lpfc's CMF acts on its own port's congestion.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Protocol

from fcsim.engine.simulation import Simulation
from fcsim.fc2.fpin import SEVERITY_ALARM, Congestion, CongestionSignal, Descriptor
from fcsim.fc4.outstanding import HeldCommands

CMF_INTERVAL = 0.090
"""lpfc's congestion management interval, s (``LPFC_CMF_INTERVAL``, 90 ms)."""
ALARM_FACTOR = 0.5
"""What an alarm leaves of the limit (an assumption, TCP's halving)."""
WARNING_FACTOR = 0.75
"""What a warning leaves of the limit (an assumption)."""


@dataclass(frozen=True)
class ThrottlePolicy:
    """How an initiator throttles: *recovery* s without a notification per
    step of one command back up."""

    recovery: float = CMF_INTERVAL


class Throttled(Protocol):
    """What a throttle reads of its initiator and asks of it."""

    @property
    def in_flight(self) -> int:
        """Commands outstanding now."""

    @property
    def held(self) -> HeldCommands[Any]:
        """The commands it holds back over the limit."""

    def release(self) -> None:
        """Send the commands held back while the limit allows."""


class CongestionThrottle:
    """The limit on the outstanding commands of one initiator, moved by the
    notifications of its N_Port (an ``FpinListener`` and ``SignalListener``
    of :mod:`fcsim.fc2.fpin`) under *policy*."""

    def __init__(self, sim: Simulation, policy: ThrottlePolicy) -> None:
        self.sim, self.policy = sim, policy
        self.limit: int | None = None
        """Commands it may keep outstanding (None: no limit)."""
        self.ceiling = 0
        """The outstanding count when throttling began."""
        self.changes: list[tuple[float, int | None]] = []
        """Each change of the limit, with its time, s."""
        self.falls = 0
        self.rises = 0
        self._initiator: Throttled | None = None
        self._last_event = -math.inf
        self._last_fall = -math.inf
        self._rising = False

    def attach(self, initiator: Throttled) -> None:
        """Throttle *initiator* (set when the network is built)."""
        self._initiator = initiator

    def allows(self, outstanding: int) -> bool:  # an OutstandingLimit
        """True if one more command may go with *outstanding* out."""
        return self.limit is None or outstanding < self.limit

    # -- what comes in ------------------------------------------------------------

    def fpin_received(self, port_name: int, descriptor: Descriptor) -> None:
        """A Congestion FPIN for its own port lowers the limit."""
        if isinstance(descriptor, Congestion):
            self._congested(descriptor.severity, descriptor.period)

    def signal_received(self, port_name: int, signal: CongestionSignal) -> None:
        """A congestion signal lowers the limit."""
        self._congested(signal.severity, signal.period)

    def _congested(self, severity: int, period: float) -> None:
        now = self.sim.now
        self._last_event = now
        if now - self._last_fall < period * (1 - 1e-9):
            return
        self._last_fall = now
        outstanding = self._initiator.in_flight if self._initiator is not None else 0
        if self.limit is None:
            self.ceiling = max(outstanding, 1)
            base = self.ceiling
        else:
            base = min(self.limit, max(outstanding, 1))
        factor = ALARM_FACTOR if severity == SEVERITY_ALARM else WARNING_FACTOR
        self._set(max(1, math.floor(base * factor)))
        self.falls += 1
        if not self._rising:
            self._rising = True
            self.sim.call_later(self.policy.recovery, self._recover)

    def _recover(self, _event: object = None) -> None:
        """A recovery interval passed: one step up if it was quiet."""
        quiet_since = self._last_event + self.policy.recovery
        now = self.sim.now
        if now < quiet_since * (1 - 1e-12):
            self.sim.call_later(quiet_since - now, self._recover)
            return
        assert self.limit is not None
        self.rises += 1
        if self.limit + 1 >= self.ceiling:
            self._set(None)
            self._rising = False
        else:
            self._set(self.limit + 1)
            self._last_event = now  # the next step one interval on
            self.sim.call_later(self.policy.recovery, self._recover)
        if self._initiator is not None:
            self._initiator.release()

    def _set(self, limit: int | None) -> None:
        if limit != self.limit:
            self.limit = limit
            self.changes.append((self.sim.now, limit))

    def results(self) -> dict[str, Any]:
        """The limit's changes and counts."""
        limits = [limit for _, limit in self.changes if limit is not None]
        held = self._initiator.held.held_back if self._initiator is not None else 0
        return {"falls": self.falls, "rises": self.rises, "held_back": held,
                "min_limit": min(limits) if limits else None,
                "limit": self.limit,
                "changes": [[t, limit] for t, limit in self.changes]}

