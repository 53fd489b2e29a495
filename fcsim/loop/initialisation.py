"""Loop initialisation, timed: LIP, LISM, LIFA, LIPA, LIHA, LISA, LIRP, LILP, CLS.

Sequence (fact sheet 5.4; Seagate FC interface manual p.36; Hitachi DK32EJ
p.45; Linux ``fc-al.h`` for the codes and sizes):

1. LIP, a primitive sequence, goes round from the port that starts it. Each
   port recognises it after three identical ordered sets (fact sheet 2.3), so
   it passes a port after the port's repeat delay plus two more words, and
   every port drops what it was doing.
2. LISM (select master; 12-byte payload: code and 8-byte Port_Name). Every port
   sends its own and forwards a lower Port_Name's; the port whose LISM comes
   back is the loop master: the lowest Port_Name, or the FL_Port, which always
   wins. It starts when the LIP reaches the master.
3. The master sends LIFA, LIPA, LIHA and LISA (20 bytes each: code and the
   16-byte AL_PA bitmap) round the loop, each after the previous one returns;
   each port sets the bit of the AL_PA it claims (:func:`fcsim.loop.al_pa.assign`).
4. Optionally LIRP and LILP (132 bytes: code and the 128-byte position map),
   when every port supports the position map.
5. The master sends CLS; each port it passes returns to MONITORING, and the
   loop is initialised when the CLS is back at the master.

Initialisation frames are SOFi3/EOFt Class 3 frames (R_CTL 0x22, TYPE ELS).
A port must receive a whole frame, check it and update the bitmap before it
sends the frame on, so each hop costs the frame's transmission time plus the
port's repeat delay plus the cable: a frame's circuit takes
``path(m, m) + n x frame time``. Not modelled: AL_TIME and LP_TOV timeouts,
the 12 LIPs a port sends before LISM, loop failure (LIP(F8)), non-participating
ports and the LIP retries that address conflicts cause.
"""

from __future__ import annotations

from dataclasses import dataclass

from fcsim.fc2.frame import frame_chars
from fcsim.loop.ring import Ring

LISM_BYTES = 12
"""Payload of LISM: 4-byte code 0x11010000 and the 8-byte Port_Name (LNX-AL)."""
BITMAP_FRAME_BYTES = 20
"""Payload of LIFA, LIPA, LIHA and LISA: code and 16-byte AL_PA bitmap (LNX-AL)."""
POSITION_MAP_BYTES = 132
"""Payload of LIRP and LILP: code and 128-byte position map (LNX-AL)."""
RECOGNITION_WORDS = 2
"""Words a port waits after the first LIP before it has the three that make a
primitive sequence (fact sheet 2.3)."""


@dataclass(frozen=True)
class InitTimeline:
    """When one initialisation's events happen (times in s).

    *monitoring_at[i]*: when port *i* returns to MONITORING (the CLS passes it;
    the master's is *end*). *cut_at[i]*: when the LIP reaches port *i*, after
    which nothing sent before the LIP is received there. *phases*: each phase
    name with the time it ends.
    """

    start: float
    initiator: int
    master: int
    cut_at: tuple[float, ...]
    monitoring_at: tuple[float, ...]
    phases: tuple[tuple[str, float], ...]

    @property
    def end(self) -> float:
        """When the CLS returns to the master, s."""
        return self.monitoring_at[self.master]

    @property
    def duration(self) -> float:
        """From the LIP to the loop being initialised, s."""
        return self.end - self.start


def lip_arrival(ring: Ring, word_time: float, initiator: int, port: int) -> float:
    """Delay from the LIP leaving *initiator* to its recognition at *port*, s."""
    if port == initiator:
        return 0.0
    return ring.path(initiator, port) + RECOGNITION_WORDS * word_time * (
        ring.between(initiator, port) + 1)


def timeline(ring: Ring, word_time: float, char_time: float, start: float, initiator: int,
             master: int, position_map: bool) -> InitTimeline:
    """The events of an initialisation begun by *initiator* at *start* (s).

    *word_time* and *char_time* are the loop's transmission word and character
    times, s; *master* the port that wins LISM.
    """
    n = ring.n
    cut_at = tuple(start + lip_arrival(ring, word_time, initiator, i) for i in range(n))
    if master == initiator:
        t = start + ring.path(initiator, initiator) + RECOGNITION_WORDS * word_time * n
    else:
        t = cut_at[master]
    phases = [("LIP", t)]
    frames = [("LISM", LISM_BYTES)] + [(name, BITMAP_FRAME_BYTES)
                                       for name in ("LIFA", "LIPA", "LIHA", "LISA")]
    if position_map:
        frames += [("LIRP", POSITION_MAP_BYTES), ("LILP", POSITION_MAP_BYTES)]
    circuit = ring.path(master, master)
    for name, payload in frames:
        t += circuit + n * frame_chars(payload) * char_time
        phases.append((name, t))
    cls_end = t + word_time
    monitoring_at = tuple(cls_end + ring.path(master, i) for i in range(n))
    phases.append(("CLS", monitoring_at[master]))
    return InitTimeline(start, initiator, master, cut_at, monitoring_at, tuple(phases))
