"""A host's static routes: which of its networks reaches a peer. The same rule
chooses the network of IP traffic on a host (:mod:`fcsim.host.host`) and of
FC-2 and SCSI traffic between nodes of an internetwork
(:mod:`fcsim.topology.internetwork`)."""

from __future__ import annotations

FIBRE_CHANNEL = ("point-to-point", "fabric", "loop")
"""The topologies of Fibre Channel networks (FC-2 and FCP traffic need one)."""


def network_between(mine: list[str], theirs: list[str], topologies: dict[str, str],
                    wanted: str | None = None, fibre_channel: bool = False) -> str | None:
    """The network a node on networks *mine* (in order) reaches a node on *theirs*
    over: the one its static route names (*wanted*), else the first both are
    on; among Fibre Channel networks only if *fibre_channel*. None: none."""
    for network in mine:
        if (network in theirs and wanted in (None, network)
                and (not fibre_channel or topologies[network] in FIBRE_CHANNEL)):
            return network
    return None
