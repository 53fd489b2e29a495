"""How much a scenario asks of the machine, estimated from its physics before it runs.

``fcsim run`` refuses a scenario whose estimate passes a limit (an accepted
file with ``duration = "1e12 s"`` would otherwise run for years), unless the
user raises the limit. The estimate is an upper bound made of the quantities
that cost simulation time and memory:

- **frames**: a saturating stream, netperf or iperf run (or each hop of a
  transfer) can send at most the line's frame rate, ``char_rate / (frame
  characters + 24 fill characters)``, for its frame size (its message size, at
  most the 2112-byte data field), for as long as it runs; an open-loop
  generator makes one arrival per mean gap (or *count* arrivals), each at
  least one frame, and every arrival is simulated even when the link cannot
  carry it (the sequences queue);
- **sequences in memory**: a stream keeps *outstanding* sequences open, a
  striped one (FC-3) every stripe unit of them;
- **FC-3**: a striped stream sends on each of its N_Port pairs; a frame to
  a multicast group is copied to each member and across inter-switch links;
- **setting up**: each repetition builds its network and logs its N_Ports in,
  counted as :data:`SETUP_FRAMES_PER_NODE` frames per node (per N_Port), so
  that a billion repetitions of a nanosecond are not taken for no work;
- all of it times the repetitions and the points of a netperf or iperf sweep.

The line rate is that of the fastest link or loop of the scenario, which
keeps the estimate an upper bound (a TCP_RR test, bound by its round trips,
sends far fewer frames than its line could carry). At about 200,000 frames
per wall-second (``bench/frames_per_second.py``), :data:`WARN_FRAMES` is
about ten minutes of simulation and :data:`DEFAULT_MAX_FRAMES` about half a
day.
"""

from __future__ import annotations

from dataclasses import dataclass

from fcsim.fc2.frame import FRAMING_BYTES, MAX_DATA_FIELD
from fcsim.fc2.port import MIN_FILL_WORDS
from fcsim.scenario.model import Scenario
from fcsim.scenario.workload_model import (
    GeneratorConfig,
    IperfConfig,
    NetperfConfig,
    StreamConfig,
    TransferConfig,
)

WARN_FRAMES = 1e8
"""Past this estimate ``fcsim run`` says how long the run may take."""
DEFAULT_MAX_FRAMES = 1e10
"""Frames and arrivals ``fcsim run`` simulates without being told it may do more."""
FRAMES_PER_SECOND = 2e5
"""Simulated frames per wall-second, order of magnitude (``bench/frames_per_second.py``)."""
DEFAULT_MAX_OPEN_SEQUENCES = 1_000_000
"""Sequences kept open at once (memory: about a kilobyte each with their state)."""
SETUP_FRAMES_PER_NODE = 40.0
"""Calibration value: the wall time of building one repetition's network and
logging its N_Ports in, per node, in frames at :data:`FRAMES_PER_SECOND`
(measured with every example scenario cut to 1 ns: 7 to 36 frames per node,
0.07 ms for two nodes point to point to 1.5 ms for the core-edge fabric;
about 20 per node with the command line's own per-repetition work)."""
GAP_CHARS = 4 * MIN_FILL_WORDS


@dataclass(frozen=True)
class Work:
    """The estimate: *frames* (frames and generator arrivals, all repetitions and
    sweep points) and *open_sequences* (the most sequences open at once)."""

    frames: float
    open_sequences: int

    def refusal(self, max_frames: float, max_open_sequences: float) -> str | None:
        """Why a run of this much work is refused under these limits (naming the
        option that raises each), or None."""
        if self.open_sequences > max_open_sequences:
            return (f"keeps {self.open_sequences:,} sequences open at once (workload "
                    f"'outstanding'), more than the limit of {max_open_sequences:,.0f}; "
                    "lower it, or raise the limit with --max-open-sequences")
        if self.frames > max_frames:
            return (f"would simulate up to {self.frames:.3g} frames and arrivals ("
                    f"{wall_time(self.frames)} at {FRAMES_PER_SECOND:.0e} frames per second), "
                    f"more than the limit of {max_frames:.3g}; shorten the run or repeat it "
                    "less, or raise the limit with --max-frames")
        return None


def wall_time(frames: float) -> str:
    """The wall time simulating *frames* may take, in words: ``"under a
    second"``, ``"about 12 seconds"``, ``"about 10 minutes"``, ``"about 2
    hours"``, ``"about 7.76e+03 years"``."""
    seconds = frames / FRAMES_PER_SECOND
    if seconds < 0.5:
        return "under a second"
    if seconds < 59.5:
        return f"about {seconds:.0f} second{'' if round(seconds) == 1 else 's'}"
    if seconds < 3600:
        return f"about {seconds / 60:.0f} minute{'' if round(seconds / 60) == 1 else 's'}"
    if seconds < 86400 * 365:
        return f"about {seconds / 3600:.3g} hours"
    return f"about {seconds / (86400 * 365):.3g} years"


def _fastest_char_rate(scenario: Scenario) -> float:
    """Characters per second (bytes/s) of the fastest line of *scenario* (of any
    of its networks)."""
    links = [*scenario.links, *(link for net in scenario.networks for link in net.links)]
    return max(link.speed.char_rate for link in links)


def _frame_rate(char_rate: float, payload: float) -> float:
    """Frames per second a line of *char_rate* characters per second carries at
    *payload* bytes each."""
    data = min(max(payload, 0.0), MAX_DATA_FIELD)
    return char_rate / (data + FRAMING_BYTES + GAP_CHARS)


def _copies(scenario: Scenario, w: StreamConfig | GeneratorConfig) -> int:
    """Links a frame of *w* may cross: 1, or for a multicast group its source's
    link, each member's and each inter-switch link."""
    group = next((g for g in scenario.alias_groups if g.name == w.destination), None)
    if group is None or group.kind != "multicast":
        return 1
    isls = sum(all(":" in end for end in getattr(link, "ends", ())) for link in scenario.links)
    return 1 + len(group.members) + isls


def estimate(scenario: Scenario) -> Work:
    """The upper-bound estimate of :class:`Work` for *scenario*."""
    run = scenario.run
    frames = SETUP_FRAMES_PER_NODE * sum(n.ports for n in scenario.nodes)  # per N_Port
    open_sequences = 0
    points = 1
    char_rate = _fastest_char_rate(scenario) if scenario.workloads else 0.0
    for w in scenario.workloads:
        span = max(run.duration - w.start, 0.0)
        if isinstance(w, StreamConfig) and w.stripe_ports > 1:
            unit = w.stripe_unit or w.size
            frames += _frame_rate(char_rate, min(w.size, unit)) * span * w.stripe_ports
            open_sequences += w.outstanding * max(1, -(-w.size // max(unit, 1)))
        elif isinstance(w, StreamConfig):
            frames += _frame_rate(char_rate, w.size) * span * _copies(scenario, w)
            open_sequences += w.outstanding
        elif isinstance(w, GeneratorConfig):
            mean_gap = w.interarrival.mean
            arrivals = span / mean_gap if mean_gap > 0 else float("inf")
            if w.count is not None:
                arrivals = min(arrivals, w.count)
            frames += arrivals + min(arrivals, _frame_rate(char_rate, w.size.mean) * span) * (
                _copies(scenario, w))
        elif isinstance(w, NetperfConfig):
            points *= len(w.send_sizes) * len(w.sockets)
            smallest = min(w.send_sizes)
            frames += _frame_rate(char_rate, smallest) * min(span, w.options.length)
        elif isinstance(w, IperfConfig):
            points *= len(w.points())
            frames += _frame_rate(char_rate, 0) * min(span, w.options.duration)
        elif isinstance(w, TransferConfig):  # each hop's line, at most the whole run
            frames += (len(w.path) - 1) * _frame_rate(char_rate, 0) * span
    return Work(frames * run.repetitions * points, open_sequences)
