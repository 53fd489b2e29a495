"""Port fencing: a switch's port monitor disables the F_Port of a culprit.

Every window the monitor reads each F_Port's transmit counters over the
window (:class:`fcsim.fabric.congestion.PortWindow`: TxWait and transitions
to zero credit, the counters of :mod:`fcsim.fabric.congestion`) and fences a
port whose TxWait is at least the stated fraction of the window, or whose
credit fell to zero at least the stated number of times in it: Cisco MDS's
port-monitor with ``portguard errordisable`` (a rising threshold on the
``tx-wait`` or ``tx-credit-not-available`` counter over its poll interval
error-disables the port), Brocade MAPS's FENCE action (Fabric OS MAPS
User Guide). A fenced port is disabled as a failed port is
(:meth:`fcsim.fc2.link_recovery.LinkControl.power_off`): its N_Port loses
light and leaves the fabric (the name server forgets it, RSCNs go out), the
frames queued for it are discarded and counted, and frames for it that
arrive later are refused (Class 3 discarded). It stays disabled: an
administrator enables it again.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fcsim.engine.simulation import Simulation
from fcsim.fabric.congestion import PortWindow, holds_back
from fcsim.fabric.cures import Fencing
from fcsim.fabric.switch import Switch
from fcsim.fabric.switch_port import SwitchPort


class PortGuard:
    """The port monitors of *switches*, fencing as *spec* says; each fence is
    recorded with its time (:attr:`fenced`)."""

    name = "fencing"

    def __init__(self, sim: Simulation, switches: Mapping[str, Switch], spec: Fencing) -> None:
        self.sim = sim
        self.spec = spec
        self.fenced: list[dict[str, Any]] = []
        """Each fence: the port, its device, when (s) and what the window held."""
        self._watched = [(f"{name}:{index}", sp, PortWindow(sp.port))
                         for name, switch in switches.items()
                         for index, sp in sorted(switch.local.items())]
        sim.call_later(spec.window, self._poll, None)

    def _poll(self, _value: object) -> None:
        """Read every watched F_Port's window; fence those over a threshold."""
        spec = self.spec
        window = spec.window
        kept = []
        for name, sp, counters in self._watched:
            wait, zeros = counters.advance()
            if ((spec.txwait is not None and holds_back(wait, window, spec.txwait))
                    or (spec.credit_zero is not None and zeros >= spec.credit_zero)):
                self._fence(name, sp, wait / window, zeros)
            else:
                kept.append((name, sp, counters))
        self._watched = kept
        if kept:
            self.sim.call_later(window, self._poll, None)

    def _fence(self, name: str, sp: SwitchPort, fraction: float, zeros: int) -> None:
        """Disable F_Port *sp* (*name*) now."""
        peer = sp.port.peer
        self.fenced.append({"port": name, "device": peer.name if peer is not None else None,
                            "at_s": self.sim.now, "txwait_fraction": fraction,
                            "credit_zero": zeros})
        sp.port.lcf.power_off()  # type: ignore[attr-defined]

    def results(self, interval: float) -> dict[str, Any]:
        """The thresholds and every fence, as JSON."""
        spec = self.spec
        return {"window_s": spec.window, "txwait_threshold": spec.txwait,
                "credit_zero_threshold": spec.credit_zero, "fenced": list(self.fenced)}
