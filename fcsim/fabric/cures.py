"""What a fabric's switches are configured to do against congestion: the
cures switch vendors ship, and their parameters (the scenario's
``[congestion]`` table; docs/congestion.md).

* :class:`CreditLossRecovery`: a switch port whose transmit BB credit stays
  at zero with a frame waiting for a stated time begins the Link Reset
  protocol (FC-FS-5 link reset): Cisco MDS "credit loss recovery", after 1 s
  at zero transmit credit on an F_Port and 1.5 s on an E_Port (Cisco MDS 9000
  NX-OS Interfaces Configuration Guide, "Displaying Credit Loss Recovery
  Actions"; Cisco Press, "Detecting, Troubleshooting, and Preventing
  Congestion in Storage Networks", "Credit Loss Recovery Using Link Reset
  Protocol"); Brocade Fabric OS ``creditrecovmode`` resets a link after a
  timeout at zero credit the same way.
* :class:`Fencing`: the culprit's F_Port is disabled once its TxWait over a
  window, or its transitions to zero transmit credit in the window, reach a
  threshold (Cisco MDS port-monitor with ``portguard errordisable``, Brocade
  MAPS port fencing, :mod:`fcsim.fabric.port_guard`).
* :class:`IngressLimit`: the culprit's F_Port ingress is rate-limited while
  its TxWait is over a threshold, reduced by a step each window it is and
  recovered by a step each window it is not (Cisco MDS Dynamic Ingress Rate
  Limiting, NX-OS 8.5(1); :mod:`fcsim.fabric.ingress_limit`).
* :class:`Isolation`: the flows to a device whose F_Port's TxWait over a
  window reaches a threshold move to the low-priority virtual channel of
  every channelled ISL (Cisco MDS congestion isolation, Brocade SDDQ;
  :mod:`fcsim.fabric.congestion_isolation`).

Every cure that polls reads each F_Port's counters window by window with
:class:`fcsim.fabric.congestion.PortWindow` and compares the TxWait with its
threshold by :func:`fcsim.fabric.congestion.holds_back`.

The frame hold time (Cisco ``system timeout congestion-drop``, Brocade edge
hold time) is the switch model's ``hold_time`` (:mod:`fcsim.fabric.switch`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from fcsim.fabric.congestion import TXWAIT_CONGESTED

CREDIT_LOSS_F_PORT = 1.0
"""Time at zero transmit credit after which Cisco MDS resets an F_Port's link, s."""
CREDIT_LOSS_E_PORT = 1.5
"""Time at zero transmit credit after which Cisco MDS resets an E_Port's link, s."""


@dataclass(frozen=True)
class CreditLossRecovery:
    """Link Reset after *f_port* (F_Ports) or *e_port* (E_Ports) s at zero
    transmit BB credit with a frame waiting."""

    f_port: float = CREDIT_LOSS_F_PORT
    e_port: float = CREDIT_LOSS_E_PORT

    def __post_init__(self) -> None:
        if self.f_port <= 0 or self.e_port <= 0:
            raise ValueError("credit loss recovery times must be > 0 s")


@dataclass(frozen=True)
class Fencing:
    """Disable an F_Port whose TxWait over a *window* (s) is at least
    *txwait* of it, or which fell to zero transmit credit at least
    *credit_zero* times in the window (None: that rule is not used)."""

    window: float
    txwait: float | None = None
    credit_zero: int | None = None

    def __post_init__(self) -> None:
        if self.window <= 0:
            raise ValueError("the fencing window must be > 0 s")
        if self.txwait is None and self.credit_zero is None:
            raise ValueError("fencing needs a TxWait or a credit-zero threshold")


@dataclass(frozen=True)
class IngressLimit:
    """Dynamic ingress rate limiting: every *window* s, an F_Port whose TxWait
    over the window is at least *txwait* of it has its ingress limit
    multiplied by 1 - *reduce* (no lower than *floor*, a fraction of the
    port's full rate); one under it has it multiplied by 1 + *recover* (up to
    1: no limit)."""

    window: float
    txwait: float
    reduce: float = 0.5
    recover: float = 0.25
    floor: float = 0.001

    def __post_init__(self) -> None:
        if self.window <= 0:
            raise ValueError("the rate-limiting window must be > 0 s")
        if not (0 < self.txwait < 1 and 0 < self.reduce < 1 and 0 < self.recover <= 1
                and 0 < self.floor <= 1):
            raise ValueError("txwait and reduce in (0, 1), recover and floor in (0, 1]")


FALLING = 0.01
"""Congestion isolation's default falling threshold: TxWait under 1 % of a
window (an assumption: Cisco leaves the thresholds to the port-monitor policy)."""
WINDOW = 1.0
"""Congestion isolation's default window, s: Cisco's port monitor polls at
intervals of whole seconds (an assumption for the default; a run of
milliseconds sets its own)."""


@dataclass(frozen=True)
class Isolation:
    """Congestion isolation's rule: TxWait fractions *rising* (isolate) and
    *falling* (recover, with *recover*) over each *window* s."""

    rising: float = TXWAIT_CONGESTED
    falling: float = FALLING
    window: float = WINDOW
    recover: bool = False

    def __post_init__(self) -> None:
        if not 0 < self.rising < 1 or not 0 <= self.falling <= self.rising:
            raise ValueError("need 0 < rising < 1 and 0 <= falling <= rising")
        if self.window <= 0:
            raise ValueError("the window must be > 0 s")


@dataclass(frozen=True)
class Cures:
    """The congestion cures of a fabric's switches (each None: not used)."""

    credit_loss: CreditLossRecovery | None = None
    fencing: Fencing | None = None
    ingress_limit: IngressLimit | None = None
    isolation: Isolation | None = None

    def names(self) -> list[str]:
        """The cures configured, by their tables' names in ``[congestion]``."""
        return [name for name, spec in (("credit_loss_recovery", self.credit_loss),
                                        ("fencing", self.fencing),
                                        ("ingress_limit", self.ingress_limit),
                                        ("isolation", self.isolation)) if spec is not None]

    @property
    def recovering(self) -> bool:
        """True if a cure takes links down or resets them: the fabric is built
        with link recovery (as a fabric with faults is)."""
        return self.credit_loss is not None or self.fencing is not None


NO_CURES = Cures()
"""A fabric whose switches do nothing against congestion but what their model does."""


class CureRun(Protocol):
    """A cure at work in a built fabric (:class:`fcsim.fabric.port_guard.PortGuard`,
    :class:`fcsim.fabric.ingress_limit.DynamicIngressLimit`,
    :class:`fcsim.fabric.congestion_isolation.CongestionIsolation`): what it did, as JSON,
    under its *name* in the results' ``cures``."""

    name: str

    def results(self, interval: float) -> dict[str, Any]:
        """What it did (over the measured *interval*, s, where it counts)."""
