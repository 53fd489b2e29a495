"""An arbitrated loop in a scenario: the ``[loop]`` table that describes the
ring, and the ring and each node's loop port as typed values in SI units
(:class:`LoopConfig`, :class:`LoopPortConfig`) that :func:`fcsim.loop.build.build_loop`
builds."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated

from fcsim.fc0.cable import Cable
from fcsim.fc0.speed import Speed as LineSpeed
from fcsim.loop.ring import DEFAULT_REPEAT_WORDS
from fcsim.schema.fields import (
    Expects,
    Flag,
    Name,
    NodeNames,
    Propagation,
    Speed,
    Time,
    Words,
    length,
)
from fcsim.schema.link_fields import (
    CODING_HELP,
    DEFAULT_PROPAGATION,
    PROPAGATION_HELP,
    SPEED_HELP,
    BitErrorRate,
    Coding,
)
from fcsim.schema.section import Section, key

HopLength = length("a length with a unit such as '2 m', >= 0 m")
HopLengths = Annotated[list[HopLength], Expects("a list of lengths such as ['2 m', '10 km']")]
Times = Annotated[list[Time], Expects("a list of times such as ['5 ms']")]


class LoopSection(Section):
    """The ring of an arbitrated loop (FC-AL) of 2 to 126 nodes, each an NL_Port.
    Each node transmits to the next in `order`, the last to the first; the loop
    round trip is the sum of the ports' repeat delays and the hops' propagation
    delays. Workloads on a loop are Class 2 or 3."""

    where = "in [loop]"

    name: Name = key("loop", "The loop's name.", "jbod")
    order: NodeNames = key(
        None, "Node names in ring order (default: the [[nodes]] order).",
        ["host", "d1", "d2"])
    speed: Speed = key(help=SPEED_HELP, example="1GFC")
    coding: Coding = key(None, CODING_HELP, "8b/10b")
    hop_length: HopLength = key(
        "0 m", "The cable of every hop, m (see hop_lengths for hops of their own).", "2 m")
    hop_lengths: HopLengths = key(
        None, "The cable of each hop, m, in ring order: the first from the first node of "
        "order to the second, ..., the last from the last node back to the first; one per "
        "node (a loop with one long span between two sites). Instead of hop_length.",
        ["2 m", "2 m", "10 km", "2 m"])
    propagation: Propagation = key(DEFAULT_PROPAGATION, PROPAGATION_HELP, "5 ns/m")
    bit_error_rate: BitErrorRate = key(
        0.0, "Probability that a line bit is received in error, per hop.", 1e-12)
    repeat_delay: Words = key(
        DEFAULT_REPEAT_WORDS, "How long a port that is only repeating (monitoring or "
        "arbitrating) holds each word, transmission words (40 line bits at 8b/10b); 12 is "
        "the most FC-AL-2 allows. A node's own repeat_delay overrides it.", 6)
    lip_at: Times = key(
        [], "Times at which the first port in order sends LIP and the loop initialises "
        "again (it also initialises at time 0), s: tenancies are aborted, frames in flight "
        "lost (counted as dropped), and the initialisation takes simulated time before "
        "frames flow again.", ["5 ms", "8 ms"])
    position_map: Flag = key(True, "Whether initialisation includes the LIRP and LILP "
                               "frames.", False)


@dataclass(frozen=True)
class LoopPortConfig:
    """A node's loop port: hard *al_pa* (None: soft address), *fairness* (access
    fairness algorithm), *repeat_delay* in transmission words (None: the loop's)
    and *login_credit*, the BB credit it announces at login (frames)."""

    al_pa: int | None = None
    fairness: bool = True
    repeat_delay: int | None = None
    login_credit: int = 0


@dataclass(frozen=True)
class LoopConfig:
    """The ring of an arbitrated loop; for ``topology = "loop"`` it is the one
    element of :attr:`fcsim.scenario.model.Scenario.links`.

    *order*: node names in ring order (each sends to the next, the last to the
    first); *speed*; *cable* of every hop, or *cables*, one per hop in ring
    order (hop *i* from ``order[i]`` to the next; empty: *cable* for all);
    *bit_error_rate* per hop;
    *repeat_delay*: default repeat delay of a port, transmission words;
    *lip_at*: times of loop initialisations after the one at start, s;
    *position_map*: initialisation includes LIRP and LILP.
    """

    name: str
    order: tuple[str, ...]
    speed: LineSpeed
    cable: Cable = field(default_factory=Cable)
    bit_error_rate: float = 0.0
    repeat_delay: int = DEFAULT_REPEAT_WORDS
    lip_at: tuple[float, ...] = ()
    position_map: bool = True
    cables: tuple[Cable, ...] = ()

    def hop_cables(self) -> tuple[Cable, ...]:
        """The cable of each hop, in ring order."""
        return self.cables or (self.cable,) * len(self.order)
