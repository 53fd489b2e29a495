"""The ``[fspf]`` table of a fabric: FSPF's timers (docs/faults.md, "FSPF")."""

from __future__ import annotations

from fcsim.schema.fields import PositiveTime, Time
from fcsim.schema.section import Section, key


class FspfSection(Section):
    """FSPF's timers, fabric-wide (FC-SW; :mod:`fcsim.fabric.fspf`). A switch
    whose E_Port leaves or enters Active routes around it at once, originates
    a new Link State Record no sooner than `min_ls_interval` after its
    previous one and floods it; a switch takes a new instance of a record only
    `min_ls_arrival` after the previous one (earlier ones are discarded and
    sent again after `rxmt_interval`) and computes its routes no sooner than
    `spf_hold_time` after its previous computation. Defaults: FC-SW's
    (Min_LS_Interval 5 s, Min_LS_Arrival 1 s, Rxmt_Interval 5 s) and Cisco
    MDS's SPF hold time (0)."""

    where = "in [fspf]"

    min_ls_interval: Time = key("5 s", "Least time between two originations of a "
                                "switch's Link State Record (FC-SW Min_LS_Interval), s.",
                                "5 s")
    min_ls_arrival: Time = key("1 s", "Least time between two accepted instances of one "
                               "Link State Record at a switch (FC-SW Min_LS_Arrival), s.",
                               "1 s")
    rxmt_interval: PositiveTime = key("5 s", "An LSU left unacknowledged is sent again after "
                                      "this (FC-SW Rxmt_Interval), s.", "5 s")
    spf_hold_time: Time = key("0 s", "Least time between two route computations of a "
                              "switch (Cisco MDS 'spf hold-time', default 0), s.", "200 ms")
