"""A scenario's fault schedule: the ``[[faults]]`` tables a scenario file
gives (:class:`ScheduledFaultSection`, docs/faults.md), the typed values in
SI units the loader makes of each (:class:`FaultConfig`), and what
:mod:`fcsim.faults.injector` reads of a scenario to apply them to the built
network (:class:`FaultPlan`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from fcsim.fabric.fspf import FspfTimers
from fcsim.schema.fields import Ends, Name, PositiveTime, Time, choice, integer
from fcsim.schema.link_fields import BitErrorRate
from fcsim.schema.section import Section, key

LINK_DOWN = "link-down"
LINK_UP = "link-up"
LOSS_OF_SYNC = "loss-of-sync"
BIT_ERROR_RATE = "bit-error-rate"
PORT_FAILURE = "port-failure"
SWITCH_FAILURE = "switch-failure"
LIP = "lip"
CORRUPTED_CHARACTERS = "corrupted-characters"
KINDS = (LINK_DOWN, LINK_UP, LOSS_OF_SYNC, BIT_ERROR_RATE, PORT_FAILURE, SWITCH_FAILURE, LIP,
         CORRUPTED_CHARACTERS)
"""Every kind of fault, as a scenario names it."""


HOLD = "hold"
DROP = "drop"
BY_PROTOCOL = "by-protocol"
LINK_DOWN_POLICIES = (BY_PROTOCOL, HOLD, DROP)
"""What an N_Port's host does with upper-layer sequences while its link is
down: hold them until it has logged in again (as Linux's FC transport blocks
a remote port's SCSI I/O), drop them (as a Linux network device without
carrier drops IP packets), or each by its protocol: IP dropped, the others
(FCP, FC-2 workloads) held."""
DEV_LOSS_TMO = 60.0
"""How long held sequences wait before they are failed, s: Linux
scsi_transport_fc's dev_loss_tmo default (lpfc sets 30 s)."""


@dataclass(frozen=True)
class FaultConfig:
    """One fault: *kind* (one of :data:`KINDS`) at time *at*, s.

    Its target is one of *link* (a link's name: its cable, both directions),
    *port* (a link-level port's name: a node's N_Port, ``switch:port``, or on
    a loop the NL_Port of a node) and *switch* (a switch's name).
    *duration*: how long a loss of synchronisation lasts, a port or switch
    stays failed, a cable stays out (link-down) or a bit error rate lasts
    (None: to the end of the run, or until a link-up), s. *bit_error_rate*:
    the probability of a line bit in error from *at* on (bit-error-rate), in
    the frames *sender* (an end of the link, by name) sends, or (None) both
    directions.
    *characters*: the length of a burst of corrupted transmission characters
    (corrupted-characters).

    A fault that repeats happens first at *at* and again every *every* s, or
    at random, a Poisson process of mean interval *mean_interval* s (its
    first occurrence a random interval after *at*), until *until* (None: the
    end of the run).
    """

    at: float
    kind: str
    link: str | None = None
    port: str | None = None
    switch: str | None = None
    duration: float | None = None
    bit_error_rate: float | None = None
    characters: int | None = None
    every: float | None = None
    mean_interval: float | None = None
    until: float | None = None
    sender: str | None = None

    @property
    def repeats(self) -> bool:
        """Whether the fault happens more than once (periodic or random)."""
        return self.every is not None or self.mean_interval is not None

    @property
    def target(self) -> str:
        """The target in words: ``link fibre``, ``port host``, ``switch core``."""
        if self.link is not None:
            return f"link {self.link}"
        if self.port is not None:
            return f"port {self.port}"
        return f"switch {self.switch}"

    @property
    def label(self) -> str:
        """The fault in words: ``link-down of link fibre``."""
        return f"{self.kind} of {self.target}"


class NodeFaultPolicy(Protocol):
    """What the injector reads of a node: its *name* and what its N_Port does
    with upper-layer sequences while its link is down (*link_down*, one of
    :data:`LINK_DOWN_POLICIES`, held at most *dev_loss_tmo* s)."""

    @property
    def name(self) -> str: ...
    @property
    def link_down(self) -> str: ...
    @property
    def dev_loss_tmo(self) -> float: ...


class RunLength(Protocol):
    """What the injector reads of a run: its *duration*, s."""

    @property
    def duration(self) -> float: ...


class FaultPlan(Protocol):
    """What the injector reads of a scenario: its *topology* (a scenario's
    ``topology`` value), its fault schedule (*faults*, in time order), its
    *run*'s length, a fabric's *fspf* timers, its *nodes*' link-down
    policies and whether its links recover (*recovering*: it has faults, or
    congestion cures that reset or disable links;
    :class:`fcsim.scenario.model.Scenario` is one)."""

    @property
    def topology(self) -> str: ...
    @property
    def faults(self) -> Sequence[FaultConfig]: ...
    @property
    def run(self) -> RunLength: ...
    @property
    def fspf(self) -> FspfTimers: ...
    @property
    def nodes(self) -> Sequence[NodeFaultPolicy]: ...
    @property
    def recovering(self) -> bool: ...


Kind = choice({kind: kind for kind in KINDS})
Characters = integer(1, 10**9, "an integer 1..1000000000 (transmission characters)")


class ScheduledFaultSection(Section):
    """One fault of the run: at a time, a kind, and one target key (`link`,
    `ends`, `port` or `switch`) that the kind accepts. Kinds and their targets:
    `link-down` and `link-up` (a cable pulled out and put back: `link` or
    `ends`); `loss-of-sync` (the receivers of a link, or one port's receiver,
    lose word synchronisation for `duration`); `bit-error-rate` (a link's bit
    error rate from then on, `bit_error_rate`); `port-failure` (a node's N_Port
    or a switch port stops, for `duration` or to the end); `switch-failure`
    (every port of a switch, and what it holds, for `duration` or to the end);
    `corrupted-characters` (a burst of `characters` corrupted transmission
    characters on a link's receivers or one port's receiver); `lip` (on a
    loop: the NL_Port of `port` sends LIP and the loop initialises). Faults
    act in time order (equal times in file order); docs/faults.md says what
    each does and how the ports recover. A fault repeats with `every` (a
    period) or `mean_interval` (at random: a Poisson process, drawn from the
    run's random streams), from `at` until `until`: a LIP storm, a flapping
    port or cable, random bursts of bit errors."""

    where = "in [[faults]]"

    at: Time = key(help="When the fault happens, s from the start of the run (before "
                   "run.duration).", example="5 ms")
    kind: Kind = key(help="What happens (see above).", example="link-down")
    link: Name = key(None, "Target: a link, by name (in a fabric a node's link or an "
                     "inter-switch link).", "fibre")
    ends: Ends = key(None, "Target: a link, by its two ends as its [[links]] table lists "
                     "them (in either order).", ["host", "disk"])
    port: Name = key(None, "Target: a port, by its node's name (its N_Port; on a loop, its "
                     "NL_Port) or as a switch port 'switch:port'.", "host")
    switch: Name = key(None, "Target: a switch of a fabric, by name.", "core")
    duration: PositiveTime = key(
        None, "How long the loss of synchronisation lasts (required for loss-of-sync), "
        "the port or switch stays failed (port-failure, switch-failure; default: to the "
        "end of the run), the cable stays out (link-down; default: until a link-up) or "
        "the bit error rate lasts (bit-error-rate; default: to the end of the run), s. "
        "Required when the fault repeats (but for lip and corrupted-characters), and "
        "shorter than `every`.", "150 ms")
    bit_error_rate: BitErrorRate = key(
        None, "The link's bit error rate from `at` on, both directions unless `from` is "
        "given (required for bit-error-rate, and only there).", 1e-9)
    sender: Name = key(None, "bit-error-rate only: the rate is that of the frames this end "
                       "of the link sends (one direction; default: both).", "host",
                       alias="from")
    characters: Characters = key(
        None, "The length of the burst of corrupted transmission characters (required for "
        "corrupted-characters, and only there); a burst of 16 or more (four words) also "
        "costs the receiver its word synchronisation.", 40)
    every: PositiveTime = key(
        None, "The fault repeats: again every this long after `at`, until `until` (not "
        "with mean_interval, nor kind link-up).", "100 us")
    mean_interval: PositiveTime = key(
        None, "The fault repeats at random: a Poisson process of this mean interval (rate "
        "1/mean_interval) from `at` until `until`, drawn from the run's random streams; an "
        "occurrence while the previous one lasts (its `duration`) is skipped (not with "
        "every, nor kind link-up).", "10 ms")
    until: PositiveTime = key(
        None, "A repeating fault's last occurrence is before this time, after `at` and "
        "no later than run.duration (default: run.duration).", "39.9 ms")
