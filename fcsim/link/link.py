"""A full-duplex link between two ports.

The link owns only what belongs to the medium: the line rate, the cable's
propagation delay and the bit error rate of each direction. The transmitters
live in the ports (:class:`fcsim.fc2.port.Port`, an Ethernet port, a Myrinet
port), each a :class:`LinkEnd` telling the link how many transmission words
its gap after a frame takes (``GAP_WORDS``).
"""

from __future__ import annotations

from typing import Any, ClassVar, Generic, Protocol, TypeVar

from fcsim.fc0.cable import Cable
from fcsim.fc0.speed import Speed
from fcsim.fc1.fec import FecLine


class CableSpec(Protocol):
    """What a builder reads of a cable to lay: its *name*, its two *ends*
    (node names, or ``switch:port``), its line *speed* and its *cable*
    (length and propagation). A scenario's link tables are such."""

    @property
    def name(self) -> str: ...
    @property
    def ends(self) -> tuple[str, str]: ...
    @property
    def speed(self) -> Speed: ...
    @property
    def cable(self) -> Cable: ...


class LinkSpec(CableSpec, Protocol):
    """A :class:`CableSpec` whose bits may be received in error: its
    *bit_error_rate* (both ways) and the *error_rates* of ends whose frames
    have another, as (end, rate)."""

    @property
    def bit_error_rate(self) -> float: ...
    @property
    def error_rates(self) -> tuple[tuple[str, float], ...]: ...


class LinkEnd(Protocol):
    """What a :class:`Link` reads and sets of each port it joins: every port
    kind a link joins implements it (its transmitter, for
    :func:`fcsim.link.line.launch`, is a :class:`fcsim.link.line.LineEnd`)."""

    GAP_WORDS: ClassVar[int]
    """Transmission words of the technology's gap after each frame."""
    name: str
    """The port's name, unique in the network."""
    peer: Any
    """The port at the other end (None until linked); of the port's own kind."""
    char_time: float
    """One transmission character on the line, s (set by the link)."""
    word_time: float
    """One transmission word (four characters), s (set by the link)."""
    gap_time: float
    """The gap after each frame, ``GAP_WORDS`` words, s (set by the link)."""
    delay: float
    """The cable's propagation delay and, on a line with FEC, the line time of
    one codeword, which the receiver holds before decoding it, s (set by the
    link)."""
    bit_error_rate: float
    """Probability that one line bit this port sends is received in error (set
    by the link; a fault may change it)."""
    line_bits: float
    """Line bits per transmission character (set by the link)."""
    fec: FecLine | None
    """The FEC of the direction this port sends on (set by the link; None below
    32GFC)."""


class PhyEnd(LinkEnd, Protocol):
    """A link end whose physical layer a fault acts on directly (the Ethernet
    and Myrinet ports, :class:`fcsim.faults.lan.LanLink`): light at its
    receiver, and the carrier its PHY reports. A Fibre Channel port's
    physical layer is its Link Control Facility's
    (:class:`fcsim.fc2.link_recovery.LinkControl`)."""

    light: bool
    """Light reaches the receiver: frames arriving while it does not are lost."""
    frames_lost: int
    """Frames lost at or from this port for want of light."""

    def set_light(self, on: bool) -> None:
        """Light reaches the receiver again (*on*) or no more, now."""

    def carrier(self, up: bool) -> None:
        """The PHY reports the link up or down now."""


End = TypeVar("End", bound=LinkEnd)
"""The port kind at both ends of a link."""


class Link(Generic[End]):
    """Joins ports *a* and *b* at *speed* over *cable*.

    *bit_error_rate* is the probability that any one line bit is received in
    error, the same in both directions unless *by_sender* gives (port name,
    rate) for the frames a port sends; a frame with any bit in error fails
    its CRC at the receiver.
    """

    def __init__(
        self,
        name: str,
        a: End,
        b: End,
        speed: Speed,
        cable: Cable,
        bit_error_rate: float = 0.0,
        by_sender: tuple[tuple[str, float], ...] = (),
    ) -> None:
        if not 0.0 <= bit_error_rate < 1.0:
            raise ValueError(f"{name}: bit_error_rate must be in [0, 1), got {bit_error_rate}")
        if a.peer is not None or b.peer is not None:
            raise ValueError(f"{name}: port {a.name if a.peer else b.name} is already linked")
        self.name = name
        self.a = a
        self.b = b
        self.speed = speed
        self.cable = cable
        self.bit_error_rate = bit_error_rate
        for near, far in ((a, b), (b, a)):
            near.peer = far
            near.char_time = speed.char_time
            near.word_time = speed.word_time
            near.gap_time = near.GAP_WORDS * speed.word_time
            near.delay = cable.delay + speed.codeword_time
            near.bit_error_rate = bit_error_rate
            near.line_bits = speed.line_bits_per_byte
            near.fec = FecLine(speed) if speed.fec is not None else None
        rates = dict(by_sender)
        if not set(rates) <= {a.name, b.name}:
            raise ValueError(f"{name}: bit error rates for {sorted(rates)}, ends {a.name} "
                             f"and {b.name}")
        for port in (a, b):
            port.bit_error_rate = rates.get(port.name, bit_error_rate)

    @property
    def ports(self) -> tuple[End, End]:
        """The two ends."""
        return (self.a, self.b)

    def direction_name(self, sender: End) -> str:
        """Name of the direction that *sender* transmits on, e.g. ``"A->B"``."""
        receiver = self.b if sender is self.a else self.a
        return f"{sender.name}->{receiver.name}"
