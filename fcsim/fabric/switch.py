"""A Fibre Channel switch: F_Ports and E_Ports around a crossbar.

Each switch port owns a link-level :class:`~fcsim.fc2.port.Port`, whose
receive buffers are the BB credit the switch offers. A frame that arrives is
routed (by D_ID: to a local F_Port in the switch's own domain, else to an
E_Port towards the destination domain, one of several of equal cost chosen
by the switch's routing policy, :mod:`fcsim.fabric.routing`), waits the routing latency (from its
header with cut-through, from its EOF with store-and-forward) and the shared
central router if the model has one, and then queues at its input: in one
FIFO per input (head-of-line blocking: a head frame waiting for a busy output
holds up the frames behind it) or in one queue per output (virtual output
queues). An output transmitter that is free and has credit pulls the next
frame, taking inputs in turn; an input feeds the crossbar one frame at a time
at its link speed (times the model's crossbar speedup). An input an output
passed over because it was feeding another output has the output's next
turn, and the output waits for it then: two outputs that pull in step would
otherwise pass it over every time and starve it. The turns are iSLIP's grant
rule (McKeown, IEEE/ACM Trans. Networking 7(2), 1999: an output's pointer
moves one beyond an input only when the input takes the grant, so the input
served in a busy one's place is served again after it); the wait is this
model's, in place of iSLIP's accept arbiter at the input (docs/model.md,
*crossbar input contention*). The input buffer, and
with it one BB credit (an R_RDY upstream), is freed when the frame crosses the
crossbar, and never before its EOF is in: a cut-through switch reads each word
out of the input buffer the routing latency after it arrived, as it did the
header, so the buffer frees no earlier than the routing latency after the
EOF arrived (store-and-forward, the crossing itself starts that late). A frame
the switch refuses, discards or answers itself on arrival frees its buffer
once it is whole (at once with store-and-forward, at its EOF with
cut-through); one refused after waiting its hold time, as if it had crossed.

Classes: Class 3 waits on credit (discarded only past the model's hold
time). Class 2 is answered F_BSY when its destination port is in a Class 1
connection with another port or it waited past the hold time; an unknown
destination gets F_RJT. A Class 1 connect (SOFc1) reserves its input and
output port for the connection, or is answered F_BSY if either is taken; the
reservation ends when the ACK ending in EOFdt passes, or when the connect is
refused. A damaged frame is discarded at the input by a store-and-forward
switch; a cut-through one counts the CRC error and passes it on ending in
EOFni (FC-FS-5), which the ports after it count as an invalid frame.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections import deque
from collections.abc import Mapping
from typing import Protocol

from fcsim.engine.simulation import Simulation
from fcsim.fabric.addressing import DOMAIN_CONTROLLERS, WELL_KNOWN_LOW, area_of, domain_of
from fcsim.fabric.hard_zoning import ZonedFPort
from fcsim.fabric.routing import Choose
from fcsim.fabric.services import FabricServices
from fcsim.fabric.switch_model import SwitchModel
from fcsim.fabric.switch_port import HEADER_CHARS, Held, SwitchPort, SwitchStats
from fcsim.fc1 import ordered_sets as osets
from fcsim.fc2 import header as h
from fcsim.fc2.frame import Frame
from fcsim.fc2.port import Port

F_RJT_INVALID_D_ID = 0x01  # F_RJT reason: no port at the D_ID (FC-FS reason codes)


class DiscardWatch(Protocol):
    """What is told of each frame the hold time removes (the fabric's Delivery
    notifications, :class:`fcsim.fabric.notifications.FabricNotifications`)."""

    def hold_time_discard(self, out: SwitchPort, frame: Frame) -> None:
        """*frame*, queued for output *out*, was removed after the hold time."""


class AliasRouting(Protocol):
    """The routing step for addresses outside the switch's own tables (FC-3's
    alias groups, :class:`fcsim.fc3.alias_router.AliasRouter`), plugged in when
    the fabric is built; without it such a frame is refused (F_RJT)."""

    def route(self, switch: Switch, inp: SwitchPort, frame: Frame) -> SwitchPort | None:
        """The output for *frame*, or None when it has been dealt with
        (replicated into copies the switch sends, or refused)."""

    def crossed(self, frame: Frame) -> None:
        """*frame* (a data frame) crossed the switch's crossbar."""


class Switch:
    """Switch *name* of *domain* (1..239) built as *model*, choosing among
    equal-cost next hops by *routing* (None: the model's policy)."""

    def __init__(self, sim: Simulation, name: str, domain: int, model: SwitchModel,
                 routing: str | None = None) -> None:
        self.sim = sim
        self.name = name
        self.domain = domain
        self.model = model
        self.routing = model.routing if routing is None else routing
        """How it chooses among equal-cost next hops (:data:`fcsim.fabric.routing.POLICIES`)."""
        self.ports: dict[int, SwitchPort] = {}
        self.local: dict[int, SwitchPort] = {}
        self.routes: dict[int, list[SwitchPort]] = {}
        self.services: FabricServices | None = None
        """What answers frames for well-known addresses (None: they are discarded)."""
        self.aliases: AliasRouting | None = None
        """The routing step for alias addresses (FC-3's alias groups), if any."""
        self.discards: DiscardWatch | None = None
        """Told of each frame the hold time removes (None: nobody)."""
        self.stats = SwitchStats()
        self._internal: deque[Held] = deque()
        self._inputs: list[SwitchPort] = []
        self._router_free = 0.0
        self._pick: Choose = lambda hops, frame, d_id, inp: hops[0]

    def add_port(self, index: int, port: Port,
                 permitted: Mapping[int, frozenset[int]] | None = None) -> SwitchPort:
        """Attach link-level *port*, already linked, as switch port *index*
        (0-based); with *permitted* (hard zoning: per N_Port ID, those it
        shares a zone with), an F_Port that drops the frames between others
        (:class:`~fcsim.fabric.hard_zoning.ZonedFPort`)."""
        self.check_free(index)
        return self.attach(SwitchPort(self, index, port) if permitted is None
                           else ZonedFPort(self, index, port, permitted))

    def check_free(self, index: int) -> None:
        """Raise ValueError unless port *index* exists and is not connected."""
        if not 0 <= index < self.model.ports:
            raise ValueError(f"{self.name}: port {index} outside 0..{self.model.ports - 1}")
        if index in self.ports:
            raise ValueError(f"{self.name}: port {index} is already connected")

    def attach(self, sp: SwitchPort) -> SwitchPort:
        """Take switch port *sp*, made for this switch, as its port ``sp.index``."""
        self.ports[sp.index] = sp
        self._inputs = list(self.ports.values())
        sp.pos = len(self._inputs) - 1
        return sp

    def set_routing(self, routes: dict[int, list[SwitchPort]], pick: Choose) -> None:
        """Set the E_Ports towards each other domain and how to choose among them
        (*pick*: equal-cost hops, frame, D_ID routed to, ingress port or None -> hop)."""
        self.routes = routes
        self._pick = pick

    # -- arrival and routing ----------------------------------------------------

    def output_for(self, frame: Frame, d_id: int | None = None,
                   inp: SwitchPort | None = None) -> SwitchPort | None:
        """The port *frame*, come in on *inp* (None: sent by the switch), leaves
        by towards its D_ID, or towards *d_id* if given."""
        d_id = frame.d_id if d_id is None else d_id
        if domain_of(d_id) == self.domain:
            return self.local.get(area_of(d_id))
        hops = self.routes.get(domain_of(d_id))
        return self._pick(hops, frame, d_id, inp) if hops else None

    def arrive_damaged(self, inp: SwitchPort, frame: Frame) -> None:
        """A frame that fails its CRC: counted as an error here if its EOF is
        still valid (the error is on this input's cable). Cut-through, it has
        left by the time its CRC is checked, so it goes on ending in EOFni
        (EOFdti) and the ports downstream count it as invalid, not as their own
        error (FC-FS-5); a frame for the switch itself, whole before it is
        used, and any frame of a store-and-forward switch are discarded."""
        if frame.eof not in osets.INVALID_EOFS:
            self.stats.errors += 1
            if self.model.cut_through:
                frame.eof = osets.invalidated(frame.eof)
        if self.model.cut_through and frame.d_id < WELL_KNOWN_LOW:
            self.arrive(inp, frame)
        else:
            self._discard(frame)
            self.free_input(inp, frame)

    def whole_at(self, inp: SwitchPort, frame: Frame) -> float:
        """When *frame*, handed in at input *inp* now, is whole, s: now with
        store-and-forward, at its EOF with cut-through (handed in at its header)."""
        if self.model.cut_through:
            return self.sim.now + (frame.chars - HEADER_CHARS) * inp.port.char_time
        return self.sim.now

    def discard_on_arrival(self, inp: SwitchPort, frame: Frame) -> None:
        """Discard *frame*, just handed in at *inp* (hard zoning), freeing its
        buffer once it is whole."""
        inp.eof_in = self.whole_at(inp, frame)
        self.free_input(inp, frame, inp.eof_in)
        self._discard(frame)

    def arrive(self, inp: SwitchPort, frame: Frame) -> None:
        """*frame* (or, cut-through, its header) has arrived at input *inp*:
        answer it, refuse it or route it, and queue it once routed."""
        now = self.sim.now
        model = self.model
        if model.cut_through:  # whole_at, inline (once a frame)
            eof = inp.eof_in = now + (frame.chars - HEADER_CHARS) * inp.port.char_time
        else:
            eof = inp.eof_in = now
        d_id = frame.d_id
        if d_id >= WELL_KNOWN_LOW:
            self.free_input(inp, frame, eof)
            if self.services is None:
                self._discard(frame)
            else:
                self.services.request(inp, frame)
            return
        sof = frame.sof
        if (inp.reserved_to is not None and sof is not osets.SOFc1
                and inp.reserved == frozenset((frame.s_id, d_id))):
            out = inp.reserved_to  # within a Class 1 connection: its dedicated path
        elif d_id >> 16 == self.domain:  # output_for's local case, inline (once a frame)
            out = self.local.get(d_id >> 8 & 0xFF)
        else:
            out = self.output_for(frame, d_id, inp)
        if out is None and d_id >> 8 == DOMAIN_CONTROLLERS:  # a switch's, FFFC00 + domain
            out = self._to_controller(inp, frame)
            if out is None:
                return
        if out is None and self.aliases is not None:  # an alias: FC-3 routes or replicates it
            out = self.aliases.route(self, inp, frame)
            if out is None:
                return
        if out is None:
            self.refuse(inp, frame, h.R_CTL_F_RJT, F_RJT_INVALID_D_ID)
            return
        if sof is osets.SOFc1 or (frame.cls != 1 and out.reserved is not None):
            refusal = self._class1_check(inp, out, frame)
            if refusal is not None:
                self.refuse(inp, frame, h.R_CTL_F_BSY, refusal)
                return
        ready = now
        free_at = 0.0  # store-and-forward: the crossing starts after EOF + latency
        if model.cut_through:  # once the frame can leave without catching up its own EOF
            ready = eof - frame.chars * out.port.char_time
            if ready < now:
                ready = now
            free_at = eof + model.routing_latency  # its last word leaves the input buffer
        if model.routing_rate is not None:
            ready = max(ready, self._router_free) + 1.0 / model.routing_rate
            self._router_free = ready
        ready += model.routing_latency
        held = Held(frame, inp, out, now, free_at)
        if ready > now:
            self.sim.call_later(ready - now, self._queue, held)
        else:
            self._queue(held)

    def _to_controller(self, inp: SwitchPort, frame: Frame) -> SwitchPort | None:
        """A frame for a domain controller (an SW_RSCN, FC-SW-7): this
        switch's services answer it (None), or the E_Port towards its domain."""
        domain = frame.d_id & 0xFF
        if domain == self.domain:
            self.free_input(inp, frame, inp.eof_in)
            if self.services is None:
                self._discard(frame)
            else:
                self.services.request(inp, frame)
            return None
        hops = self.routes.get(domain)
        if not hops:
            self.refuse(inp, frame, h.R_CTL_F_RJT, F_RJT_INVALID_D_ID)
            return None
        return self._pick(hops, frame, frame.d_id, inp)

    def _queue(self, held: Held) -> None:
        now = held.queued = self.sim.now
        out = held.out
        out.queue.enter(now)
        inp = held.inp
        if inp is None:
            self._internal.append(held)
        else:
            model = self.model
            if model.hold_time is not None and held.frame.cls != 1:
                self.sim.call_later(model.hold_time, self._hold_expired, held)
            if model.virtual_output_queues:
                queue = inp.voq.get(out.index)
                if queue is None:
                    queue = inp.voq[out.index] = deque()
                if not queue:
                    insort(out.waiting, inp.pos)
                queue.append(held)
            else:
                inp.fifo.append(held)
                if len(inp.fifo) > 1:
                    return  # not at the head: its output is asked when it gets there
                insort(out.waiting, inp.pos)
        out.port.kick()

    def _class1_check(self, inp: SwitchPort, out: SwitchPort, frame: Frame) -> int | None:
        """Reserve for a Class 1 connect; the F_BSY reason if *frame* must be busied.

        A port is reserved for one connection, named by its two N_Port IDs; a
        connect between the same two ports may cross (the N_Ports settle it).
        """
        pair = frozenset((frame.s_id, frame.d_id))
        if frame.sof is osets.SOFc1:
            if inp.reserved not in (None, pair) or out.reserved not in (None, pair):
                return h.P_BSY_PORT_BUSY
            inp.reserved = out.reserved = pair
            inp.reserved_to, out.reserved_to = out, inp
            return None
        if frame.cls != 1 and out.reserved not in (None, pair):
            return h.P_BSY_PORT_BUSY  # Class 3 is discarded instead
        return None

    def _release_class1(self, frame: Frame, held: Held) -> None:
        """Free a Class 1 reservation when its removal or refusal passes."""
        answers = frame.answers
        ends = frame.eof is osets.EOFdt or (
            answers is not None and answers.sof is osets.SOFc1
            and frame.r_ctl in (h.R_CTL_P_BSY, h.R_CTL_F_BSY, h.R_CTL_P_RJT, h.R_CTL_F_RJT))
        if ends and held.inp is not None:
            pair = frozenset((frame.s_id, frame.d_id))
            for sp in (held.inp, held.out):
                if sp.reserved == pair:
                    sp.reserved = sp.reserved_to = None

    # -- refusals and frames the switch sends itself -----------------------------

    def refuse(self, inp: SwitchPort, frame: Frame, r_ctl: int, reason: int,
               free_at: float | None = None) -> None:
        """Answer *frame* with F_BSY/F_RJT (Class 1/2) or discard it (Class 3),
        freeing its input buffer at *free_at* (s; default: once the frame that
        input just handed in is whole, :attr:`SwitchPort.eof_in`)."""
        self.free_input(inp, frame, inp.eof_in if free_at is None else free_at)
        if frame.cls == 3 or frame.is_link_control:
            self._discard(frame)
            return
        if r_ctl == h.R_CTL_F_BSY:
            self.stats.f_bsy += 1
        else:
            self.stats.f_rjt += 1
        self.stats.refused_payload += frame.payload_len
        self._inject(Frame(
            osets.SOFn2, osets.EOFn, r_ctl, frame.s_id, frame.d_id, h.TYPE_BLS,
            h.F_CTL_EXCHANGE_CONTEXT | h.F_CTL_SEQUENCE_CONTEXT, frame.seq_id, frame.seq_cnt,
            frame.ox_id, frame.rx_id, 0, 2, None, reason, 0, 0, None, frame))

    def _discard(self, frame: Frame) -> None:
        self.stats.discarded += 1
        if not frame.is_link_control:
            self.stats.discarded_payload += frame.payload_len

    def _inject(self, frame: Frame) -> None:
        """Send a frame that the switch itself originates."""
        out = self.output_for(frame)
        if out is None:
            self._discard(frame)
            return
        self._queue(Held(frame, None, out, self.sim.now))

    def send_from(self, out: SwitchPort, frame: Frame) -> None:
        """Send a frame the switch originates out of port *out*."""
        self._queue(Held(frame, None, out, self.sim.now))

    def free_input(self, inp: SwitchPort, frame: Frame, at: float = 0.0) -> None:
        """Free the buffer *frame* holds at input *inp* (and send its R_RDY), now
        or at *at* (s) if later."""
        if frame.uses_bb_credit:
            inp.port.release_buffer(at, frame)

    def _hold_expired(self, held: Held) -> None:
        inp = held.inp
        if inp is None:
            return
        queue = inp.voq.get(held.out.index) if self.model.virtual_output_queues else inp.fifo
        if not queue or held not in queue:
            return
        head = queue[0] is held
        queue.remove(held)
        if head:
            self._new_head(inp, held.out, queue)
        now = self.sim.now
        held.out.queue.leave(now, now - held.queued)
        held.out.timeouts += 1
        if self.discards is not None:
            self.discards.hold_time_discard(held.out, held.frame)
        self.refuse(inp, held.frame, h.R_CTL_F_BSY, h.P_BSY_NO_RESOURCES, held.free_at)
        if head and not self.model.virtual_output_queues and inp.fifo:
            inp.fifo[0].out.port.kick()

    def _new_head(self, inp: SwitchPort, out: SwitchPort, queue: deque[Held]) -> None:
        """The head of *queue* (of input *inp*, whose head was for *out*) has left:
        update which outputs *inp* waits for."""
        if self.model.virtual_output_queues:
            if not queue:
                out.waiting.remove(inp.pos)
        else:
            out.waiting.remove(inp.pos)
            if queue:
                insort(queue[0].out.waiting, inp.pos)

    # -- output side: the crossbar ---------------------------------------------

    def pull(self, out: SwitchPort, credit: bool) -> Frame | None:
        """The next frame to leave by output *out* (*credit*: it has BB credit
        for one), which crosses the crossbar now: one the switch sent itself
        first, else the next from an input, taking inputs in turn; None if
        none may go yet."""
        internal = self._internal
        held = None
        if internal:
            for queued in internal:
                if queued.out is out and (credit or not queued.frame.uses_bb_credit):
                    internal.remove(queued)
                    out.port.drained = False
                    held, frame, now = queued, queued.frame, self.sim.now
                    break
        waiting = out.waiting
        blocked_until = None
        if held is None and waiting:
            now = self.sim.now
            inputs = self._inputs
            voq = self.model.virtual_output_queues
            owed = out.owed
            skipped = -1
            if len(waiting) == 1:
                turn = waiting
            else:  # inputs in turn from the one passed over, else from next_input, cyclically
                first = bisect_left(waiting, owed if owed >= 0 else out.next_input)
                turn = waiting[first:] + waiting[:first]
            for pos in turn:
                inp = inputs[pos]
                read_free = inp.read_free
                if read_free > now:
                    if blocked_until is None or read_free < blocked_until:
                        blocked_until = read_free
                    if pos == owed:
                        break  # passed over once while it fed another output: wait for it
                    if skipped < 0:
                        skipped = pos
                    continue
                queue = inp.voq[out.index] if voq else inp.fifo
                head = queue[0]
                frame = head.frame
                bb = frame.uses_bb_credit
                if bb and not credit:
                    continue
                queue.popleft()
                out.owed = skipped
                if not voq:
                    self._new_head(inp, out, queue)
                elif not queue:  # _new_head's virtual-output-queue case, inline
                    waiting.remove(pos)
                out.next_input = (pos + 1) % len(inputs)
                inp.read_free = now + frame.chars * inp.port.char_time / self.model.crossbar_speedup
                if bb:  # free_input, inline
                    inp.port.release_buffer(head.free_at, frame)
                if not voq and inp.fifo:
                    nxt = inp.fifo[0].out
                    if nxt is not out:
                        nxt.port.kick()
                out.port.drained = not waiting and not internal  # nothing more to send yet
                held = head
                break
        if held is not None:  # it crosses (from an input, or sent by the switch itself)
            out.queue.leave(now, now - held.queued)
            self.stats.forwarded += 1
            if self.aliases is not None and not frame.is_link_control:
                self.aliases.crossed(frame)
            if frame.is_link_control:
                self._release_class1(frame, held)
            return frame
        if blocked_until is not None and not out.wake_pending:
            out.wake_pending = True
            self.sim.call_later(blocked_until - now, self._wake, out)
        return None

    def _wake(self, out: SwitchPort) -> None:
        out.wake_pending = False
        out.port.kick()

    def has_candidate(self, out: SwitchPort) -> bool:
        """True if a frame for output *out* is ready to cross (an input's next
        frame for it, or one the switch sent itself)."""
        return bool(out.waiting) or any(held.out is out for held in self._internal)

    def queue_lengths(self) -> dict[int, int]:
        """Frames waiting to leave through each port now, by port index."""
        return {index: sp.queue.length for index, sp in self.ports.items()}

    def reset_stats(self) -> None:
        """Start a new measurement interval."""
        self.stats.reset()
        now = self.sim.now
        for sp in self.ports.values():
            sp.reset_stats(now)

    def __repr__(self) -> str:
        return f"<Switch {self.name} domain {self.domain}>"
