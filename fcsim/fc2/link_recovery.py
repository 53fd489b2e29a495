"""Link-level recovery of a Fibre Channel port: the primitive sequence
protocols of FC-FS (FC-PH 16.6) and the receiver conditions that start them.

Each port's Link Control Facility (:class:`LinkControl`) is in one of the
states of FC-FS's port state machine (:mod:`fcsim.fc2.port_states`), sends
its primitive sequence and moves on the ones it recognises. The protocols
this makes:

- Link Failure (FC-FS 7.8.4): loss of signal (detected after the
  transceiver's LOS assert time, :data:`LOS_ASSERT`), loss of
  synchronisation for longer than R_T_TOV (:data:`R_T_TOV`), or a timeout of
  a primitive sequence protocol put the port in LF2 (NOS). Once it receives
  again: NOS -> the peer enters LF1 (OLS) -> LF2 enters OL2 (LR) -> LF1
  enters LR2 (LRR) -> OL2 enters LR3 (Idle) -> LR2 enters AC (Idle) -> LR3
  enters AC.
- Link Reset (FC-FS 7.8.3): a link timeout (BB credit zero for E_D_TOV,
  :mod:`fcsim.fc2.recovering_port`) puts the port in LR1 (LR); the peer
  enters LR2 (LRR), the port LR3 (Idle), both AC. Leaving Active empties the
  port's receive buffers and entering it restores its BB credit to the login
  value (FC-FS 7.8.3; the peer "processes the frames in its ingress buffers
  ... before returning LRR", Cisco MDS credit loss recovery).
- Link Initialization (FC-FS 7.8.2): a port powered on enters OL1 and sends
  OLS for at least :data:`OLS_MINIMUM` before it acts on what it receives.

A port entering AC sends :data:`IDLES_ON_ENTRY` Idles before any frame.
Every timer and count, with its source, is in :mod:`fcsim.fc2.port_states`
(and docs/faults.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from fcsim.fc2.port_states import (
    AC,
    LF2,
    LOS_ASSERT,
    LOS_DEASSERT,
    LOSS_OF_SYNC_CHARACTERS,
    LR1,
    OFF,
    OL1,
    OLS_MINIMUM,
    PROTOCOL_TIMEOUT,
    R_T_TOV,
    RECOGNITION_WORDS,
    SENDS,
    SETTLED_DOWN,
    SYNC_WORDS,
    TIMED,
    next_state,
)

if TYPE_CHECKING:
    from fcsim.engine.simulation import Simulation
    from fcsim.fc2.frame import Frame

IMPAIRMENT_MEMORY = 1.0
"""How long a receiver's window of loss or corruption is kept after it closed,
s: longer than any frame or primitive takes to arrive (a 2148-byte frame at
132.8125 Mbaud takes 0.17 ms), so no transmission still arriving overlaps a
window forgotten."""


class FrameLosses:
    """Frames lost in faults since the last reset: *frames_lost*, and their
    *payload_lost*, bytes (link-control frames carry none)."""

    __slots__ = ("frames_lost", "payload_lost")

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Zero the counters."""
        self.frames_lost = self.payload_lost = 0

    def lose(self, frame: Frame) -> None:
        """Count *frame* as lost."""
        self.frames_lost += 1
        if not frame.is_link_control:
            self.payload_lost += frame.payload_len


class RecoveryStats(FrameLosses):
    """What one port's recovery counted over the measured interval: *failures*
    (Link Failures it detected), *resets* (Link Resets it began), *timeouts*
    (primitive sequence protocols that timed out), *frames_lost* and
    *payload_lost* (frames to it lost on the line, refused outside Active or
    emptied from its buffers, and link-control frames it had queued when its
    link failed; payload bytes), *r_rdy_lost* (R_RDYs to it lost), *down_time*
    (time not Active, s)."""

    __slots__ = ("failures", "resets", "timeouts", "r_rdy_lost", "down_time")
    NAMES = ("failures", "resets", "timeouts", "frames_lost", "payload_lost", "r_rdy_lost",
             "down_time")
    """The counters, in the order of :meth:`as_dict`."""

    def reset(self) -> None:
        """Zero every counter."""
        super().reset()
        self.failures = self.resets = self.timeouts = self.r_rdy_lost = 0
        self.down_time = 0.0

    def as_dict(self) -> dict[str, float]:
        """The counters by name."""
        return {name: getattr(self, name) for name in self.NAMES}


class ControlledPort(Protocol):
    """What a :class:`LinkControl` reads of its port and tells it
    (:class:`fcsim.fc2.recovering_port.RecoveringPort` implements it): the line
    times the link set, when its line is next free (a
    :class:`fcsim.link.line.LineEnd`), and the peer port, whose :attr:`lcf` is
    the link control at the other end."""

    sim: Simulation
    name: str
    peer: Any
    """The port at the other end: a :class:`ControlledPort` once linked."""
    lcf: LinkControl
    char_time: float
    word_time: float
    delay: float
    """The cable's propagation delay, s."""
    line_free: float
    """When the port's line is free of frames, s."""
    bit_error_rate: float

    def state_changed(self, old: str, new: str) -> None:
        """The link control went from state *old* to *new*."""

    def kick(self) -> None:
        """The link is Active again: send what waits."""

    def lose_r_rdys(self, start: float, end: float) -> None:
        """R_RDYs arriving at the port from *start* to *end* (s) are lost."""


Listener = Callable[["LinkControl", str, str, str], None]
"""Told of each state change: (link control, old state, new state, reason)."""


class LinkControl:
    """The Link Control Facility of *port*: its state, what its receiver
    hears, and the protocols that bring the link back to Active.

    *powered*: the port works (a failed port sends and receives nothing);
    *cable*: its cable is in; *signal* and *sync*: its receiver has light and
    word synchronisation, both since *ok_since* (s); *impairments*: recent
    windows (start, end, lost) in which its receiver lost what arrived
    (lost) or received it corrupted; *listeners* are told of every change.
    """

    def __init__(self, port: ControlledPort) -> None:
        self.port = port
        self.state = AC
        self.since = 0.0
        self.powered = self.cable = self.signal = self.sync = True
        self.ok_since = 0.0
        self._unsynced = 0  # losses of synchronisation under way
        self.impairments: list[tuple[float, float, bool]] = []
        self.listeners: list[Listener] = []
        self.stats = RecoveryStats()
        self.heard: str | None = None  # the ordered set the receiver recognises now
        self._waiting = False  # in OL1, acting on what it hears once OLS has had its time
        self._down_since = 0.0  # when it last left Active (counted from the interval's start)
        self._sim = port.sim
        self._epoch = 0  # advanced by every change of state: stale timers do nothing

    @property
    def peer(self) -> LinkControl:
        """The link control at the other end of the link."""
        return self.port.peer.lcf

    @property
    def receiving(self) -> bool:
        """True if the receiver has light and word synchronisation."""
        return self.powered and self.signal and self.sync

    def lit(self) -> bool:
        """True if light from the peer reaches this port's receiver."""
        return self.cable and self.peer.powered

    # -- state changes -----------------------------------------------------------

    def enter(self, state: str, reason: str) -> None:
        """Enter *state* now because of *reason* (words, for traces and results)."""
        old = self.state
        if state == old:
            return
        now = self._sim.now
        self.state, self.since = state, now
        self._epoch += 1
        self._waiting = False
        if old == AC:
            self._down_since = now
        elif state == AC:
            self.stats.down_time += now - self._down_since
        if state == LF2:
            self.stats.failures += 1
        elif state == LR1 and old == AC:
            self.stats.resets += 1
        self.port.state_changed(old, state)
        for sink in self._sim.sinks:
            sink.state(now, self.port, f"{old} -> {state}: {reason}")
        if state != OFF and SENDS.get(old) is not SENDS[state]:
            self._transmit(now)
        if state in TIMED:
            self._sim.call_later(PROTOCOL_TIMEOUT, self._timeout, self._epoch)
        for listener in self.listeners:
            listener(self, old, state, reason)
        if state == AC:
            self.port.kick()
        elif state != OFF and self.receiving and self.heard is not None:
            self.recognise((self.heard, self.ok_since))  # what it hears goes on counting

    def reset_stats(self) -> None:
        """Start a new measurement interval now."""
        self.stats.reset()
        self._down_since = self._sim.now

    def close_stats(self) -> None:
        """End the measurement interval now, counting time not Active up to now."""
        now = self._sim.now
        if self.state != AC:
            self.stats.down_time += now - self._down_since
            self._down_since = now

    def _transmit(self, now: float) -> None:
        """Begin sending this state's ordered set (after the frame in progress)."""
        port = self.port
        sent = SENDS[self.state]
        start = max(now, port.line_free)
        for sink in self._sim.sinks:
            sink.primitive(now, port, sent.name, start)
        arrives = start + port.delay
        self._sim.call_later(arrives + RECOGNITION_WORDS * port.word_time - now,
                             self.peer.recognise, (sent.name, arrives))

    def _timeout(self, epoch: int) -> None:
        if epoch == self._epoch and self.powered:
            self.stats.timeouts += 1
            self.enter(LF2, f"no answer to {SENDS[self.state].name} within "
                            f"{PROTOCOL_TIMEOUT * 1e3:g} ms")

    def recognise(self, value: tuple[str, float]) -> None:
        """The peer's ordered set *name*, whose first word reached this port at
        *arrives* (s), has been received three times: act on it if the receiver
        heard all of it (in OL1, once OLS has been sent for its minimum)."""
        name, arrives = value
        if not self.receiving or self.ok_since > arrives + 1e-15:
            return
        self.heard = name
        if self.state == OL1:
            wait = self.since + OLS_MINIMUM - self._sim.now
            if wait > 0:
                if not self._waiting:
                    self._waiting = True
                    self._sim.call_later(wait, self._after_ols, self._epoch)
                return
        self.enter(next_state(self.state, name), f"{name} recognised")

    def _after_ols(self, epoch: int) -> None:
        self._waiting = False
        if epoch == self._epoch and self.receiving and self.heard is not None:
            self.enter(next_state(self.state, self.heard), f"{self.heard} recognised")

    # -- the receiver ------------------------------------------------------------

    def lose_signal(self) -> None:
        """The light at the receiver goes out now."""
        if self.signal:
            self.signal = False
            self._lost_from(self._sim.now)
            self._sim.call_later(LOS_ASSERT, self._no_signal, None)

    def _no_signal(self, _value: object) -> None:
        if not self.signal and self.powered and self.state not in SETTLED_DOWN:
            self.enter(LF2, "loss of signal")

    def light_returns(self, _value: object = None) -> None:
        """Light reaches the receiver again now (called, or scheduled as a
        callback): signal after the LOS deassert time, then synchronisation."""
        word = self.port.word_time
        self._sim.call_later(LOS_DEASSERT + SYNC_WORDS * word, self._signal_back, None)

    def _signal_back(self, _value: object) -> None:
        if self.lit() and not self.signal:
            self.signal = True
            self._receiver_back()

    def lose_sync(self, duration: float) -> None:
        """The receiver loses word synchronisation now for *duration* s (until
        then at least: another loss under way may end later)."""
        self._unsynced += 1
        if self.sync:
            self.sync = False
            self._lost_from(self._sim.now)
            self._sim.call_later(R_T_TOV, self._sync_timeout, None)
        self._sim.call_later(duration, self._sync_back, None)

    def _sync_timeout(self, _value: object) -> None:
        if not self.sync and self.powered and self.state not in SETTLED_DOWN:
            self.enter(LF2, f"loss of synchronisation for R_T_TOV ({R_T_TOV * 1e3:g} ms)")

    def _sync_back(self, _value: object) -> None:
        self._unsynced -= 1
        if not self.sync and not self._unsynced:
            self.sync = True
            self._receiver_back()

    def corrupt(self, characters: int) -> None:
        """A burst of *characters* corrupted characters reaches the receiver now;
        four invalid words or more also cost it synchronisation."""
        now = self._sim.now
        char = self.port.char_time
        self.impairments.append((now, now + characters * char, False))
        self.port.lose_r_rdys(now, now + characters * char)
        if characters >= LOSS_OF_SYNC_CHARACTERS:
            self._sim.call_later(LOSS_OF_SYNC_CHARACTERS * char, self.lose_sync,
                                 (characters - LOSS_OF_SYNC_CHARACTERS) * char
                                 + SYNC_WORDS * self.port.word_time)

    def _lost_from(self, now: float) -> None:
        """Nothing reaches the receiver from *now* until it hears again."""
        self.impairments.append((now, float("inf"), True))
        self.port.lose_r_rdys(now, float("inf"))

    def _receiver_back(self) -> None:
        """Light and synchronisation are back: close the window of loss and hear
        the peer's ordered set."""
        if not self.receiving:
            return
        now = self._sim.now
        self.ok_since = now
        self.heard = None
        self.impairments = [(s, now if e == float("inf") else e, lost)
                            for s, e, lost in self.impairments if e > now - IMPAIRMENT_MEMORY]
        peer = self.peer
        if peer.powered:
            self._sim.call_later(RECOGNITION_WORDS * self.port.word_time, self.recognise,
                                 (SENDS[peer.state].name, now))

    # -- power and cable -----------------------------------------------------------

    def power_off(self) -> None:
        """The port fails now: it sends and hears nothing."""
        self.enter(OFF, "port failure")
        self.powered = False
        if self.cable:
            self.peer.lose_signal()

    def power_on(self) -> None:
        """The port works again now: Link Initialization from OL1."""
        self.powered = True
        self.signal = False
        self.enter(OL1, "power on: link initialization")
        if self.lit():
            self.light_returns()
        if self.cable:
            self._sim.call_later(self.port.delay, self.peer.light_returns, None)
