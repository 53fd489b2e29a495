"""The ``[[alias_groups]]`` tables of a fabric: FC-3 hunt groups and multicast
groups, each a set of N_Ports answering one alias address."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from fcsim.schema.fields import Count, Name, choice, name_list
from fcsim.schema.section import Section, key

Registration = choice({"alias-server": "alias-server", "static": "static"})


Members = name_list(2, "a list of at least two distinct N_Port names (node names, or NAME.i "
                    "for the other N_Ports of a node with ports > 1)")


class _AliasGroup(Section):
    """Keys of every alias group."""

    name: Name = key(help="The group's name, unique among groups, N_Ports and workloads; "
                     "workloads address the group by it (to = NAME).", example="servers")
    type: str = key(help="The kind of group.")
    members: Members = key(help="Its N_Ports, in group order.",
                           example=["server", "server.1", "server.2"])
    registration: Registration = key(
        "alias-server", "How the members join: 'alias-server', each N_Port sends a join "
        "request to the alias server (FFFFF8) once logged in and the group is ready when "
        "every member has its answer (timed like the logins); 'static', joined at time 0 "
        "with no frame sent (as an administrator's configuration).", "static")


class HuntGroupSection(_AliasGroup):
    """A hunt group: the fabric gives each exchange sent to the group's alias to
    the first member in group order that is not busy; with every member busy, a
    Class 2 frame is answered F_BSY and a Class 3 frame is discarded. Workloads
    send to it in Class 2 or 3."""

    where = "with type = 'hunt-group'"

    type: Literal["hunt-group"] = key(help="A hunt group.")
    exchanges_per_member: Count = key(
        1, "Exchanges of the group a member serves at once before the fabric counts it "
        "busy (a model value: FC-PH-3 leaves busy to the implementation).", 2)


class MulticastGroupSection(_AliasGroup):
    """A multicast group: the fabric replicates each Class 3 frame sent to the
    group's alias to every member (but the sender). Workloads send to it in
    Class 3 only (Classes 1 and 2 have no multicast; Class 6 is not modelled)."""

    where = "with type = 'multicast'"

    type: Literal["multicast"] = key(help="A multicast group.")


AliasGroup = Annotated[HuntGroupSection | MulticastGroupSection, Field(discriminator="type")]
"""One ``[[alias_groups]]`` table, of the kind its ``type`` names."""
