"""A loop circuit: the two ports of one tenancy and the path between them.

The opener won arbitration and sent OPN(yx); the opened port received it.
While the circuit lasts, frames and R_RDYs go only between the two, over the
ports between them, which repeat: :meth:`Circuit.join` gives a port the
circuit's BB credit and path (:meth:`fcsim.loop.lport.LPort.enter_circuit`);
:meth:`~fcsim.loop.lport.LPort.leave_circuit` takes them away (credit does
not outlive a tenancy). A LIP aborts the circuit: a frame still in flight
when the LIP reaches its receiver is lost.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fcsim.loop.ring import Ring

if TYPE_CHECKING:
    from fcsim.fc2.frame import Frame
    from fcsim.loop.lport import LPort

INF = float("inf")


class Circuit:
    """One loop tenancy: *opener* won at *won_at* (s) and opened *opened*.

    *to_opened* / *to_opener*: path delays between the two, s. *arb_seen_at*:
    when another port's ARB first reaches the opener, s. *sent*: frames the
    opener has sent. *live* turns False when the tenancy ends or a LIP aborts
    it; *cut_opened* / *cut_opener* are then when the LIP reached each port
    (frames arriving later are lost).
    """

    __slots__ = ("opener", "opened", "won_at", "to_opened", "to_opener", "arb_seen_at",
                 "sent", "live", "cut_opened", "cut_opener", "_ring", "_sim")

    def __init__(self, ring: Ring, opener: LPort, opened: LPort, won_at: float) -> None:
        self.opener = opener
        self.opened = opened
        self.won_at = won_at
        self.to_opened = ring.path(opener.index, opened.index)
        self.to_opener = ring.path(opened.index, opener.index)
        self.arb_seen_at = INF
        self.sent = 0
        self.live = True
        self.cut_opened = self.cut_opener = INF
        self._ring = ring
        self._sim = opener.sim

    def join(self, port: LPort, opener: bool) -> None:
        """*port* enters the circuit: its credit (the peer's login BB credit), the
        R_RDYs it owes, and the path its frames take."""
        peer = self.opened if opener else self.opener
        hops = self._ring.hops(port.index, peer.index)
        if opener:
            port.enter_circuit(self, peer, hops, self.to_opened, self.deliver_to_opened,
                               self.won_at)
        else:
            port.enter_circuit(self, peer, hops, self.to_opener, self.deliver_to_opener, None)

    def deliver_to_opened(self, frame: Frame) -> None:
        """A frame from the opener reaches the opened port (or is lost to a LIP)."""
        if self._sim.now >= self.cut_opened:
            self.opened.lose(frame)
        else:
            self.opened.receive(frame, self.opener)

    def deliver_to_opener(self, frame: Frame) -> None:
        """A frame from the opened port reaches the opener (or is lost to a LIP)."""
        if self._sim.now >= self.cut_opener:
            self.opener.lose(frame)
        else:
            self.opener.receive(frame, self.opened)
