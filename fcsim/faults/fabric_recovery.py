"""A fabric's side of faults: what a switch does when one of its links fails,
resets or comes back, and FSPF's answer.

- A switch port that leaves Active (Link Reset, Link Failure, a failed port
  or switch) empties its receive buffers: the frames queued in the switch
  from that input are lost and counted.
- A switch port whose link failed loses the frames queued to leave through
  it (their input buffers are freed, with R_RDYs upstream) and its Class 1
  reservations. If it is an F_Port, the switch no longer routes to its
  N_Port (frames for it are refused: F_RJT for Class 2, discarded for
  Class 3), the name server forgets it (an implicit logout) and the fabric
  controller sends an RSCN (:mod:`fcsim.fabric.rscn`); when the N_Port has
  logged in again, another. If it is an E_Port, FSPF computes the routes
  again (:func:`fcsim.topology.fabric.route`) over the ISLs whose two ends
  are Active, and traffic moves to the paths left; the ISL is used again
  once both its ends are Active. Every switch gets its new routes when the
  failure is detected: the flooding of FSPF's link state updates, its
  hold-down timers and E_Port initialisation (ELP, ESC, EFP) are not
  modelled.
"""

from __future__ import annotations

from bisect import insort
from collections import deque
from collections.abc import Callable
from typing import Any

from fcsim.engine.simulation import Simulation
from fcsim.fabric.addressing import port_id
from fcsim.fabric.rscn import FabricController
from fcsim.fabric.switch import Switch
from fcsim.fabric.switch_port import Held, SwitchPort
from fcsim.fc2.link_recovery import FrameLosses, LinkControl
from fcsim.fc2.port import uses_bb_credit
from fcsim.fc2.port_states import AC, DOWN
from fcsim.topology.fabric import FabricNetwork, route


class FabricRecovery:
    """The recovery of the switches of *net*; *note(text)* is told of each
    change of routes and each RSCN, for the incident records."""

    def __init__(self, sim: Simulation, net: FabricNetwork, note: Callable[[str], None]) -> None:
        self.sim, self.net, self.note = sim, net, note
        self.stats = FrameLosses()  # the frames the switches lost
        self.controller = FabricController(list(net.switches.values()))
        self.reroutes: list[dict[str, Any]] = []
        self._pending = False
        self._causes: list[str] = []
        self._down: set[SwitchPort] = set()
        self._isl_ports = {sp for ends in net.isl_ends.values() for sp in ends.values()}
        self._f_ports = {sp for switch in net.switches.values() for sp in switch.local.values()}
        for switch in net.switches.values():
            switch.services.controller = self.controller  # type: ignore[union-attr]
            switch._queue = self._queuer(switch, switch._queue)  # type: ignore[method-assign]
            for sp in switch.ports.values():
                lcf: LinkControl = sp.port.lcf  # type: ignore[attr-defined]
                lcf.listeners.append(self._listener(switch, sp))
                sp.port.flush_hooks.append(  # type: ignore[attr-defined]
                    lambda switch=switch, sp=sp: self._flush_input(switch, sp))

    def _queuer(self, switch: Switch, queue: Callable[[Held], None]) -> Callable[[Held], None]:
        """*switch*'s queueing of a routed frame: one for an output whose link has
        failed (routed before the failure was known) is lost."""
        def queue_or_lose(held: Held) -> None:
            if held.out in self._down:
                self._drop_unqueued(switch, held)
            else:
                queue(held)
        return queue_or_lose

    def _listener(self, switch: Switch, sp: SwitchPort) -> Callable[..., None]:
        def changed(lcf: LinkControl, old: str, new: str, reason: str) -> None:
            if new in DOWN and sp not in self._down:
                self._down.add(sp)
                self._failed(switch, sp, reason)
            elif new == AC and sp in self._down:
                self._down.discard(sp)
                self._back(switch, sp)
        return changed

    # -- a link fails or comes back -------------------------------------------------

    def _failed(self, switch: Switch, sp: SwitchPort, reason: str) -> None:
        self._flush_output(switch, sp)
        for other in switch.ports.values():
            if other is sp or other.reserved_to is sp:
                other.reserved = other.reserved_to = None
        if sp in self._isl_ports:
            self._reroute(f"{switch.name}:{sp.index} {reason}")
        elif sp in self._f_ports:
            del switch.local[sp.index]
            address = port_id(switch.domain, sp.index)
            switch.services.directory.discard(address)  # type: ignore[union-attr]
            self._notify(address, f"{switch.name}:{sp.index} left the fabric")

    def _back(self, switch: Switch, sp: SwitchPort) -> None:
        if sp in self._isl_ports:
            self._reroute(f"{switch.name}:{sp.index} Active again")
        elif sp in self._f_ports:
            switch.local[sp.index] = sp

    def logged_in(self, address: int, name: str) -> None:
        """N_Port *name* at *address* has logged in again: tell the others."""
        self._notify(address, f"{name} logged in again")

    def _notify(self, address: int, why: str) -> None:
        sent = self.controller.notify(address)
        if sent:
            self.note(f"RSCN for {address:06X} ({why}) to {sent} N_Port"
                      f"{'s' if sent > 1 else ''}")

    def _reroute(self, cause: str) -> None:
        """Compute routes once, after everything that happens now."""
        self._causes.append(cause)
        if not self._pending:
            self._pending = True
            self.sim.call_later(0.0, self._route_now, None)

    def _route_now(self, _value: object) -> None:
        self._pending = False
        net = self.net
        up = [isl for isl in net.isls
              if all(sp.port.lcf.state == AC  # type: ignore[attr-defined]
                     for sp in net.isl_ends[isl[2]].values())]
        route(net, up)
        now = self.sim.env._now
        causes, self._causes = self._causes, []
        self.reroutes.append({"at_s": now, "causes": causes, "isls_in_use": len(up)})
        self.note(f"routes recomputed (FSPF): {len(up)} of {len(net.isls)} ISLs in use")
        for switch in net.switches.values():
            for sp in switch.ports.values():
                sp.port.kick()

    # -- the frames inside ---------------------------------------------------------------

    def _drop(self, held: Held, now: float) -> None:
        held.out.queue.leave(now, now - held.queued)
        self.stats.lose(held.frame)

    def _drop_unqueued(self, switch: Switch, held: Held) -> None:
        """Lose a frame that never joined a queue, freeing its input buffer."""
        self.stats.lose(held.frame)
        if held.inp is not None:
            switch.free_input(held.inp, held.frame, held.free_at)

    def _flush_input(self, switch: Switch, sp: SwitchPort) -> int:
        """Lose the frames queued from input *sp*; how many buffers they held."""
        now = self.sim.env._now
        queues = list(sp.voq.values()) if switch.model.virtual_output_queues else [sp.fifo]
        freed = 0
        for queue in queues:
            for held in queue:
                self._drop(held, now)
                freed += uses_bb_credit(held.frame)
            queue.clear()
        self._wait_again(switch)
        return freed

    def _flush_output(self, switch: Switch, sp: SwitchPort) -> None:
        """Lose the frames queued to leave by output *sp*, freeing their inputs."""
        now = self.sim.env._now
        for inp in switch._inputs:
            if switch.model.virtual_output_queues:
                queue = inp.voq.get(sp.index, deque())
                gone, kept = list(queue), deque()
                queue.clear()
            else:
                gone = [held for held in inp.fifo if held.out is sp]
                kept = deque(held for held in inp.fifo if held.out is not sp)
                inp.fifo = kept
            for held in gone:
                self._drop(held, now)
                switch.free_input(inp, held.frame, held.free_at)
        internal = switch._internal
        for held in [held for held in internal if held.out is sp]:
            internal.remove(held)
            self._drop(held, now)
        self._wait_again(switch)

    def _wait_again(self, switch: Switch) -> None:
        """Rebuild which inputs each output waits for, and wake every output."""
        for sp in switch.ports.values():
            sp.waiting = []
        for inp in switch._inputs:
            if switch.model.virtual_output_queues:
                for index, queue in inp.voq.items():
                    if queue:
                        insort(switch.ports[index].waiting, inp.pos)
            elif inp.fifo:
                insort(inp.fifo[0].out.waiting, inp.pos)
        for sp in switch.ports.values():
            sp.port.kick()

    def results(self) -> dict[str, Any]:
        """Routes recomputed, frames the switches lost and RSCNs sent, as JSON."""
        return {"reroutes": self.reroutes, "frames_lost": self.stats.frames_lost,
                "payload_lost_bytes": self.stats.payload_lost,
                "rscn_sent": self.controller.sent}
