"""Virtual channels on a fabric's inter-switch links: which channel a frame
takes, the queue of each channel at an E_Port, and the switch that keeps them.

An ISL with virtual channels (``virtual_channels`` on its ``[[links]]``
entry) is split into channels, each with its own receive buffers and BB
credit, returned per channel with ER_RDY (:mod:`fcsim.fc2.vc_port`).
Channel 0 carries what the switch sends itself and link-control frames
(Brocade's highest-priority group "used for Class F, F_RJT, and ACK
traffic", Fabric OS Administrator's Guide v7.0.0, "Virtual channels";
Cisco's VL0 "control traffic"). Data frames take a data channel chosen by
the link's assignment (:class:`ChannelAssignment`):

* ``"destination"``: by the destination's domain and area (the switch port
  of the N_Port, FC-SW's Area_ID), channel 1 + Area_ID mod the data
  channels: Brocade's switches "map frames to specific virtual channels based
  upon frame characteristics (e.g. destination address, class of service)"
  (Brocade, US patent application 2005/0063394, "Virtual channel
  remapping"), their medium-priority data channels VCs 2-5 (Brocade Fabric
  OS Administration Guide 8.0.1, "QoS"); which address bits, an assumption.
* ``"priority"``: Cisco MDS's four ER_RDY virtual links: VL0 control, VL1
  high priority, VL2 slow devices, VL3 normal traffic (Cisco MDS 9000 Series
  Interfaces Configuration Guide, Release 8.x, "Congestion Isolation"):
  the frames between the members of a high-priority QoS zone on channel 1,
  every other data frame on channel 3 (Cisco's table maps QoS priorities
  5-6 to VL1 and 0-1 to VL3; medium and low zones are taken as normal
  traffic, an assumption), the flows to isolated devices on 2.

With congestion isolation (:mod:`fcsim.fabric.congestion_isolation`) the
last data channel is kept for the flows to isolated devices ("a low-priority
VL", Cisco; SDDQ's "low priority virtual channel", Brocade Fabric OS Command
Reference 53-1004112-02, ``sddQuarantine``), and the other flows spread over
the others.

A switch keeps, at each channelled output, a queue per channel at each input
(its virtual output queues refined by channel, :class:`ChannelQueue`), so a
channel without credit holds up only its own frames. When a destination's
channel changes (it is isolated, or recovers), every switch moves the
frames for it already queued for its old channel, in their order, to its
new channel's queue (:meth:`VirtualChannelSwitch.reassign`), so every frame
for a destination queued at an output is on one channel and none overtakes
an earlier one: frames stay in order within each exchange, as the N_Ports
expect (a Class 3 sequence's first frame ends an earlier sequence of its
exchange at the receiver). Frames already sent on the old channel reach the
next switch before those sent after on the new one, and queue there in
that order. The frames keep the input buffers (and channel credit) of the
channel they came in on: only the channel they leave on changes.
"""

from __future__ import annotations

from bisect import insort
from collections import deque
from collections.abc import Collection

from fcsim.engine.simulation import Simulation
from fcsim.fabric.switch import Switch
from fcsim.fabric.switch_model import SwitchModel
from fcsim.fabric.switch_port import Crossbar, Held, SwitchPort
from fcsim.fc2.frame import Frame
from fcsim.fc2.vc_port import VirtualChannelPort

DESTINATION = "destination"
PRIORITY = "priority"
ASSIGNMENTS = (DESTINATION, PRIORITY)
"""How data frames are assigned to channels (see the module docstring)."""
CISCO_VIRTUAL_LINKS = 4
"""ER_RDY's virtual links on a Cisco MDS ISL: VL0 control, VL1 high priority,
VL2 slow devices, VL3 normal (Cisco MDS 9000 Interfaces Configuration Guide 8.x)."""
CISCO_HIGH, CISCO_SLOW, CISCO_NORMAL = 1, 2, 3
PRIORITIES = ("high", "medium", "low")
"""A QoS zone's priorities (Brocade QoS zones; Cisco zone QoS attribute)."""
MAX_CHANNELS = 64
"""The most channels a link may have (the key space of a switch's channel queues)."""


def least_channels(assignment: str, isolation: bool) -> int:
    """The fewest channels (channel 0 included) a link with *assignment*
    needs, with congestion *isolation* or without."""
    if assignment == PRIORITY:
        return CISCO_VIRTUAL_LINKS
    return 3 if isolation else 2


class ChannelAssignment:
    """The data channel of each frame on a link with *channels* channels by
    *policy* (:data:`ASSIGNMENTS`); *isolated*: the (domain, area) of the
    devices whose flows take the low-priority channel, shared by every link
    of the fabric and changed by congestion isolation (None: no isolation,
    no channel kept for it); *high*: the (S_ID, D_ID) pairs of high-priority
    QoS zones, which may be filled after it is made."""

    def __init__(self, channels: int, policy: str = DESTINATION,
                 isolated: Collection[int] | None = None,
                 high: Collection[tuple[int, int]] = frozenset()) -> None:
        if policy not in ASSIGNMENTS:
            raise ValueError(f"virtual channel assignment must be one of "
                             f"{', '.join(ASSIGNMENTS)}, got {policy!r}")
        least = least_channels(policy, isolated is not None)
        if policy == PRIORITY and channels != CISCO_VIRTUAL_LINKS or channels < least:
            raise ValueError(f"{policy} assignment needs {least} virtual channels"
                             f"{' exactly' if policy == PRIORITY else ' or more'}, "
                             f"got {channels}")
        self.channels = channels
        self.policy = policy
        self.isolated = isolated
        self.high = high if policy == PRIORITY else frozenset()
        """The (S_ID, D_ID) pairs of high priority (QoS zones), read by 'priority' only."""
        if policy == PRIORITY:
            self.low, self.first, self.spread = CISCO_SLOW, CISCO_NORMAL, 1
        elif isolated is not None:
            self.low, self.first, self.spread = channels - 1, 1, channels - 2
        else:
            self.low, self.first, self.spread = None, 1, channels - 1

    def channel(self, frame: Frame) -> int:
        """The channel *frame* takes now."""
        return 0 if frame.is_link_control else self.channel_for(frame.d_id, frame.s_id)

    def channel_for(self, d_id: int, s_id: int = 0) -> int:
        """The channel a data frame from *s_id* to *d_id* takes now."""
        dest = d_id >> 8
        if self.isolated and dest in self.isolated:
            return self.low  # type: ignore[return-value]
        if self.high and (s_id, d_id) in self.high:
            return CISCO_HIGH
        return self.first + (dest & 0xFF) % self.spread


class ChannelQueue(SwitchPort):
    """The frames that leave output *e_port* on its data channel *vc*: an
    output of its own to the switch (its inputs' queues for it, its round
    robin, its queue meter), on the link port *e_port* owns."""

    def __init__(self, switch: Crossbar, e_port: SwitchPort, vc: int) -> None:
        super().__init__(switch, -(e_port.index * MAX_CHANNELS + vc), e_port.port,
                         owns_port=False)
        self.e_port = e_port
        self.vc = vc

    def __repr__(self) -> str:
        return f"<ChannelQueue {self.switch.name}:{self.e_port.index} VC {self.vc}>"


class ChannelledEPort(SwitchPort):
    """An E_Port on a link with virtual channels: its own output queue is
    channel 0's, and each data channel has a :class:`ChannelQueue`; frames
    are assigned to them by *assignment*."""

    def __init__(self, switch: Crossbar, index: int, port: VirtualChannelPort,
                 assignment: ChannelAssignment) -> None:
        super().__init__(switch, index, port)
        self.assignment = assignment
        self.channels = [self, *(ChannelQueue(switch, self, vc)
                                 for vc in range(1, port.channels))]

    def __repr__(self) -> str:
        return f"<ChannelledEPort {self.switch.name}:{self.index}>"


class VirtualChannelSwitch(Switch):
    """A switch with ISLs split into virtual channels: a frame routed to a
    channelled E_Port queues for its channel (see the module docstring). It
    needs virtual output queues; its other ports work as a plain switch's."""

    def __init__(self, sim: Simulation, name: str, domain: int, model: SwitchModel,
                 routing: str | None = None) -> None:
        if not model.virtual_output_queues:
            raise ValueError(f"{name}: virtual channels need a switch model with virtual "
                             f"output queues ({model.name} has input FIFOs)")
        super().__init__(sim, name, domain, model, routing)

    def add_channelled_port(self, index: int, port: VirtualChannelPort,
                            assignment: ChannelAssignment) -> ChannelledEPort:
        """Attach *port* (a link port with virtual channels, already linked)
        as E_Port *index*, its data frames assigned to channels by *assignment*."""
        self.check_free(index)
        sp = ChannelledEPort(self, index, port, assignment)
        self.attach(sp)
        return sp

    def reset_stats(self) -> None:
        """Start a new measurement interval, for the channel queues too."""
        super().reset_stats()
        now = self.sim.now
        for sp in self.ports.values():
            for lane in (sp.channels or ())[1:]:
                lane.reset_stats(now)

    def _queue(self, held: Held) -> None:
        """Queue a routed frame; one for a channelled E_Port (not sent by the
        switch itself) queues for its channel."""
        out = held.out
        if out.channels is not None and held.inp is not None:
            held.out = out.channels[out.assignment.channel(held.frame)]  # type: ignore[attr-defined]
        super()._queue(held)

    def reassign(self) -> None:
        """The channel of some destinations changed (congestion isolation):
        every frame queued for a channel it no longer takes moves, in its
        order, to the end of its new channel's queue at its input."""
        now = self.sim.now
        for sp in self.ports.values():
            channels = sp.channels
            if channels is None:
                continue
            assignment: ChannelAssignment = sp.assignment  # type: ignore[attr-defined]
            for inp in self._inputs:
                moved: dict[int, list[Held]] = {}
                for lane in channels[1:]:
                    queue = inp.voq.get(lane.index)
                    if not queue:
                        continue
                    stay: deque[Held] = deque()
                    for held in queue:
                        vc = assignment.channel(held.frame)
                        if vc == lane.vc:  # type: ignore[attr-defined]
                            stay.append(held)
                        else:
                            moved.setdefault(vc, []).append(held)
                            lane.queue.leave(now, now - held.queued)
                    if len(stay) < len(queue):
                        inp.voq[lane.index] = stay
                        if not stay:
                            lane.waiting.remove(inp.pos)
                            lane.owed = -1
                for vc, helds in moved.items():
                    lane = channels[vc]
                    queue = inp.voq.setdefault(lane.index, deque())
                    if not queue:
                        insort(lane.waiting, inp.pos)
                    for held in helds:
                        held.out = lane
                        held.queued = now
                        lane.queue.enter(now)
                        queue.append(held)
            sp.port.kick()
