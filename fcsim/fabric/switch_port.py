"""A Fibre Channel switch's ports and counters: each :class:`SwitchPort` owns
a link-level port and hands the switch what arrives and what it may send
(through the :class:`Crossbar` interface the switch offers its ports); a
:class:`Held` frame is one inside the switch between its input and output."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from functools import partial
from typing import Protocol

from fcsim.engine.simulation import Simulation
from fcsim.fabric.switch_model import SwitchModel
from fcsim.fc2.frame import Frame
from fcsim.fc2.port import Port
from fcsim.stats.queue import QueueMeter

HEADER_CHARS = 4 + 24
"""Characters up to the end of the header (SOF and frame header)."""


class Held:
    """A frame inside the switch: where it came in and goes out, since when it
    arrived, since when it queues for its output and the earliest time its
    input buffer may be freed (s; 0: when it crosses)."""

    __slots__ = ("frame", "inp", "out", "since", "queued", "free_at")

    def __init__(self, frame: Frame, inp: SwitchPort | None, out: SwitchPort, since: float,
                 free_at: float = 0.0):
        self.frame = frame
        self.inp = inp
        self.out = out
        self.since = since
        self.queued = since
        self.free_at = free_at


class SwitchStats:
    """Counters of one switch (frames; payload in bytes). ``service_payload_in``
    and ``_out`` count what its fabric services received and sent."""

    __slots__ = ("forwarded", "f_bsy", "f_rjt", "discarded", "discarded_payload",
                 "refused_payload", "errors", "service_payload_in", "service_payload_out")

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Zero every counter."""
        self.forwarded = self.f_bsy = self.f_rjt = self.discarded = self.errors = 0
        self.discarded_payload = self.refused_payload = 0
        self.service_payload_in = self.service_payload_out = 0


class Crossbar(Protocol):
    """What a switch offers its ports (:class:`fcsim.fabric.switch.Switch`):
    the frames that arrive at an input and the next frame for an output."""

    name: str
    sim: Simulation
    model: SwitchModel

    def arrive(self, inp: SwitchPort, frame: Frame) -> None:
        """A frame (or, cut-through, its header) has arrived at input *inp*."""

    def arrive_damaged(self, inp: SwitchPort, frame: Frame) -> None:
        """A frame with a transmission error has arrived at input *inp*."""

    def pull(self, out: SwitchPort, credit: bool) -> Frame | None:
        """The next frame for output *out* (*credit*: it has BB credit), or None."""

    def has_candidate(self, out: SwitchPort) -> bool:
        """True if a frame for output *out* is ready to cross."""


class SwitchPort:
    """Port *index* of *switch*, owner of the link-level *port* (unless not
    *owns_port*: the queue of one virtual channel of the port that owns it).

    *pos* is its place in the switch's input order; *waiting*, the sorted
    places of the inputs whose next frame in line (FIFO head, or head of the
    virtual output queue) is for this output: an output looks only at those.
    *eof_in* is when the EOF of the frame this input handed in last is (or
    was) in, s: its arrival with store-and-forward, later with cut-through.
    """

    channels: list[SwitchPort] | None = None
    """The output's queue per virtual channel, channel 0 this port itself
    (an E_Port on a link with virtual channels,
    :class:`fcsim.fabric.virtual_channels.ChannelledEPort`); None: one queue."""

    def __init__(self, switch: Crossbar, index: int, port: Port, owns_port: bool = True) -> None:
        self.switch = switch
        self.index = index
        self.port = port
        self.fifo: deque[Held] = deque()
        self.voq: dict[int, deque[Held]] = {}
        self.read_free = 0.0
        self.eof_in = 0.0
        self.reserved: frozenset[int] | None = None
        self.reserved_to: SwitchPort | None = None
        self.next_input = 0
        self.owed = -1
        """The place of an input this output passed over, busy feeding another
        output, when it took a frame from another: its next turn (-1: none)."""
        self.pos = -1
        self.waiting: list[int] = []
        self.wake_pending = False
        """A wake-up of this output is scheduled (by the switch, for when an
        input it waits on is free to be read again)."""
        self.queue = QueueMeter(switch.sim.now)
        self.timeouts = 0
        """Frames for this output its switch removed after they waited the
        model's hold time (Class 3 discarded, Class 2 answered F_BSY), over the
        measured interval."""
        self.frame_received: Callable[[Frame], None] = partial(switch.arrive, self)
        """A frame (or, cut-through, its header) has arrived."""
        self.frame_dropped: Callable[[Frame], None] = partial(switch.arrive_damaged, self)
        """A frame with a transmission error arrived."""
        self.next_frame: Callable[[bool], Frame | None] = partial(switch.pull, self)
        """The next frame for this output, taking inputs in turn (BB credit or not)."""
        if not owns_port:  # one virtual channel's queue of the port's owner
            return
        port.owner = self
        if switch.model.cut_through:
            port.header_notice = HEADER_CHARS * port.char_time if port.char_time else None

    # The Port hands frames in with frame_received and frame_dropped and pulls
    # them out with next_frame: the switch's Crossbar methods, bound to this
    # port in __init__ (one call a frame fewer on the switch's hot path than a
    # method here that calls them).

    def reset_stats(self, now: float) -> None:
        """Start a new measurement interval at *now* (s)."""
        self.queue.reset(now)
        self.timeouts = 0

    def waits_for_credit(self) -> bool:
        """True if a frame for this output is ready but needs BB credit."""
        return self.switch.has_candidate(self)

    def __repr__(self) -> str:
        return f"<SwitchPort {self.switch.name}:{self.index}>"
