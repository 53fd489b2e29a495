"""A fabric's tables in a scenario file: ``[fspf]``, FSPF's timers
(docs/faults.md, "FSPF"), ``[[zones]]``, which N_Ports see each other in
the name server (docs/faults.md, "Zoning"), ``[zoning]``, how the
switches enforce the zones (docs/fabric-services.md, "Hard zoning"), and
``[congestion_isolation]``, the port monitor that moves the flows to slow
devices to a low-priority virtual channel (docs/fabrics.md). The
scenario's document (:mod:`fcsim.scenario.sections.document`) assembles them
with the others."""

from __future__ import annotations

from fcsim.fabric.congestion import TXWAIT_CONGESTED
from fcsim.fabric.congestion_isolation import FALLING
from fcsim.fabric.virtual_channels import PRIORITIES
from fcsim.schema.fields import Flag, Name, PositiveTime, Time, choice, fraction, name_list
from fcsim.schema.section import Section, key

ZoneMembers = name_list(1, "a list of distinct N_Port names (node names, NAME.i) or port "
                        "World Wide Names written '21:00:...'")


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
    priority: QosPriority = key(
        "medium", "A QoS zone: the priority of the traffic between its members, 'high', "
        "'medium' or 'low' (Brocade QoS zones, Cisco zone 'attribute qos priority'). On an "
        "ISL with vc_assignment = 'priority', high-priority frames take VL1, the others "
        "VL3 (Cisco's virtual links); 'destination' channels do not read it. A pair in "
        "several zones takes the highest.", "high")


QosPriority = choice(dict(zip(PRIORITIES, PRIORITIES, strict=True)))

ENFORCEMENTS = ("soft", "hard")
"""How the switches enforce the zones (:class:`ZoningSection`)."""
Enforcement = choice(dict(zip(ENFORCEMENTS, ENFORCEMENTS, strict=True)))


class ZoningSection(Section):
    """How the switches enforce the `[[zones]]`. 'soft': the name server shows
    an N_Port only the N_Ports zoned with it, and frames are not checked
    (every workload then runs between N_Ports that share a zone). 'hard': the
    switch hardware also checks each frame's S_ID and D_ID as it enters an
    F_Port and drops, and counts per port, every frame between N_Ports that
    share no zone (Cisco MDS checks at ingress; Brocade Fabric OS enforces
    zones in hardware, frame by frame, when a zone's members are all WWNs or
    all domain,index); a workload between unzoned N_Ports is then allowed, and
    its frames (from its PLOGI on) are dropped. See docs/fabric-services.md."""

    where = "in [zoning]"

    enforcement: Enforcement = key("soft", "'soft' (name-server filtering only) or 'hard' "
                                   "(the switches also drop frames between N_Ports that "
                                   "share no zone).", "hard")


Rising = fraction("a fraction 0 < x < 1 (of the window)", above=True)
Falling = fraction("a fraction 0 <= x < 1 (of the window)")


class CongestionIsolationSection(Section):
    """Congestion isolation (Cisco MDS congestion isolation, Brocade SDDQ):
    every `window` the switches read each F_Port's TxWait over the window;
    a device whose F_Port waited at least `rising_threshold` of it is found
    slow, and from then on the frames for it take the low-priority virtual
    channel of every ISL with `virtual_channels` (the last channel with
    vc_assignment 'destination', channel 2 with 'priority'), so the flows to
    other devices keep the other channels. With `recover`, a device whose
    F_Port waited less than `falling_threshold` of a window goes back. Needs
    an ISL with virtual channels. See docs/fabrics.md."""

    where = "in [congestion_isolation]"

    rising_threshold: Rising = key(TXWAIT_CONGESTED, "TxWait over a window, as a fraction "
                                   "of it, at or above which an F_Port's device is isolated "
                                   "(Cisco port-monitor's rising threshold for TxWait; the "
                                   "default is the congestion view's, an assumption).", 0.3)
    falling_threshold: Falling = key(FALLING, "With recover: TxWait over a window, as a "
                                     "fraction of it, below which an isolated device goes "
                                     "back (the port monitor's falling threshold; default an "
                                     "assumption); not above rising_threshold.", 0.05)
    window: PositiveTime = key("1 s", "How often the F_Ports' TxWait is read, the window it "
                               "is taken over, s (Cisco's port-monitor poll interval; the "
                               "default an assumption).", "1 ms")
    recover: Flag = key(False, "Take a device back when its TxWait falls below "
                        "falling_threshold (Cisco NX-OS 8.5 Fabric Performance Monitor); "
                        "default false: NX-OS 8.x and Brocade SDDQ release an isolated "
                        "device only by command.", True)
