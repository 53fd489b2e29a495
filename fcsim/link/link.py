"""A full-duplex link between two ports.

The link owns only what belongs to the medium: the line rate, the cable's
propagation delay and the bit error rate of each direction. The transmitters
live in the ports (:class:`fcsim.fc2.port.Port`, an Ethernet port), each
telling the link how many transmission words its gap after a frame takes
(``GAP_WORDS``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fcsim.fc0.cable import Cable
from fcsim.fc0.speed import Speed

if TYPE_CHECKING:
    from fcsim.fc2.port import Port


class Link:
    """Joins ports *a* and *b* at *speed* over *cable*.

    *bit_error_rate* is the probability that any one line bit is received in
    error, the same in both directions unless *by_sender* gives (port name,
    rate) for the frames a port sends; a frame with any bit in error fails
    its CRC at the receiver.
    """

    def __init__(
        self,
        name: str,
        a: Port,
        b: Port,
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
            near.delay = cable.delay
            near.bit_error_rate = bit_error_rate
        rates = dict(by_sender)
        if not set(rates) <= {a.name, b.name}:
            raise ValueError(f"{name}: bit error rates for {sorted(rates)}, ends {a.name} "
                             f"and {b.name}")
        for port in (a, b):
            port.bit_error_rate = rates.get(port.name, bit_error_rate)

    @property
    def ports(self) -> tuple[Port, Port]:
        """The two ends."""
        return (self.a, self.b)

    def direction_name(self, sender: Port) -> str:
        """Name of the direction that *sender* transmits on, e.g. ``"A->B"``."""
        receiver = self.b if sender is self.a else self.a
        return f"{sender.name}->{receiver.name}"
