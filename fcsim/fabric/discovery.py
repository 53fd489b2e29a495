"""Discovery of the ports of an FC-4 TYPE through the name server: an
N_Port asks GID_FT for the TYPE (a Class 3 CT request to FFFFFC, after its
fabric login) and hands the N_Port IDs the accept lists to whoever asked.
An FC-NVMe host finds the NVMe subsystems so (GID_FT for TYPE 0x28) before it
creates associations with them, as Linux's FC drivers discover remote ports
from the name server before the NVMe transport connects."""

from __future__ import annotations

from collections.abc import Callable

from fcsim.fabric.addressing import NAME_SERVER
from fcsim.fc2 import header as h
from fcsim.fc2.els_payload import gid_ft_ports, gid_ft_request
from fcsim.fc2.nport import NPort
from fcsim.fc2.sequence import Exchange, Sequence


class NameServerQuery:
    """GID_FT queries of *nport* for *fc4_type*: the first :meth:`find` sends
    one (once the N_Port has logged in), the answer serves every caller, then
    and later. *queries*: GID_FT requests sent."""

    def __init__(self, nport: NPort, fc4_type: int) -> None:
        self.nport, self.fc4_type = nport, fc4_type
        self.queries = 0
        self.listed: list[int] | None = None
        self._waiting: list[Callable[[list[int]], None]] = []
        self._exchange: Exchange | None = None
        nport.register((h.TYPE_CT,), self._received)

    def find(self, then: Callable[[list[int]], None]) -> None:
        """*then(port IDs)* with the ports the name server lists for the TYPE."""
        if self.listed is not None:
            then(self.listed)
            return
        self._waiting.append(then)
        if len(self._waiting) == 1:
            self.nport.when_ready(self._ask)

    def _ask(self) -> None:
        payload = gid_ft_request(self.fc4_type)
        self._exchange = self.nport.open_exchange(NAME_SERVER)
        self.nport.send(self._exchange, len(payload), 3, r_ctl=h.R_CTL_UNSOLICITED_CONTROL,
                        type_=h.TYPE_CT, ulp=payload)
        self.queries += 1

    def _received(self, seq: Sequence, time: float) -> bool:
        """The accept of its query: taken; other CT sequences are left."""
        if self._exchange is None or seq.exchange is not self._exchange:
            return False
        self.nport.close_exchange(seq.exchange)
        self._exchange = None
        self.listed = gid_ft_ports(seq.ulp)  # type: ignore[arg-type]
        waiting, self._waiting = self._waiting, []
        for then in waiting:
            then(self.listed)
        return True
