"""The record of each fault of a run, as an incident report gives it: when the
ports noticed, what they did, when service was back, what was lost and sent
again, and the throughput before, during and after.

Each fault watches the ports it strikes (a link's two ends; a port and its
peer; every port of a switch and their peers) and the N_Ports behind them.
It is *detected* when one of those ports leaves Active (the fault's own time
for a failed port, a LIP or a cable put back) and *recovered*, service
restored, once traffic can flow again where it flowed before: every port is
Active again (but one whose cable another fault pulled out), every N_Port
among them has logged in again, and, for a fault that watches a switch's
E_Port, the fabric's routes have converged: every switch routes over every
ISL that is Active at both ends
and none pauses its forwarding for in-order delivery
(:meth:`fcsim.faults.fabric_recovery.FabricRecovery.converged`), since until
its switches' new LSRs have been flooded (FSPF's Min_LS_Interval after
their last ones) no frame crosses an ISL that came back. A loop's is over
when its initialisation ends. Counters of the whole network (payload
received by every N_Port, frames and payload lost, bytes sent again) are
sampled at the start of the run, every fault, every recovery and the end of
the run (in time order). A fault's throughputs are differences between
samples: *during* runs from the fault to its recovery (or the end), *before*
from the sample before the fault, *after* from the recovery to the next
sample. What was lost, dropped with errors and sent again is shared out
instead, so that each lost frame counts in exactly one incident and the
incidents' losses add up to the run's: between two samples it goes to the
latest fault still under way then (faults that overlap in time: the later
one, whose impairment is the newer), or, with none under way, to the latest
fault before (a loss after recovery is a late consequence of it).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from fcsim.faults.config import LINK_DOWN, LIP, FaultConfig
from fcsim.fc2.link_recovery import LinkControl
from fcsim.fc2.port_states import AC

MAX_EVENTS = 24
"""State changes kept per fault for the report (the rest are counted)."""
COUNTERS = ("delivered", "frames_lost", "payload_lost", "retransmitted", "errored")
"""The network-wide counters sampled: payload received by N_Ports, frames and
payload lost, bytes sent again (bytes), frames received with a transmission
error."""


@dataclass
class Record:
    """What happened to one *fault* of the schedule: the link controls of the
    *ports* it watches and the N_Port recoveries *logins* (each with ``down``
    and ``held``)."""

    fault: FaultConfig
    ports: list[LinkControl]
    logins: list[Any]
    routed: bool = False
    """Whether it watches an E_Port: then it is over only once the fabric's
    routes have converged."""
    started: bool = False
    applying: bool = False
    relogged: bool = False
    detected: float | None = None
    detection: str = ""
    links_back: float | None = None
    """Since when every port it watches is Active and every N_Port logged in
    (None: not now); before :attr:`recovered` while the routes converge."""
    recovered: float | None = None
    recovery: str = ""
    events: list[str] = field(default_factory=list)
    hidden: int = 0
    at_sample: int = 0
    recovered_sample: int | None = None


class Incidents:
    """The records of a run's faults; *read()* gives the network-wide
    counters (:data:`COUNTERS`, cumulative since the start of the run)."""

    def __init__(self, sim: Any, read: Callable[[], tuple[float, ...]],
                 converged: Callable[[], bool] | None = None) -> None:
        self.sim = sim
        self.read = read
        self.converged = converged
        """Whether the fabric's routes have converged (None: no fabric)."""
        self.records: list[Record] = []
        self.samples: list[tuple[float, tuple[float, ...]]] = [(0.0, (0.0,) * len(COUNTERS))]

    def watch(self, record: Record) -> None:
        """Add *record* and listen to its ports."""
        self.records.append(record)
        for lcf in record.ports:
            if self._changed not in lcf.listeners:
                lcf.listeners.append(self._changed)

    def sample(self) -> int:
        """Read the counters now; the sample's index."""
        self.samples.append((self.sim.now, self.read()))
        return len(self.samples) - 1

    def begin(self, record: Record, detection: str | None = None) -> None:
        """*record*'s fault happens now; with *detection*, it is noticed now too.
        Call :meth:`check` once the fault has struck every port."""
        record.started = record.applying = True
        record.at_sample = self.sample()
        if detection is not None:
            record.detected, record.detection = self.sim.now, detection

    def end(self, record: Record, recovery: str) -> None:
        """*record*'s impairment ends now (a loss of synchronisation over, a loop
        initialised): recovered now, by *recovery*, unless a port noticed it
        and has yet to recover."""
        if record.detected is None or record.fault.kind == LIP:
            self._recovered(record, recovery)

    def _changed(self, lcf: LinkControl, old: str, new: str, reason: str) -> None:
        now = self.sim.now
        for record in self.records:
            if record.started and record.recovered is None and lcf in record.ports:
                _event(record, now, f"{lcf.port.name}: {old} -> {new}: {reason}")
                if record.detected is None and new != AC:
                    record.detected, record.detection = now, f"{lcf.port.name}: {reason}"
                self.check(record)

    def logged_in(self, nport: Any, time: float) -> None:
        """An N_Port is logged in again and sending (an N_Port recovery's callback)."""
        for record in self.records:
            if record.started and record.recovered is None:
                if any(r.nport is nport for r in record.logins):
                    record.relogged = True
                    _event(record, time, f"{nport.name}: logged in again, sending")
                    self.check(record)

    def note(self, text: str) -> None:
        """Add *text* (a change of the whole network: routes, RSCNs) to the events
        of every fault under way."""
        now = self.sim.now
        for record in self.records:
            if record.started and record.recovered is None:
                _event(record, now, text)

    def applied(self, record: Record) -> None:
        """*record*'s fault has struck every port it strikes. If every port it
        watches was down already (another fault's), none can notice it: it is
        detected now, and recovered when they are all Active again."""
        record.applying = False
        if record.detected is None and record.ports and all(
                lcf.state != AC for lcf in record.ports):
            record.detected = self.sim.now
            record.detection = ", ".join(f"{lcf.port.name}: down already ({lcf.state})"
                                         for lcf in record.ports)
        self.check(record)

    def routes_changed(self) -> None:
        """A switch computed its routes: a fault waiting for them may be over."""
        for record in self.records:
            if record.routed and record.started and record.recovered is None:
                self.check(record)

    def check(self, record: Record) -> None:
        """Recovered if detected and every watched port is Active and logged in
        (but a port whose cable another fault pulled out: it cannot be) and,
        if it watches an E_Port, the fabric's routes have converged."""
        if record.fault.kind == LIP:
            return  # over when the loop is initialised (:meth:`end`)
        if record.applying or record.detected is None or record.recovered is not None:
            return
        pulled = record.fault.kind == LINK_DOWN
        if not (all(lcf.state == AC or not (lcf.cable or pulled) for lcf in record.ports)
                and all(not r.down and r.held is None for r in record.logins)):
            record.links_back = None
            return
        if record.links_back is None:
            record.links_back = self.sim.now
        converged = self.converged if record.routed else None
        if converged is None or converged():
            self._recovered(record, "every port Active" + (
                ", every N_Port logged in again" if record.relogged else "") + (
                "" if converged is None
                else ", every switch routes and forwards over every ISL up (FSPF)"))

    def _recovered(self, record: Record, recovery: str) -> None:
        record.recovered, record.recovery = self.sim.now, recovery
        if record.links_back is None:
            record.links_back = record.recovered
        record.recovered_sample = self.sample()

    def results(self) -> list[dict[str, Any]]:
        """Each fault's record as JSON (call at the end of the run)."""
        end = self.sample()
        shares = self._shares()
        return [self._record(r, end, share) for r, share in zip(self.records, shares,
                                                                 strict=True)]

    def _shares(self) -> list[list[float]]:
        """Each record's share of the counters' growth: between consecutive
        samples it goes to the latest-begun record still under way, or with
        none, to the latest begun (before the first fault: to none). One pass
        over the samples, the records under way in a heap (latest first)."""
        shares = [[0.0] * len(COUNTERS) for _ in self.records]
        begins: dict[int, list[int]] = {}
        for i, r in enumerate(self.records):
            if r.started:
                begins.setdefault(r.at_sample, []).append(i)
        under_way: list[tuple[int, int]] = []  # (-at_sample, -index)
        latest = None
        for k in range(len(self.samples) - 1):
            for i in begins.get(k, ()):
                heapq.heappush(under_way, (-k, -i))
                latest = i
            while under_way and not self._under_way(-under_way[0][1], k):
                heapq.heappop(under_way)  # recovered: for good
            owner = -under_way[0][1] if under_way else latest
            if owner is not None:
                growth = _difference(self.samples[k][1], self.samples[k + 1][1])
                shares[owner] = [a + b for a, b in zip(shares[owner], growth, strict=True)]
        return shares

    def _under_way(self, index: int, sample: int) -> bool:
        """Whether record *index* is still under way after sample *sample*."""
        stop = self.records[index].recovered_sample
        return stop is None or stop > sample

    def _record(self, r: Record, end: int, delta: list[float]) -> dict[str, Any]:
        """*r* as JSON, with *delta* its share of the counters."""
        f = r.fault
        stop = r.recovered_sample if r.recovered_sample is not None else end
        return {
            "at_s": f.at, "kind": f.kind, "target": f.target,
            "detected_s": r.detected, "detection": r.detection or None,
            "links_back_s": r.links_back,
            "recovered_s": r.recovered, "recovery": r.recovery or None,
            "time_to_recover_s": None if r.recovered is None else r.recovered - f.at,
            "frames_lost": int(delta[1]), "payload_lost_bytes": int(delta[2]),
            "frames_errored": int(delta[4]),
            "bytes_retransmitted": int(delta[3]),
            "throughput_bytes_per_s": {
                "before": self._rate(self._neighbour(r.at_sample, -1), r.at_sample),
                "during": self._rate(r.at_sample, stop),
                "after": None if r.recovered_sample is None else self._rate(
                    r.recovered_sample, self._neighbour(r.recovered_sample, 1))},
            "events": r.events + ([f"... and {r.hidden} more"] if r.hidden else []),
        }

    def _neighbour(self, index: int, step: int) -> int:
        """The sample nearest in time before (*step* -1) or after (+1) sample
        *index* taken at another time (the first or last if none)."""
        when = self.samples[index][0]
        others = [i for i, (time, _) in enumerate(self.samples) if (time - when) * step > 0]
        if not others:
            return index
        return others[-1] if step < 0 else others[0]

    def _rate(self, first: int, last: int) -> float | None:
        """Payload received per second between two samples (None: no time between)."""
        (t0, c0), (t1, c1) = self.samples[first], self.samples[last]
        if t1 <= t0:
            return None
        return (c1[0] - c0[0]) / (t1 - t0)


def _difference(first: Sequence[float], last: Sequence[float]) -> list[float]:
    return [b - a for a, b in zip(first, last, strict=True)]


def _event(record: Record, time: float, text: str) -> None:
    """Log *text* at *time* (s) among *record*'s events, or count it as hidden
    once :data:`MAX_EVENTS` are logged."""
    if len(record.events) < MAX_EVENTS:
        record.events.append(f"{time * 1e3:.6f} ms {text}")
    else:
        record.hidden += 1
