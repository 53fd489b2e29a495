"""The ``[[faults]]`` tables: the fault schedule of a point-to-point link, a
fabric or a loop (docs/faults.md)."""

from __future__ import annotations

from fcsim.faults.config import KINDS
from fcsim.scenario.sections.links import BitErrorRate
from fcsim.schema.fields import Ends, Name, PositiveTime, Time, choice, integer
from fcsim.schema.section import Section, key

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
