"""Dynamic ingress rate limiting (Cisco MDS DIRL, NX-OS 8.5(1)): a switch
limits how fast its F_Port takes frames from a culprit device, the device's
requests, so that less data is asked for than the device can take in.

The limit acts on the credit the F_Port gives back: an F_Port with a limit
returns the R_RDYs for the frames its N_Port sent no closer together than one
full-size frame's time on its line over the limit (:class:`PacedPort`), so
the N_Port sends at most that many frames a second once its credit is spent
(Cisco DIRL limits a device's ingress by pacing the R_RDYs it is sent,
Cisco blog "Cisco introduces Dynamic Ingress Rate Limiting", 2021; counting
the limit in full-size frames is an assumption). A limit of 1 is no limit.

The feedback loop (:class:`DynamicIngressLimit`): every window, each F_Port's
TxWait over the window (:class:`fcsim.fabric.congestion.PortWindow`) is
compared with the threshold; over it, the port's limit is cut to 1 -
*reduce* of what it was (no lower than the floor); under it, raised by
*recover* of what it was, up to no limit (steps in proportion to the limit
both ways, so a limit far below the full rate, as a host's small requests
need, recovers in as many windows as it took to fall). Cisco documents the loop
(reduce while the port is congested, recover in steps after); the step
values are the scenario's (assumptions).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fcsim.engine.simulation import Simulation
from fcsim.fabric.congestion import PortWindow, holds_back
from fcsim.fabric.cures import IngressLimit
from fcsim.fabric.switch import Switch
from fcsim.fc2.frame import FRAMING_BYTES, Frame
from fcsim.fc2.port import Port
from fcsim.fc2.recovering_port import RecoveringPort

FULL_FRAME = 2112 + FRAMING_BYTES
"""Characters of a full-size frame on the line (its largest data field and
framing), the unit the limit counts frames in."""


class PacedPort(Port):
    """An F_Port's link port whose returned R_RDYs are paced: no two closer
    than :attr:`spacing` s (0: not paced, as a plain port). *more*: what the
    port class it is mixed with takes after the receive buffers."""

    def __init__(self, sim: Simulation, name: str, rx_buffers: int, *more: float) -> None:
        super().__init__(sim, name, rx_buffers, *more)  # type: ignore[call-arg]
        self.spacing = 0.0
        """Least time between two R_RDYs this port returns, s."""
        self._next_ready = 0.0  # the earliest time of the next R_RDY, s

    def limit(self, share: float) -> None:
        """Take frames at no more than *share* of the full-frame rate of the
        line (1 or more: no limit)."""
        frame = FULL_FRAME * self.char_time + self.gap_time
        self.spacing = 0.0 if share >= 1 else frame / share

    def release_buffer(self, at: float = 0.0, frame: Frame | None = None) -> None:
        """Free a receive buffer (the one *frame* held: an F_Port has one pool,
        so which does not matter); its R_RDY goes no earlier than *at* (s) and
        :attr:`spacing` after the previous one."""
        now = self.sim.now
        when = at if at > now else now
        if when < self._next_ready:
            when = self._next_ready
        self._next_ready = when + self.spacing
        if when > now:
            self._later(when - now, self._paced)
        else:
            super().release_buffer()

    def _paced(self, _value: object) -> None:
        super().release_buffer()


class PacedRecoveringPort(PacedPort, RecoveringPort):
    """A :class:`PacedPort` that recovers from link faults and resets (its
    link timeout *e_d_tov*, s, as :class:`RecoveringPort`'s)."""


def make_paced_port(sim: Simulation, name: str, rx_buffers: int, e_d_tov: float,
                    recovering: bool) -> Port:
    """An F_Port's link port that can be rate-limited, as
    :func:`fcsim.fc2.port_kinds.make_port` makes a plain one."""
    if recovering:
        return PacedRecoveringPort(sim, name, rx_buffers, e_d_tov)
    return PacedPort(sim, name, rx_buffers)


class DynamicIngressLimit:
    """The DIRL loop of *switches*' F_Ports (built as :class:`PacedPort`s), as
    *spec* says; every change of a limit is recorded (:attr:`changes`)."""

    name = "ingress_limit"

    def __init__(self, sim: Simulation, switches: Mapping[str, Switch],
                 spec: IngressLimit) -> None:
        self.sim = sim
        self.spec = spec
        self.limits: dict[str, float] = {}
        """Each F_Port's limit now, a fraction of its full rate (1: none)."""
        self.changes: list[dict[str, Any]] = []
        """Each change: the port, when (s), the new limit and the window's TxWait."""
        self._ports: list[tuple[str, PacedPort, PortWindow]] = []
        for name, switch in switches.items():
            for index, sp in sorted(switch.local.items()):
                port = sp.port
                if not isinstance(port, PacedPort):
                    raise TypeError(f"{name}:{index} was not built to be rate-limited")
                self._ports.append((f"{name}:{index}", port, PortWindow(port)))
                self.limits[f"{name}:{index}"] = 1.0
        sim.call_later(spec.window, self._poll, None)

    def _poll(self, _value: object) -> None:
        spec = self.spec
        for name, port, counters in self._ports:
            wait, _ = counters.advance()
            old = self.limits[name]
            if holds_back(wait, spec.window, spec.txwait):
                new = max(spec.floor, old * (1 - spec.reduce))
            else:
                new = min(1.0, old * (1 + spec.recover))
            if new != old:
                self.set_limit(name, port, new, wait / spec.window)
        self.sim.call_later(spec.window, self._poll, None)

    def set_limit(self, name: str, port: PacedPort, share: float, txwait: float) -> None:
        """Limit F_Port *name* (*port*) to *share* of its full rate now, the
        window having had *txwait* of TxWait (a fraction)."""
        self.limits[name] = share
        port.limit(share)
        self.changes.append({"port": name, "at_s": self.sim.now, "limit": share,
                             "txwait_fraction": txwait})

    def results(self, interval: float) -> dict[str, Any]:
        """The loop's parameters, each port's limit at the end and every change."""
        spec = self.spec
        return {"window_s": spec.window, "txwait_threshold": spec.txwait,
                "reduce": spec.reduce, "recover": spec.recover, "floor": spec.floor,
                "limits": {name: share for name, share in self.limits.items() if share < 1},
                "changes": list(self.changes)}
