"""Ring geometry: how long a transmission word takes from one loop port to another.

Port *i* transmits to port *i + 1* (mod *n*) over hop cable *i*. A port that
is repeating (monitoring or arbitrating) retransmits each word it receives
after its repeat delay; a port that is opened, or sends its own words, does
not. So a word sent by port *i* reaches the receiver of port *j* after the
cables from *i* to *j* and the repeat delays of the ports strictly between:

    path(i, j) = sum(cable[i..j-1]) + sum(repeat[i+1..j-1])      (indices mod n)

and ``path(i, i)`` is the full circuit back to *i*. The loop round trip, the
sum of every port's repeat delay and every cable (fact sheet 5.2; HP SAN
design guide), is ``path(i, i) + repeat[i]`` for any *i*.

Repeat delay: "the maximum delay of a Transmission Word through an L_Port in
the MONITORING or ARBITRATING state should not exceed twelve (12)
Transmission Word periods" (FC-AL-2 AM2, INCITS 332-1999/AM2-2006, as quoted
at freestandardsdownload.com/?p=17816). :data:`DEFAULT_REPEAT_WORDS` takes
that bound, the slowest loop the standard allows; vendor ports often add fewer
(fact sheet 5.2: about 6, unconfirmed), so it is settable per port.
"""

from __future__ import annotations

from collections.abc import Sequence

DEFAULT_REPEAT_WORDS = 12
"""Default repeat delay of a loop port, transmission words (FC-AL-2 AM2 maximum)."""


class Ring:
    """Geometry of a ring of ``len(repeat)`` ports.

    *repeat[i]* is port *i*'s repeat delay and *cable[i]* the propagation delay
    of the hop from port *i* to port *i + 1*, both in s.
    """

    def __init__(self, repeat: Sequence[float], cable: Sequence[float]) -> None:
        n = len(repeat)
        if n < 2 or len(cable) != n:
            raise ValueError(f"a ring needs >= 2 ports and one cable per port, got {n}, "
                             f"{len(cable)}")
        if min(repeat) < 0 or min(cable) < 0:
            raise ValueError("repeat and cable delays must be >= 0 s")
        self.n = n
        self.repeat = tuple(repeat)
        self.cable = tuple(cable)
        self.round_trip = sum(repeat) + sum(cable)
        # emitted[k]: when port k (unrolled over two turns) retransmits a word
        # that port 0 sent at time 0, if every port repeats.
        emitted = [0.0]
        for k in range(2 * n):
            emitted.append(emitted[k] + cable[k % n] + repeat[(k + 1) % n])
        self._emitted = emitted

    def path(self, i: int, j: int) -> float:
        """Delay from port *i*'s transmitter to port *j*'s receiver, s (*j* = *i*: a circuit)."""
        unrolled = j if j > i else j + self.n
        return self._emitted[unrolled] - self.repeat[j] - self._emitted[i]

    def hops(self, i: int, j: int) -> int:
        """Cables a word crosses from port *i* to port *j* (*j* = *i*: all of them)."""
        return (j - i - 1) % self.n + 1

    def between(self, i: int, j: int) -> int:
        """Ports strictly between *i* and *j* in ring order (*j* = *i*: all others)."""
        return self.hops(i, j) - 1
