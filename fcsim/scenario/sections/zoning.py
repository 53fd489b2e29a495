"""The ``[[zones]]`` tables of a fabric: which N_Ports see each other in the
name server (docs/faults.md, "Zoning")."""

from __future__ import annotations

from fcsim.schema.fields import Name, name_list
from fcsim.schema.section import Section, key

ZoneMembers = name_list(1, "a list of distinct N_Port names (node names, NAME.i) or port "
                        "World Wide Names written '21:00:...'")


class ZoneSection(Section):
    """A zone: N_Ports that may see each other. With zones, the name server's
    answer to an N_Port (GID_FT) lists only the N_Ports that share a zone with
    it; an N_Port in no zone sees no other (soft zoning: the switches do not
    filter frames). Every workload runs between N_Ports that share a zone.
    A member is an N_Port's name or its port World Wide Name, which fcsim
    derives from the name (NAA 2: 21:00 then the CRC-32 of the name; `fcsim
    run --pcap` shows it in FLOGI and PLOGI)."""

    where = "in [[zones]]"

    name: Name = key(help="The zone's name, unique among zones.", example="backup")
    members: ZoneMembers = key(help="Its N_Ports.", example=["host", "21:00:00:00:9e:eb:a5:e1"])
