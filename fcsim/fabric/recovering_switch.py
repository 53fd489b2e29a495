"""A switch in a run with faults: the links of its ports fail and come back.

The fabric's builder makes every switch of a run with faults a
:class:`RecoveringSwitch` (a plain :class:`~fcsim.fabric.switch.Switch`
otherwise, whose queueing step checks nothing), and the fabric's recovery
(:mod:`fcsim.faults.fabric_recovery`) tells it which ports fail:

- a port that leaves Active (Link Reset, Link Failure, a failed port or
  switch) empties its receive buffers: the frames queued in the switch from
  that input are lost (:meth:`RecoveringSwitch.lose_input`);
- a port whose link failed loses the frames queued to leave through it
  (their input buffers are freed, with R_RDYs upstream) and its Class 1
  reservations (:meth:`RecoveringSwitch.port_failed`); a frame routed to it
  before the failure was known is lost when it reaches its queue, until the
  port is Active again (:meth:`RecoveringSwitch.port_back`).

Every frame lost is counted in the fabric's *losses*.

In-order delivery across route changes (*in_order*, a flush time; None:
off, the default of both Brocade Fabric OS, ``iodset``, and Cisco MDS,
``in-order-guarantee``): when new routes change the next hops towards a
domain, the switch stops forwarding frames towards that domain for the
flush time, so that the frames already on the old path leave the fabric
before any frame takes the new one (Cisco MDS 9000 Family Configuration
Guide, In-Order Delivery: "an intentional pausing of fabric forwarding to
purge the fabric of resident frames that could potentially be forwarded
out-of-order", for the network drop latency; its default, 2000 ms, is the
one that guide's "Configuring the Drop Latency Time" gives as recalled, its
text not retrieved for this model: an assumption to check; Brocade Fabric
OS Command Reference, ``iodSet``: "enforces a sufficient delay between the
event that causes an existing path to be removed and the establishment of a
new path"). A frame routed towards
such a domain during the pause waits in its input buffer (its BB credit is
not returned) and is queued for its output, in the order it was routed, when
the pause ends; frames towards other domains pass. The switch's hold time
counts from then (an assumption: neither vendor says whether the pause counts
towards the frame's age). Brocade drops the frames that arrive during the delay
instead of holding them; that variant is not modelled.
"""

from __future__ import annotations

from bisect import insort
from collections import deque

from fcsim.engine.simulation import Simulation
from fcsim.fabric.routing import Choose
from fcsim.fabric.switch import Switch
from fcsim.fabric.switch_model import SwitchModel
from fcsim.fabric.switch_port import Held, SwitchPort
from fcsim.fc2.link_recovery import FrameLosses


class RecoveringSwitch(Switch):
    """A switch whose ports can fail (see the module docstring); the frames it
    loses are counted in *losses* (shared by the switches of a fabric)."""

    def __init__(self, sim: Simulation, name: str, domain: int, model: SwitchModel,
                 routing: str | None = None, losses: FrameLosses | None = None,
                 in_order: float | None = None) -> None:
        super().__init__(sim, name, domain, model, routing)
        self.losses = FrameLosses() if losses is None else losses
        self.failed: set[SwitchPort] = set()
        """The ports whose link has failed and is not Active again."""
        self.in_order = in_order
        """The flush time of in-order delivery after a route change, s (None: off)."""
        self.paused: dict[int, list[Held]] = {}
        """Per destination domain whose forwarding is paused, the frames held, in order."""
        self.pauses: list[tuple[float, int]] = []
        """When forwarding towards which domain was paused (in-order delivery): (s, domain)."""

    def set_routing(self, routes: dict[int, list[SwitchPort]], pick: Choose) -> None:
        """Take new routes; with in-order delivery, pause forwarding towards
        each domain whose next hops changed (not at the first routing)."""
        if self.in_order is not None and self.routes:
            old = self.routes
            for domain in sorted(set(old) | set(routes)):
                if old.get(domain) != routes.get(domain) and domain not in self.paused:
                    self.paused[domain] = []
                    self.pauses.append((self.sim.now, domain))
                    self.sim.call_later(self.in_order, self._resume, domain)
        super().set_routing(routes, pick)

    def _resume(self, domain: int) -> None:
        """The flush time towards *domain* is over: queue the frames held, in order."""
        for held in self.paused.pop(domain):
            self._queue(held)

    def _queue(self, held: Held) -> None:
        """Queue a routed frame, unless its output's link has failed (it was
        routed before the failure was known): then it is lost, its input
        buffer freed; or hold it while forwarding towards its domain is
        paused (in-order delivery)."""
        if self.paused:
            waiting = self.paused.get(held.frame.d_id >> 16)
            if waiting is not None:
                waiting.append(held)
                return
        if held.out in self.failed:
            self.losses.lose(held.frame)
            if held.inp is not None:
                self.free_input(held.inp, held.frame, held.free_at)
        else:
            super()._queue(held)

    def port_failed(self, sp: SwitchPort) -> None:
        """The link of port *sp* failed: the frames queued to leave by it are
        lost and its Class 1 reservations end."""
        self.failed.add(sp)
        self.lose_output(sp)
        for other in self.ports.values():
            if other is sp or other.reserved_to is sp:
                other.reserved = other.reserved_to = None

    def port_back(self, sp: SwitchPort) -> None:
        """The link of port *sp* is Active again."""
        self.failed.discard(sp)

    def lose_input(self, sp: SwitchPort) -> int:
        """Lose the frames queued from input *sp* (its receive buffers were
        emptied); how many buffers they held."""
        now = self.sim.now
        queues = list(sp.voq.values()) if self.model.virtual_output_queues else [sp.fifo]
        freed = 0
        for queue in queues:
            for held in queue:
                self._drop(held, now)
                freed += held.frame.uses_bb_credit
            queue.clear()
        for domain, waiting in self.paused.items():  # held by in-order delivery
            lost = [held for held in waiting if held.inp is sp]
            for held in lost:
                self.losses.lose(held.frame)
                freed += held.frame.uses_bb_credit
            self.paused[domain] = [held for held in waiting if held.inp is not sp]
        self._wait_again()
        return freed

    def lose_output(self, sp: SwitchPort) -> None:
        """Lose the frames queued to leave by output *sp*, freeing their inputs."""
        now = self.sim.now
        for inp in self._inputs:
            if self.model.virtual_output_queues:
                queue = inp.voq.get(sp.index, deque())
                gone = list(queue)
                queue.clear()
            else:
                gone = [held for held in inp.fifo if held.out is sp]
                inp.fifo = deque(held for held in inp.fifo if held.out is not sp)
            for held in gone:
                self._drop(held, now)
                self.free_input(inp, held.frame, held.free_at)
        internal = self._internal
        for held in [held for held in internal if held.out is sp]:
            internal.remove(held)
            self._drop(held, now)
        self._wait_again()

    def _drop(self, held: Held, now: float) -> None:
        """Lose queued *held*, which leaves its output's queue."""
        held.out.queue.leave(now, now - held.queued)
        self.losses.lose(held.frame)

    def _wait_again(self) -> None:
        """Rebuild which inputs each output waits for, and wake every output."""
        for sp in self.ports.values():
            sp.waiting = []
        for inp in self._inputs:
            if self.model.virtual_output_queues:
                for index, queue in inp.voq.items():
                    if queue:
                        insort(self.ports[index].waiting, inp.pos)
            elif inp.fifo:
                insort(inp.fifo[0].out.waiting, inp.pos)
        for sp in self.ports.values():
            sp.port.kick()
