"""Which link-level port a builder makes: the plain :class:`~fcsim.fc2.port.Port`
of a fault-free run, whose per-frame path has no fault check; a
:class:`~fcsim.fc2.recovering_port.RecoveringPort` in a run with faults; and
there, on a link that negotiated BB_SC_N, a
:class:`~fcsim.fc2.credit_recovery.CreditRecoveringPort`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fcsim.fc2.credit_recovery import CreditRecoveringPort
from fcsim.fc2.port import Port
from fcsim.fc2.recovering_port import RecoveringPort

if TYPE_CHECKING:
    from fcsim.engine.simulation import Simulation


def make_port(sim: Simulation, name: str, rx_buffers: int, e_d_tov: float,
              recovering: bool, bb_sc_n: int = 0) -> Port:
    """The link-level port *name* with *rx_buffers* receive buffers that a
    builder makes: if the network is *recovering* (its scenario has faults), a
    :class:`RecoveringPort` whose link timeout is *e_d_tov* (s), one that
    recovers lost credit if its link negotiated *bb_sc_n* (not 0,
    :func:`~fcsim.fc2.credit_recovery.negotiated_bb_sc_n`); else a plain
    :class:`Port`."""
    if not recovering:
        return Port(sim, name, rx_buffers)
    if bb_sc_n:
        return CreditRecoveringPort(sim, name, rx_buffers, e_d_tov, bb_sc_n)
    return RecoveringPort(sim, name, rx_buffers, e_d_tov)
