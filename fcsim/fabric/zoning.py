"""Zoning: which N_Ports the name server lets each N_Port see.

A zone is a set of N_Ports named by the administrator; an N_Port sees, in
the name server's answers (GID_FT), the N_Ports that share a zone with it,
itself included, and no other (soft zoning, as FC-GS's zone server defines
the name server's view; FC-SW-2 zoning). An N_Port in no zone sees only
itself. With soft zoning alone the switches do not check frames against the
zones, and a scenario's workloads run between N_Ports that share a zone
(:mod:`fcsim.fabric.checks`); with hard zoning the F_Ports also drop every
frame between N_Ports that share no zone (:mod:`fcsim.fabric.hard_zoning`).
"""

from __future__ import annotations

from collections.abc import Iterable


class Zoning:
    """The zones of a fabric, each a set of N_Port IDs, by zone name."""

    def __init__(self, zones: dict[str, frozenset[int]]) -> None:
        self.zones = zones

    def permitted(self) -> dict[int, frozenset[int]]:
        """Per N_Port ID in a zone, the N_Port IDs that share one with it
        (itself included): the pairs a hard-zoned switch lets through."""
        peers: dict[int, set[int]] = {}
        for zone in self.zones.values():
            for member in zone:
                peers.setdefault(member, set()).update(zone)
        return {member: frozenset(others) for member, others in peers.items()}

    def visible(self, asker: int, directory: Iterable[int]) -> list[int]:
        """The N_Port IDs of *directory* that *asker* may see, in order."""
        shared = {member for zone in self.zones.values() if asker in zone for member in zone}
        return sorted(port for port in directory if port in shared or port == asker)
