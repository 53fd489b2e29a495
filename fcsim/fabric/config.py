"""A fabric's tables in a scenario file: ``[fspf]``, FSPF's timers
(docs/faults.md, "FSPF"), ``[[zones]]``, which N_Ports see each other in
the name server (docs/faults.md, "Zoning"), ``[zoning]``, how the
switches enforce the zones (docs/fabric-services.md, "Hard zoning"),
``[congestion]``, the cures the switches apply to congestion
(docs/congestion.md, :mod:`fcsim.fabric.cures`; congestion isolation, the
port monitor that moves the flows to slow devices to a low-priority virtual
channel, among them), and
``[fpin]``, the fabric's performance impact notifications and what the
hosts do with them (docs/fpin.md). The
scenario's document (:mod:`fcsim.scenario.sections.document`) assembles them
with the others."""

from __future__ import annotations

from fcsim.fabric.congestion import TXWAIT_CONGESTED
from fcsim.fabric.cures import FALLING
from fcsim.fabric.virtual_channels import PRIORITIES
from fcsim.schema.fields import (
    Count,
    Flag,
    Name,
    PositiveTime,
    Time,
    choice,
    fraction,
    name_list,
    number,
    table,
)
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


Share = fraction("a number in (0, 1): a fraction of the window", above=True)
Step = fraction("a number in (0, 1)", above=True)
UpStep = number("a number in (0, 1]", above=True)


class CreditLossSection(Section):
    """Credit loss recovery: a switch port whose transmit BB credit stays at
    zero, with a frame waiting, for `f_port` (an F_Port) or `e_port` (an
    E_Port) begins the Link Reset protocol (FC-FS-5). Defaults: Cisco MDS's
    (1 s, 1.5 s; Cisco MDS 9000 NX-OS Interfaces Configuration Guide,
    'Displaying Credit Loss Recovery Actions'). The reset empties both ends'
    receive buffers: the frames in them are discarded and counted; the
    fabric is built with link recovery, as with faults."""

    where = "in [congestion.credit_loss_recovery]"

    f_port: PositiveTime = key("1 s", "Time at zero transmit credit before an F_Port "
                               "resets its link (Cisco MDS: 1 s), s.", "100 ms")
    e_port: PositiveTime = key("1.5 s", "Time at zero transmit credit before an E_Port "
                               "resets its link (Cisco MDS: 1.5 s), s.", "150 ms")


class FencingSection(Section):
    """Port fencing: every `window`, an F_Port whose TxWait over the window
    is at least `txwait` of it, or whose transmit credit fell to zero at least
    `credit_zero` times in it, is disabled (Cisco MDS port-monitor with
    `portguard errordisable`, Brocade MAPS port fencing): its N_Port loses
    light and leaves the fabric, the frames queued for it are discarded. At
    least one threshold; the values are the user's (vendors give no default
    for a fabric of this size: an assumption wherever a scenario sets one)."""

    where = "in [congestion.fencing]"

    window: PositiveTime = key("1 s", "How often the switch polls its F_Ports' counters, "
                               "s (Cisco port-monitor poll interval; 1 s, an assumption).",
                               "1 ms")
    txwait: Share = key(None, "Fence an F_Port whose TxWait over the window is at least "
                        "this fraction of it.", 0.3)
    credit_zero: Count = key(None, "Fence an F_Port whose transmit credit fell to zero at "
                             "least this many times in the window.", 1000)


class IngressLimitSection(Section):
    """Dynamic ingress rate limiting (Cisco MDS DIRL, NX-OS 8.5(1)): every
    `window`, an F_Port whose TxWait over the window is at least `txwait` of
    it has the rate at which it takes frames from its N_Port (the R_RDYs it
    returns) cut to 1 - `reduce` of what it was, never below `floor` of its
    full rate (counted in full-size frames); a window under the threshold
    raises it by `recover` of what it was, up to no limit. The step values
    are assumptions (Cisco documents the loop, cutting while congested and
    recovering stepwise, not its steps)."""

    where = "in [congestion.ingress_limit]"

    txwait: Share = key(help="The TxWait fraction of the window at which the limit is cut.",
                        example=0.1)
    window: PositiveTime = key("1 s", "How often the limit is adjusted, s (an assumption).",
                               "1 ms")
    reduce: Step = key(0.5, "The fraction of the current limit cut each window over the "
                       "threshold (an assumption).", 0.5)
    recover: UpStep = key(0.25, "The fraction of the current limit added back each window "
                          "under the threshold (an assumption).", 0.25)
    floor: UpStep = key(0.001, "The lowest limit, a fraction of the full rate in full-size "
                        "frames (an assumption: low enough for a host's small read "
                        "requests, each asking for many frames of data).", 0.001)


Rising = fraction("a fraction 0 < x < 1 (of the window)", above=True)
Falling = fraction("a fraction 0 <= x < 1 (of the window)")


class IsolationSection(Section):
    """Congestion isolation (Cisco MDS congestion isolation, Brocade SDDQ):
    every `window` the switches read each F_Port's TxWait over the window;
    a device whose F_Port waited at least `rising_threshold` of it is found
    slow, and from then on the frames for it take the low-priority virtual
    channel of every ISL with `virtual_channels` (the last channel with
    vc_assignment 'destination', channel 2 with 'priority'), so the flows to
    other devices keep the other channels. With `recover`, a device whose
    F_Port waited less than `falling_threshold` of a window goes back. Needs
    an ISL with virtual channels. See docs/congestion.md."""

    where = "in [congestion.isolation]"

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


CreditLoss = table(CreditLossSection, "a table, written [congestion.credit_loss_recovery]")
Fence = table(FencingSection, "a table, written [congestion.fencing]")
Limit = table(IngressLimitSection, "a table, written [congestion.ingress_limit]")
Isolate = table(IsolationSection, "a table, written [congestion.isolation]")


class CongestionSection(Section):
    """The cures the fabric's switches apply to congestion (default: none but
    the switch model's hold time): credit loss recovery, port fencing,
    dynamic ingress rate limiting and congestion isolation. See
    docs/congestion.md."""

    where = "in [congestion]"

    credit_loss_recovery: CreditLoss = key(None, "Link Reset after a time at zero transmit "
                                           "credit (default: none).", {"f_port": "1 s"})
    fencing: Fence = key(None, "Disable an F_Port over a threshold (default: none).",
                         {"window": "1 ms", "txwait": 0.3})
    ingress_limit: Limit = key(None, "Rate-limit an F_Port's ingress while its TxWait is "
                               "over a threshold (default: none).",
                               {"window": "1 ms", "txwait": 0.1})
    isolation: Isolate = key(None, "Move the flows to devices found slow to a low-priority "
                             "virtual channel of the ISLs (default: none).",
                             {"window": "1 ms", "recover": True})


TxWaitShare = fraction("a fraction of the window in (0, 1), such as 0.1", above=True)


class FpinSection(Section):
    """Fabric Performance Impact Notifications (FC-LS-5 FPIN) and congestion
    signals (docs/fpin.md). With this table every N_Port registers after its
    fabric login (EDC with its F_Port when `signals`, RDF with the fabric
    controller); each rule is off unless turned on here, and a file without
    the table runs exactly as before. Link Integrity: a switch port whose
    receiver counts at least `link_integrity_threshold` frames with a CRC
    error in a `link_integrity_window` (defaults: Cisco MDS's default
    port-monitor policy for invalid CRCs, 5 in 60 s). Congestion: an F_Port
    with TxWait at least `congestion_warning` of a `congestion_window` sends
    its N_Port a Congestion FPIN (an alarm from `congestion_alarm`) and each
    N_Port sending to it a Peer Congestion FPIN (defaults assumed: 1 s, 10 %,
    30 %). Signals: the F_Port sends warning or alarm signals by the same
    fractions every `signal_period` (lpfc's default, 100 ms). Delivery: each
    N_Port whose frames a switch removed after its hold time is told once per
    `delivery_window` and output. Throttle: every FCP initiator and FC-NVMe
    host lowers the commands it keeps outstanding on a Congestion
    FPIN or signal for its own port and raises them one per quiet
    `throttle_recovery` (lpfc's CMF interval, 90 ms; docs/fpin.md)."""

    where = "in [fpin]"

    link_integrity: Flag = key(False, "Send Link Integrity FPINs (CRC errors over a window).",
                               True)
    link_integrity_window: PositiveTime = key("60 s", "The Link Integrity window, s (Cisco "
                                              "MDS port-monitor invalid-crc: 60 s).", "10 ms")
    link_integrity_threshold: Count = key(5, "CRC errors in a window that make a switch port's "
                                          "link marginal (Cisco MDS: rising threshold 5).", 3)
    congestion: Flag = key(False, "Send Congestion and Peer Congestion FPINs (TxWait over a "
                           "window at an F_Port).", True)
    congestion_window: PositiveTime = key("1 s", "The congestion window, s (an assumption).",
                                          "1 ms")
    congestion_warning: TxWaitShare = key(0.1, "TxWait share of a window from which the "
                                          "F_Port's N_Port is congested (a warning; an "
                                          "assumption).", 0.05)
    congestion_alarm: TxWaitShare = key(0.3, "TxWait share of a window from which the "
                                        "congestion is an alarm (an assumption).", 0.5)
    signals: Flag = key(False, "The F_Ports send congestion signals (warning, alarm) to the "
                        "N_Ports that take them (EDC).", True)
    signal_period: PositiveTime = key("100 ms", "Time between two signals (lpfc's "
                                      "lpfc_fabric_cgn_frequency, 100 ms).", "1 ms")
    delivery: Flag = key(False, "Send Delivery FPINs to the N_Ports whose frames a switch "
                         "removed after its hold time.", True)
    delivery_window: PositiveTime = key("1 s", "Delivery notifications are gathered over this "
                                        "window, one per N_Port and output (an assumption).",
                                        "1 ms")
    throttle: Flag = key(False, "Every FCP initiator and FC-NVMe host throttles its "
                         "outstanding commands on congestion notifications and signals for "
                         "its own port (needs congestion or signals).", True)
    throttle_recovery: PositiveTime = key("90 ms", "Quiet time after which a throttled "
                                          "initiator's limit rises by one command (lpfc "
                                          "LPFC_CMF_INTERVAL, 90 ms).", "1 ms")
