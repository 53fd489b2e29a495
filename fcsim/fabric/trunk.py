"""ISL trunking: up to eight ISLs between two switches acting as one logical
link (Brocade ISL Trunking).

Frames of one exchange, and of every exchange, are spread frame by frame over
the trunk's members, whichever member is free and has credit taking the next,
and delivered in the order they were sent at the far end (deskew,
:mod:`fcsim.fabric.trunk_port`). Routing sees one link: FSPF has one
adjacency for the trunk, whose default cost follows the trunk's bandwidth,
the sum of its members' (:func:`trunk_cost`). A member that fails takes the
frames in flight on it with it; the trunk runs on the others.

What Brocade documents and fcsim checks when a scenario forms a trunk
(Fabric OS Administrator's Guide 53-0000518-09, "Standard Trunking
Criteria"; FOS 7.3.0 Administrator's Guide, "Requirements for trunk
groups"): a direct connection between the two switches, at most eight ports
in a trunk group, all at the same speed and configured for the same
distance, cable lengths differing by no more than 550 m (30 m recommended).
The first port of a trunk is its master (on FOS, the first to come online),
whose switch port number the trunk is routed by. Not checked: the ports'
port group (an ASIC's eight adjacent ports), which fcsim's switch models do
not describe.

Cisco MDS port channels are another thing: they spread exchanges, not
frames, over their members (Cisco MDS 9000 NX-OS Interfaces Configuration
Guide, "Port Channels", load balancing by src-dst-ox-id), as fcsim's
exchange-based routing over parallel ISLs does.
"""

from __future__ import annotations

from typing import Any

from fcsim.fabric.routing import fspf_cost
from fcsim.fabric.trunk_port import TrunkPort
from fcsim.link.link import Link

MAX_MEMBERS = 8
"""Ports in one trunk group at most (FOS Administrator's Guide 53-0000518-09:
"Up to eight ports in one trunk group")."""
DESKEW_LIMIT = 550.0
"""The largest difference between the cable lengths of a trunk's members, m
(FOS Administrator's Guide 53-0000518-09: "Cable lengths for participating
links should differ by no more than 550 meters")."""


def trunk_cost(line_rate: float, members: int) -> float:
    """FSPF cost of a trunk of *members* ISLs whose lines each carry
    *line_rate* bits/s: a link of their summed bandwidth
    (:func:`~fcsim.fabric.routing.fspf_cost`). Brocade's own table gives every
    trunk above 2 Gbit/s 500, as it gives any ISL of 2 Gbit/s or more (FOS
    6.1.0 Command Reference 53-1000599-02, linkCost, Table 18); a scenario
    sets ``cost`` on the members to have that."""
    return fspf_cost(line_rate * members)


class Trunk:
    """Trunk *name* joining switches *a* and *b* over member *links* (the
    first the master), with end *ends[a]* at switch a and *ends[b]* at b."""

    def __init__(self, name: str, a: str, b: str, links: list[Link[Any]]) -> None:
        self.name = name
        self.switches = (a, b)
        self.links = links
        self.ends = {a: TrunkPort(f"{a}:{name}", [link.a for link in links]),
                     b: TrunkPort(f"{b}:{name}", [link.b for link in links])}
        self.ends[a].peer, self.ends[b].peer = self.ends[b], self.ends[a]

    def reset_stats(self) -> None:
        """Start a new measurement interval of the deskew counters."""
        for end in self.ends.values():
            end.reset_stats()

    def results(self, interval: float) -> dict[str, Any]:
        """Per direction (by sending switch): each member's utilisation and
        frames, their mean and spread, and what the receiving end's deskew
        held and lost over *interval* s."""
        out: dict[str, Any] = {"members": [link.name for link in self.links],
                               "master": self.links[0].name, "directions": {}}
        for sender, receiver in (self.switches, self.switches[::-1]):
            end, far = self.ends[sender], self.ends[receiver]
            loads = [p.stats.busy_time / interval if interval > 0 else 0.0 for p in end.members]
            mean = sum(loads) / len(loads)
            out["directions"][f"{sender}->{receiver}"] = {
                "utilisation": mean,
                "members": {link.name: {"utilisation": load, "frames": port.stats.frames_tx}
                            for link, port, load in zip(self.links, end.members, loads,
                                                        strict=True)},
                "max_over_mean": max(loads) / mean if mean > 0 else 1.0,
                "frames": sum(p.stats.frames_tx for p in end.members),
                "deskewed": far.deskewed, "deskew_wait_s": far.deskew_wait,
                "lost": far.lost}
        return out
