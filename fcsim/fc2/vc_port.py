"""A link-level port with virtual channels: BB credit kept per channel and
returned per channel.

A link between two ports that both support them may be split into virtual
channels, each with receive buffers of its own: a frame is sent on one
channel, uses a credit of that channel only, and the receiver returns that
credit with a ready primitive naming the channel. FC-FS-4/5 define it as
ER_RDY (Extended R_RDY, carrying a virtual channel identifier); Cisco MDS
switches use it on ISLs as "Extended Receiver Ready", which "virtualizes a
physical link into multiple virtual links that are assigned individual
buffer-to-buffer credits" (up to four: Cisco MDS 9000 Series Interfaces
Configuration Guide, Release 8.x, "Congestion Detection, Avoidance, and
Isolation"); Brocade's E_Ports return VC_RDY, their virtual channels being
"allocated their own network resources such as queues and buffer-to-buffer
credits" (Brocade Fabric OS Administrator's Guide v7.0.0, 53-1002148-02,
"Virtual channels"). Each ER_RDY is a primitive signal sent, as R_RDY, in
the fill words between frames and takes one transmission word (FC-FS); its
characters are not modelled (UNCONFIRMED: the encoding of the channel
identifier was not retrieved), only its channel.

A :class:`VirtualChannelPort` is pulled, when its transmitter is free, by
channel: the owner's *channels* (:class:`ChannelOwner`) in order, channel 0
(control: the frames the switch sends itself, link control) first, then the
data channels in turn from the one after the channel that sent last, each
asked only while it has credit. The channel a frame travels on reaches the
far end with it; the far end remembers it until the frame's buffer is freed
(:meth:`VirtualChannelPort.release_buffer` with the frame), then returns an
ER_RDY for that channel.

Its port-level counters keep their meaning for the whole link: TxWait
(``credit_wait``) is the time a frame was ready and none could go for lack
of credit of its channel; ``credit_zero`` and ``credit_zero_time`` are the
channels' transitions to zero credit and their time at zero, summed over
the channels. Per channel (:class:`ChannelStats`): frames sent, TxWait
(a frame queued on the channel while its credit is zero), transitions to
zero credit and time at zero, ER_RDYs sent and received.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from fcsim.fc2.port import Port, PortOwner
from fcsim.link.line import launch

if TYPE_CHECKING:
    from fcsim.engine.simulation import Simulation
    from fcsim.fc2.frame import Frame


class ChannelOwner(PortOwner, Protocol):
    """What a :class:`VirtualChannelPort` asks of its owner: besides a
    port's owner's methods, the queue of each channel (channel 0 first),
    each pulled for its next frame with that channel's credit."""

    channels: Sequence[PortOwner]


class ChannelStats:
    """Counters of one virtual channel over the measured interval (times in
    s): frames sent and received on it; *credit_wait* the time a frame was queued on it
    with its credit zero (its TxWait) and *credit_stalls* the number of such
    waits; *credit_zero* its transitions to zero credit and *credit_zero_time*
    the time at zero; *er_rdy_tx* and *er_rdy_rx* the ER_RDYs naming it sent
    and received."""

    __slots__ = ("frames_tx", "frames_rx", "credit_wait", "credit_stalls", "credit_zero",
                 "credit_zero_time", "er_rdy_tx", "er_rdy_rx")

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Zero every counter."""
        self.frames_tx = self.frames_rx = self.credit_stalls = self.credit_zero = 0
        self.er_rdy_tx = self.er_rdy_rx = 0
        self.credit_wait = self.credit_zero_time = 0.0


class VirtualChannelPort(Port):
    """One end of a link split into *channels* virtual channels (channel 0
    and the data channels), each offering *channel_buffers* receive buffers
    to the peer (see the module docstring)."""

    def __init__(self, sim: Simulation, name: str, channels: int, channel_buffers: int) -> None:
        if channels < 2:
            raise ValueError(f"{name}: a link with virtual channels needs >= 2, got {channels}")
        if channel_buffers < 1:
            raise ValueError(f"{name}: buffers per virtual channel must be >= 1, "
                             f"got {channel_buffers}")
        super().__init__(sim, name, channels * channel_buffers)
        self.channel_buffers = channel_buffers
        """Receive buffers this port offers the peer on each channel."""
        self.vc_login = [0] * channels
        """BB credit per channel learnt from the peer (its buffers per channel)."""
        self.vc_credit = [0] * channels
        """BB credit per channel now (ER_RDYs that have arrived not yet counted in)."""
        self.vc_buffers_used = [0] * channels
        """Receive buffers of each channel holding a frame."""
        self.vc_stats = [ChannelStats() for _ in range(channels)]
        self._er_rdys: list[deque[float]] = [deque() for _ in range(channels)]
        self._vc_stall: list[float | None] = [None] * channels
        self._vc_zero: list[float | None] = [None] * channels
        self._held: dict[Frame, int] = {}  # each frame in a receive buffer -> its channel
        self._turn = 1  # the data channel asked first next time

    @property
    def channels(self) -> int:
        """Virtual channels of the link, channel 0 included."""
        return len(self.vc_credit)

    def login(self, bb_credit: int) -> None:
        """Set the credit learnt from the peer: *bb_credit* buffers per channel."""
        super().login(bb_credit * self.channels)
        self.vc_login = [bb_credit] * self.channels
        self.vc_credit = [bb_credit] * self.channels

    def learn_credit(self, bb_credit: int) -> None:
        """A link with virtual channels learns its credit per channel when it
        is built (as switches exchange it in ELP), not from a later login."""
        raise RuntimeError(f"{self.name}: the credit of a link with virtual channels is "
                           "set per channel when it is built")

    # -- credit ------------------------------------------------------------------

    def _absorb(self, now: float) -> float | None:
        """Count in the ER_RDYs that have arrived by *now*, per channel; when
        the last of them arrived, s (None if none had)."""
        last = None
        stats = self.stats
        for vc, arrivals in enumerate(self._er_rdys):
            if not arrivals or arrivals[0] > now:
                continue
            channel = self.vc_stats[vc]
            while arrivals and arrivals[0] <= now:
                arrived = arrivals.popleft()
                self.vc_credit[vc] += 1
                channel.er_rdy_rx += 1
                stats.r_rdy_rx += 1
                zero = self._vc_zero[vc]
                if zero is not None:
                    channel.credit_zero_time += arrived - zero
                    stats.credit_zero_time += arrived - zero
                    self._vc_zero[vc] = None
                stall = self._vc_stall[vc]
                if stall is not None:
                    channel.credit_wait += arrived - stall
                    self._vc_stall[vc] = None
                if self._stall_since is not None:
                    stats.credit_wait += arrived - self._stall_since
                    self._stall_since = None
                if last is None or arrived > last:
                    last = arrived
        self.credit = sum(self.vc_credit)
        return last

    def current_credit(self) -> int:
        """BB credit now, all channels together, counting every ER_RDY that has arrived."""
        self._absorb(self.sim.now)
        return self.credit

    def credit_now(self) -> int:
        """BB credit now, all channels together, without taking arrived ER_RDYs in."""
        now = self.sim.now
        return sum(self.vc_credit) + sum(1 for arrivals in self._er_rdys
                                         for arrival in arrivals if arrival <= now)

    def _wake_for_credit(self) -> None:
        """Schedule a wake-up at the next ER_RDY's arrival, on any channel."""
        if self._wake_pending:
            return
        heads = [arrivals[0] for arrivals in self._er_rdys if arrivals]
        if heads:
            self._wake_pending = True
            self._later(min(heads) - self.sim.now, self._wake)

    # -- transmitter ---------------------------------------------------------------

    def _send_next(self, _event: object = None) -> None:
        now = self.sim.now
        self._absorb(now)
        owner: ChannelOwner = self.owner  # type: ignore[assignment]
        lanes = owner.channels
        credit = self.vc_credit
        count = len(lanes)
        self._busy = True
        frame = None
        vc = 0
        order = [0, *range(self._turn, count), *range(1, self._turn)]
        for vc in order:
            if credit[vc] > 0 or vc == 0:
                frame = lanes[vc].next_frame(credit[vc] > 0)
                if frame is not None:
                    break
        if frame is None:
            self._busy = False
            waiting = False
            for vc in range(count):
                if credit[vc] == 0 and lanes[vc].waits_for_credit():
                    waiting = True
                    if self._vc_stall[vc] is None:
                        self._vc_stall[vc] = now
                        self.vc_stats[vc].credit_stalls += 1
            if waiting:
                if self._stall_since is None:
                    self._stall_since = now
                    self.stats.credit_stalls += 1
                self._wake_for_credit()
            return
        if vc:
            self._turn = vc + 1 if vc + 1 < count else 1
        channel = self.vc_stats[vc]
        channel.frames_tx += 1
        if frame.uses_bb_credit:
            credit[vc] -= 1
            self.credit -= 1
            if not credit[vc]:
                channel.credit_zero += 1
                self.stats.credit_zero += 1
                self._vc_zero[vc] = now
        for other in range(count):  # a channel with a frame queued and no credit waits
            if credit[other] == 0 and self._vc_stall[other] is None and other != vc \
                    and lanes[other].waits_for_credit():
                self._vc_stall[other] = now
                self.vc_stats[other].credit_stalls += 1
        start, end, gap_end = launch(self, frame, now)
        peer: VirtualChannelPort = self.peer  # type: ignore[assignment]
        arrival = end if peer.header_notice is None else start + peer.header_notice
        self._later(arrival + self.delay - now, peer._receive_on, (frame, vc))
        self.drained = False  # several channels: the end of each gap keeps its event
        self._later(gap_end - now, self._send_next)

    def send_er_rdy(self, vc: int) -> None:
        """Send one ER_RDY for channel *vc* in the next free fill word."""
        now = self.sim.now
        start, end = self.take_fill_word(now)
        self.stats.r_rdy_tx += 1
        self.vc_stats[vc].er_rdy_tx += 1
        if self.sinks:
            for sink in self.sinks:
                sink.primitive(now, self, f"ER_RDY(VC {vc})", start)
        peer: VirtualChannelPort = self.peer  # type: ignore[assignment]
        peer._er_rdys[vc].append(end + self.delay)
        if peer._stall_since is not None and peer._free():
            peer._wake_for_credit()

    def send_r_rdy(self) -> None:
        """A port with virtual channels returns credit only per channel (ER_RDY)."""
        raise RuntimeError(f"{self.name}: a link with virtual channels returns ER_RDY, "
                           "not R_RDY")

    # -- receiver --------------------------------------------------------------------

    def _receive_on(self, sent: tuple[Frame, int]) -> None:
        """*frame* arrived on channel *vc* (its header, for a cut-through owner)."""
        frame, vc = sent
        self.vc_stats[vc].frames_rx += 1
        if frame.uses_bb_credit:
            self._held[frame] = vc
            self.vc_buffers_used[vc] += 1
        self._receive(frame)

    def release_buffer(self, at: float = 0.0, frame: Frame | None = None) -> None:
        """Free the receive buffer *frame* holds and return its channel's
        credit with an ER_RDY: now, or at *at* (s) if later. Without *frame*,
        the buffer of the frame held longest."""
        held = self._held
        vc = held.pop(frame) if frame is not None else held.pop(next(iter(held)))
        now = self.sim.now
        if at > now:
            self._later(at - now, self._release_channel, vc)
            return
        self._release_channel(vc)

    def _release_channel(self, vc: int) -> None:
        self.buffers_used -= 1
        self.vc_buffers_used[vc] -= 1
        self.send_er_rdy(vc)

    # -- measurement -------------------------------------------------------------------

    def reset_stats(self) -> None:
        """Start a new measurement interval now, for the port and each channel."""
        super().reset_stats()
        now = self.sim.now
        for vc, channel in enumerate(self.vc_stats):
            channel.reset()
            if self._vc_stall[vc] is not None:
                self._vc_stall[vc] = now
            if self._vc_zero[vc] is not None:
                self._vc_zero[vc] = now

    def close_stats(self) -> None:
        """End the measurement interval now, counting open waits and zero spells."""
        super().close_stats()
        now = self.sim.now
        for vc, channel in enumerate(self.vc_stats):
            stall = self._vc_stall[vc]
            if stall is not None:
                channel.credit_wait += now - stall
                self._vc_stall[vc] = now
            zero = self._vc_zero[vc]
            if zero is not None:
                channel.credit_zero_time += now - zero
                self.stats.credit_zero_time += now - zero
                self._vc_zero[vc] = now

    def __repr__(self) -> str:
        return f"<VirtualChannelPort {self.name} ({self.channels} channels)>"
