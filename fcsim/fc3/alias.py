"""Alias groups and the alias server: how N_Ports come to answer one address.

An alias group is a set of N_Ports reached through one alias address
identifier (Alias_ID): a hunt group (the fabric delivers each exchange to one
member that is not busy) or a multicast group (the fabric's multicast server
replicates each frame to every member). The alias server, at the well-known
address FFFFF8 (FC-PH-2; Linux ``fc_fs.h`` ``FC_FID_ALIASES``), keeps the
groups: an N_Port joins one by a Common Transport request of the alias
service (GS_TYPE 0xF8, GS_SUBTYPE 0x01 alias server: Linux ``fc_gs.h``
``FC_FST_ALIAS``, Wireshark ``packet-fcct.h``) and learns the Alias_ID from
the accept. Here the alias server is in the switches with the other fabric
services, so activating the alias in the fabric (FC-PH-2's FACT, sent by the
alias server to the fabric controller) is the server's own bookkeeping, and
the member activates it in itself (NACT's work) when the accept arrives.

A group is *ready* once every member has its accept: workloads sending to it
start then, and the network is not up before (``network_up_s``). With static
registration every member is joined at time 0 and no frame is sent.

Assumptions (docs/fc3.md): the alias server's join command code and payload
layout were not in the sources at hand, so the request carries the group's
8-byte name identifier and the member's N_Port ID after the CT preamble, under
command code :data:`CT_JOIN_ALIAS_GROUP`; Alias_IDs are handed out from
:data:`FIRST_ALIAS_ID` up.
"""

from __future__ import annotations

import struct
import zlib
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any

from fcsim.engine.simulation import Simulation
from fcsim.fabric.addressing import ALIAS_SERVER
from fcsim.fc2 import header as h
from fcsim.fc2.els_payload import CT_ACCEPT, CT_REJECT
from fcsim.fc2.frame import MAX_DATA_FIELD
from fcsim.fc2.login import PeerLogin
from fcsim.fc2.nport import NPort
from fcsim.fc2.sequence import Exchange, Sequence

GS_TYPE_ALIAS = 0xF8
"""CT GS_TYPE of the alias service (Linux ``fc_gs.h`` ``FC_FST_ALIAS``)."""
GS_SUBTYPE_ALIAS_SERVER = 0x01
"""CT GS_SUBTYPE of the alias server (Wireshark ``packet-fcct.h`` ``FCCT_GSSUBTYPE_AS``)."""
CT_JOIN_ALIAS_GROUP = 0x0001
"""Command code of the join request: an assumption (FC-GS-2's code was not at hand)."""
FIRST_ALIAS_ID = 0xFFFB00
"""The first Alias_ID the alias server hands out (an assumption: an address of no
domain, below the well-known FFFFFx; later FC-FS editions give multicast groups
addresses of this form, not re-checked)."""
MAX_GROUPS = 0x100
"""Alias_IDs available from :data:`FIRST_ALIAS_ID` (FFFB00..FFFBFF)."""
SERVICE_CLASSES = frozenset({2, 3})
"""Classes of the alias server's login (as the other fabric services)."""


def alias_token(group: str) -> int:
    """The 8-byte identifier a join names its group by (a CRC-32 of its name)."""
    return 0x2F00_0000_0000_0000 | zlib.crc32(group.encode())


def _preamble(code: int, in_id: int) -> bytes:
    """A CT_IU preamble of the alias server with command/response *code*."""
    return struct.pack(">B3sBBBBHHxBBB", 1, in_id.to_bytes(3, "big"), GS_TYPE_ALIAS,
                       GS_SUBTYPE_ALIAS_SERVER, 0, 0, code, 0, 0, 0, 0)


def join_request(group: str, member_id: int) -> bytes:
    """The join request of N_Port *member_id* to *group*: preamble, group
    identifier, member's N_Port ID (28 bytes)."""
    return _preamble(CT_JOIN_ALIAS_GROUP, member_id) + struct.pack(
        ">QI", alias_token(group), member_id)


def join_answer(alias_id: int | None) -> bytes:
    """The accept carrying *alias_id*, or (None) a reject (20 bytes)."""
    if alias_id is None:
        return _preamble(CT_REJECT, 0) + bytes(4)
    return _preamble(CT_ACCEPT, 0) + struct.pack(">I", alias_id)


class AliasGroup(ABC):
    """Alias group *name* with address *alias_id* and *members* (name, N_Port),
    in group order; *ids* are the members' N_Port IDs once logged in.

    *joined*: members the fabric routes the alias to; *ready*: members that
    have their accept. Subclasses route frames (:meth:`route`).
    """

    kind = ""

    def __init__(self, sim: Simulation, name: str, alias_id: int,
                 members: list[tuple[str, NPort]], ids: list[int]) -> None:
        self.sim = sim
        self.name = name
        self.alias_id = alias_id
        self.members = members
        self.ids = ids
        self.names = {port_id: member for port_id, (member, _) in zip(ids, members, strict=True)}
        self.joined: set[int] = set()
        self.ready: set[int] = set()
        self.ready_at: float | None = None
        self._waiters: list[Callable[[], None]] = []

    def join_all(self) -> None:
        """Static registration: every member joined and ready now."""
        for port_id in self.ids:
            self.fabric_join(port_id)
            self.member_ready(port_id)

    def fabric_join(self, port_id: int) -> bool:
        """The alias server admits N_Port *port_id*; False if it is not a member."""
        if port_id not in self.names:
            return False
        self.joined.add(port_id)
        return True

    def member_ready(self, port_id: int) -> None:
        """Member *port_id* has its accept; the group is ready when all have."""
        self.ready.add(port_id)
        if len(self.ready) == len(self.ids) and self.ready_at is None:
            self.ready_at = self.sim.now
            waiters, self._waiters = self._waiters, []
            for callback in waiters:
                callback()

    def when_ready(self, callback: Callable[[], None]) -> None:
        """Call *callback* once every member has joined (at once if they have)."""
        if self.ready_at is not None:
            callback()
        else:
            self._waiters.append(callback)

    @abstractmethod
    def route(self, switch: Any, inp: Any, frame: Any) -> Any:
        """The output of *switch* for *frame*, addressed to the group, or None
        when the group has dealt with it (replicated, refused)."""

    @abstractmethod
    def reset_stats(self) -> None:
        """Start a new measurement interval."""

    def results(self, interval: float) -> dict[str, Any]:
        """The group's figures over *interval* s."""
        return {"type": self.kind, "alias_id": f"{self.alias_id:06X}",
                "members": list(self.names.values()), "ready_s": self.ready_at}


class AliasServer:
    """The fabric-wide alias server: answers joins for *groups*."""

    def __init__(self, groups: list[AliasGroup]) -> None:
        self.by_token = {alias_token(g.name): g for g in groups}
        self.joins = 0

    def request(self, payload: object) -> bytes:
        """The answer to the CT request *payload* (bytes of :func:`join_request`)."""
        group = None
        if isinstance(payload, bytes) and len(payload) == 28:
            code = struct.unpack_from(">H", payload, 8)[0]
            token, member = struct.unpack_from(">QI", payload, 16)
            group = self.by_token.get(token) if code == CT_JOIN_ALIAS_GROUP else None
            if group is not None and not group.fabric_join(member):
                group = None
        self.joins += group is not None
        return join_answer(None if group is None else group.alias_id)


class AliasJoin:
    """Member *nport* joins *group* through the alias server once it has logged in."""

    def __init__(self, nport: NPort, group: AliasGroup) -> None:
        self.nport = nport
        self.group = group
        self._exchange: Exchange | None = None
        nport.peers.setdefault(ALIAS_SERVER, PeerLogin(ALIAS_SERVER, MAX_DATA_FIELD, 1,
                                                       SERVICE_CLASSES))
        nport.register((h.TYPE_CT,), self._received)
        nport.sim.call_later(0.0, lambda _event: nport.when_ready(self._send))

    def _send(self) -> None:
        payload = join_request(self.group.name, self.nport.port_id)
        self._exchange = self.nport.open_exchange(ALIAS_SERVER)
        self.nport.send(self._exchange, len(payload), 3, r_ctl=h.R_CTL_UNSOLICITED_CONTROL,
                        type_=h.TYPE_CT, ulp=payload)

    def _received(self, seq: Sequence, time: float) -> bool:
        if seq.exchange is not self._exchange or self._exchange is None:
            return False
        answer = seq.ulp
        if isinstance(answer, bytes) and struct.unpack_from(">H", answer, 8)[0] == CT_ACCEPT:
            self.group.member_ready(self.nport.port_id)
        return True
