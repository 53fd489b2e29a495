"""FSPF (FC-SW), the fabric's link-state routing protocol, as it answers a
change of an inter-switch link: who learns of it, when, and when each switch
computes its routes again.

Every switch holds a link state database: one Link State Record (LSR) per
switch, listing the ISLs that switch reports (its E_Ports that are Active).
When an E_Port of switch X leaves or enters Active:

- X knows it at once: its own routes use its own E_Ports as they are now
  (an assumption: in FC-SW a switch's database holds its own new LSR only
  once it is originated; switches take a failed port out of their
  forwarding at once).
- X originates a new instance of its LSR, but not sooner than
  ``min_ls_interval`` after its previous one (FC-SW Min_LS_Interval; the
  fabric was built, and every LSR originated, longer ago than that before
  the run: an assumption). Changes in the meantime go into that one LSR.
- The LSR is flooded in Link State Update (LSU) frames over every Active ISL;
  a switch that receives an instance newer than its copy takes it and floods
  it on over its other Active ISLs, unless the previous instance of that LSR
  arrived less than ``min_ls_arrival`` before (Min_LS_Arrival): then it
  discards it unacknowledged and the sender sends it again after
  ``rxmt_interval`` (Rxmt_Interval). Each hop takes the LSU's transmission
  time at the ISL's rate plus the cable's delay; a switch's processing of it
  takes no time and LSUs do not queue behind data frames (assumptions: FC-SW
  sends them as Class F frames and gives neither figure).
- A switch whose database changed computes its routes again (shortest paths,
  :func:`fcsim.fabric.routing.next_hops`) over the ISLs that both their
  switches report, no sooner than ``spf_hold_time`` after its previous
  computation (the SPF hold time of Cisco MDS and Nexus switches, 0 by
  default; FC-SW leaves when to compute to the implementation).
- When an ISL is Active at both ends again, its two switches exchange their
  databases over it (each sends the LSRs it holds; the older copies are
  ignored), one hop each way.

FSPF's Hello protocol (Hello_Interval 20 s, Dead_Interval 80 s) declares a
neighbour down when its Hellos stop while the link stays up; every fault
modelled here takes the E_Port out of Active, which FC-SW treats as the
neighbour lost at once, so the Hello timers never decide a reroute here.

Sources: FC-SW-7 (T11) FSPF; the defaults, which FC-SW takes from OSPF
(RFC 2328 appendix B: MinLSInterval 5 s, MinLSArrival 1 s), as switches
ship them: Cisco MDS 9000 Fabric Configuration Guide, "Default FSPF
Settings" (Hello 20 s, Dead 80 s, RxmtInterval 5 s, SPF hold time 0); HPE
FlexFabric FC/FCoE command reference (``fspf min-ls-arrival``: 1 s).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

from fcsim.engine.simulation import Simulation

MIN_LS_INTERVAL = 5.0
"""FC-SW Min_LS_Interval: least time between two originations of an LSR, s."""
MIN_LS_ARRIVAL = 1.0
"""FC-SW Min_LS_Arrival: least time between two accepted instances of an LSR, s."""
RXMT_INTERVAL = 5.0
"""FC-SW Rxmt_Interval: an unacknowledged LSU is sent again after this, s."""
SPF_HOLD_TIME = 0.0
"""Least time between two route computations of a switch (Cisco MDS default), s."""
HELLO_INTERVAL = 20.0
"""FC-SW Hello_Interval, s (documented; see the module's docstring)."""
DEAD_INTERVAL = 80.0
"""FC-SW Dead_Interval, s (documented; see the module's docstring)."""

LSU_FIXED_BYTES = 4 + 24 + 20 + 4 + 24 + 4 + 4
"""An LSU frame carrying one LSR, without its link descriptors: SOF, frame
header, FSPF header, LSU flags and LSR count, LSR header, CRC, EOF (bytes;
FC-SW field sizes, the LSU flags word an assumption)."""
LINK_DESCRIPTOR_BYTES = 16
"""One link descriptor of an LSR (FC-SW), bytes."""


@dataclass(frozen=True)
class FspfTimers:
    """FSPF's timers in s: *min_ls_interval*, *min_ls_arrival*,
    *rxmt_interval* (FC-SW) and *spf_hold_time* (the switch's)."""

    min_ls_interval: float = MIN_LS_INTERVAL
    min_ls_arrival: float = MIN_LS_ARRIVAL
    rxmt_interval: float = RXMT_INTERVAL
    spf_hold_time: float = SPF_HOLD_TIME


DEFAULT_TIMERS = FspfTimers()
"""FC-SW's timers and Cisco MDS's SPF hold time."""


class Isl(NamedTuple):
    """An inter-switch link: its switches *a* and *b*, *key* (its name), FSPF *cost*."""

    a: str
    b: str
    key: str
    cost: float


class Lsr(NamedTuple):
    """A switch's Link State Record: instance *seq* and the ISL keys it lists."""

    seq: int
    links: frozenset[str]


def lsu_bytes(links: int) -> int:
    """Bytes on the line of an LSU frame carrying one LSR of *links* links."""
    return LSU_FIXED_BYTES + LINK_DESCRIPTOR_BYTES * links


class Fspf:
    """FSPF among *switches* joined by *isls* (:class:`Isl` tuples), timed by
    *timers*. *active(switch)*: the keys of the ISLs whose port at *switch*
    is Active now; *hop(key, switch, links)*: how long an LSU carrying an LSR
    of *links* link descriptors takes from *switch* over ISL *key* to its
    other end, s; *install(switch, isls)*: give *switch* routes over *isls*;
    *note(text)*: told of each route computation."""

    def __init__(self, sim: Simulation, switches: list[str],
                 isls: list[tuple[str, str, str, float]],
                 timers: FspfTimers, active: Callable[[str], frozenset[str]],
                 hop: Callable[[str, str, int], float],
                 install: Callable[[str, list[tuple[str, str, str, float]]], None],
                 note: Callable[[str], None]) -> None:
        self.sim, self.timers = sim, timers
        self.isls = [Isl(*isl) for isl in isls]
        self.by_key = {isl.key: isl for isl in self.isls}
        self._active, self._hop, self._install, self._note = active, hop, install, note
        own = {s: frozenset(i.key for i in self.isls if s in (i.a, i.b)) for s in switches}
        self.lsdb: dict[str, dict[str, Lsr]] = {
            s: {o: Lsr(0, own[o]) for o in switches} for s in switches}
        never = float("-inf")
        self._accepted = {s: dict.fromkeys(switches, never) for s in switches}
        self._originated = dict.fromkeys(switches, never)
        self._computed = dict.fromkeys(switches, never)
        self._origin_due: set[str] = set()
        self._spf_due: dict[str, list[str]] = {}
        self._failed: set[str] = set()
        self.computations: list[dict[str, Any]] = []
        self.lsus_sent = self.lsus_discarded = 0

    # -- a switch's E_Port changed ------------------------------------------------

    def changed(self, switch: str, key: str, why: str) -> None:
        """The port of ISL *key* at *switch* left or entered Active (*why*)."""
        if switch in self._failed:
            return
        self._compute_soon(switch, why)
        self._originate_soon(switch)
        isl = self.by_key[key]
        peer = isl.b if isl.a == switch else isl.a
        if key in self._active(switch) and key in self._active(peer):
            for one in (switch, peer):  # database exchange: each sends its LSRs
                for origin in self.lsdb[one]:
                    self._send(one, key, origin)

    def failed(self, switch: str) -> None:
        """*switch* failed: it originates, floods and computes nothing until it
        restarts; its neighbours' LSRs stop listing their ISLs to it."""
        self._failed.add(switch)

    def restarted(self, switch: str) -> None:
        """*switch* powers on again: it has forgotten when it last originated,
        accepted or computed (its database it keeps, the exchange with its
        neighbours brings it up to date; its LSR numbering goes on from the
        old instance, as a restarted switch learns it from them)."""
        self._failed.discard(switch)
        never = float("-inf")
        self._originated[switch] = self._computed[switch] = never
        self._accepted[switch] = dict.fromkeys(self._accepted[switch], never)

    @property
    def failed_switches(self) -> frozenset[str]:
        """The switches failed now (they route nothing)."""
        return frozenset(self._failed)

    def _originate_soon(self, switch: str) -> None:
        if switch in self._origin_due:
            return
        self._origin_due.add(switch)
        now = self.sim.now
        at = max(now, self._originated[switch] + self.timers.min_ls_interval)
        self.sim.call_later(at - now, self._originate, switch)

    def _originate(self, switch: str) -> None:
        self._origin_due.discard(switch)
        self._originated[switch] = self.sim.now
        held = self.lsdb[switch][switch]
        self.lsdb[switch][switch] = Lsr(held.seq + 1, self._active(switch))
        self._flood(switch, switch, None)

    # -- flooding -------------------------------------------------------------------

    def _flood(self, switch: str, origin: str, came_by: str | None) -> None:
        for key in sorted(self._active(switch)):
            if key != came_by:
                self._send(switch, key, origin)

    def _send(self, switch: str, key: str, origin: str) -> None:
        """*switch* sends its copy of *origin*'s LSR over ISL *key*."""
        lsr = self.lsdb[switch][origin]
        isl = self.by_key[key]
        peer = isl.b if isl.a == switch else isl.a
        self.lsus_sent += 1
        self.sim.call_later(self._hop(key, switch, len(lsr.links)), self._arrive,
                            (switch, peer, key, origin, lsr, self.sim.now))

    def _arrive(self, lsu: tuple[str, str, str, str, Lsr, float]) -> None:
        sender, switch, key, origin, lsr, sent = lsu
        if (switch in self._failed or key not in self._active(switch)
                or lsr.seq <= self.lsdb[switch][origin].seq):
            return  # lost with its link (the database exchange resends it), or not new
        now = self.sim.now
        if now - self._accepted[switch][origin] < self.timers.min_ls_arrival:
            self.lsus_discarded += 1  # unacknowledged: sent again Rxmt_Interval after
            self.sim.call_later(max(0.0, sent + self.timers.rxmt_interval - now), self._resend,
                                (sender, key, origin))
            return
        self._accepted[switch][origin] = now
        self.lsdb[switch][origin] = lsr
        self._flood(switch, origin, key)
        self._compute_soon(switch, f"LSR of {origin} from {sender}")

    def _resend(self, lsu: tuple[str, str, str]) -> None:
        sender, key, origin = lsu
        if key in self._active(sender):
            self._send(sender, key, origin)

    # -- route computation ----------------------------------------------------------

    def _compute_soon(self, switch: str, why: str) -> None:
        due = self._spf_due.get(switch)
        if due is not None:
            due.append(why)
            return
        self._spf_due[switch] = [why]
        now = self.sim.now
        at = max(now, self._computed[switch] + self.timers.spf_hold_time)
        self.sim.call_later(at - now, self._compute, switch)

    def accepted(self, switch: str, origin: str) -> float:
        """When *switch* last took a new instance of *origin*'s LSR (-inf: before
        the run), s."""
        return self._accepted[switch][origin]

    def usable(self, switch: str) -> list[Isl]:
        """The ISLs *switch* routes over: those both their switches report, in
        *switch*'s database (its own ports as they are now)."""
        own = self._active(switch)
        db = self.lsdb[switch]

        def lists(s: str, key: str) -> bool:
            return key in (own if s == switch else db[s].links)
        return [i for i in self.isls if lists(i.a, i.key) and lists(i.b, i.key)]

    def _compute(self, switch: str) -> None:
        causes = self._spf_due.pop(switch)
        now = self.sim.now
        self._computed[switch] = now
        isls = self.usable(switch)
        self._install(switch, list(isls))
        self.computations.append({"at_s": now, "switch": switch, "causes": causes,
                                  "isls_in_use": len(isls)})
        self._note(f"{switch}: routes recomputed (FSPF): {len(isls)} of {len(self.isls)} "
                   "ISLs in use")
