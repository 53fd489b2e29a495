"""The ``[[links]]`` and ``[[switches]]`` tables: cables between ports, and the
switches of a fabric."""

from __future__ import annotations

from fcsim.fabric.routing import POLICIES
from fcsim.fabric.switch_model import load_switch_model
from fcsim.fabric.virtual_channels import ASSIGNMENTS
from fcsim.scenario.sections.nodes import BbScN, model_name
from fcsim.schema.fields import (
    Ends,
    Flag,
    Name,
    PositiveTime,
    Propagation,
    Speed,
    choice,
    integer,
    length,
    number,
)
from fcsim.schema.link_fields import (
    ARB_FF_HELP,
    CODING_HELP,
    DEFAULT_PROPAGATION,
    FEC_HELP,
    PROPAGATION_HELP,
    SPEED_HELP,
    BitErrorRate,
    BitErrorRates,
    CableLength,
    Coding,
    EndFlags,
)
from fcsim.schema.section import Section, key

Cost = number("a number > 0 (FSPF cost of an inter-switch link)", above=True)
PortBuffers = integer(1, text="an integer >= 1 (receive buffers of each switch port of the "
                      "link)")
Distance = length("a length with a unit such as '50 km', > 0 m", above=True)
BB_CREDIT_HELP = ("Receive buffers each switch port at an end of the link offers, the BB "
                  "credit its peer gets, in place of the switch model's: a port configured "
                  "for a long ISL, as Cisco MDS 'switchport fcrxbbcredit N' or Brocade "
                  "'portcfglongdistance PORT LS 1 -buffers N' do (default: the model's "
                  "bb_credit). An N_Port's own buffers are its node's bb_credit.")
LONG_DISTANCE_HELP = ("The distance the link's switch ports are configured for, as Brocade "
                      "'portcfglongdistance PORT LS DISTANCE' (static long-distance mode): "
                      "each offers ceil(km x Gbit/s / 2) receive buffers to data frames, "
                      "Gbit/s the speed's nominal rate (4 for 4GFC), Brocade's reserve less "
                      "its 6 buffers for fabric services (fcsim/fabric/long_distance.py); "
                      "not with bb_credit.")
TRUNK_HELP = ("The ISL trunk this inter-switch link is a member of (Brocade ISL Trunking): "
              "the links naming one trunk, 2 to 8 between the same two switches at one "
              "speed, configured alike, their cable lengths within 550 m of each other, act "
              "as one link, frames spread over them frame by frame and delivered in order. "
              "The first listed is the trunk master. Its name is not a link's. "
              "(docs/fabric-services.md, 'ISL trunking'; default: none).")
SwitchModelName = model_name(load_switch_model, "switch", "models/switches/")
Domain = integer(1, 239, "a domain ID 1..239 (default: 1, 2, ... in order)")
RoutingPolicy = choice(dict(zip(POLICIES, POLICIES, strict=True)))
ROUTING_HELP = ("How the switch chooses among equal-cost next hops: 'port-based' (a static "
                "route per ingress port), 'device-based' (a hash of S_ID and D_ID) or "
                "'exchange-based' (a hash of S_ID, D_ID and OX_ID; Brocade DPS, Cisco "
                "src-dst-ox-id). Default: the switch model's.")


class LinkSection(Section):
    """A cable joining two ports, the same in both directions. In a fabric an end
    is a node name or a switch port written 'switch:port' (ports numbered from
    0): a node and a switch port (`["host", "core:3"]`), or two switch ports for
    an inter-switch link (`["core:15", "edge:15"]`); several ISLs may join the
    same two switches."""

    where = "in [[links]]"
    elsewhere = {name: ("only on a link of a fabric: it sets the receive buffers of the "
                        "link's switch ports (a node's own are its bb_credit)")
                 for name in ("bb_credit", "long_distance")} | {
        name: "only on an inter-switch link of a fabric (virtual channels)"
        for name in ("virtual_channels", "vc_credit", "vc_assignment")}

    name: Name = key(None, "The link's name, unique among links (default: link<i>, i its "
                     "position in the file from 0).", "fibre")
    ends: Ends = key(
        help="The two ends: node names, or in a fabric switch ports 'switch:port'.",
        example=["host", "disk"])
    speed: Speed = key(help=SPEED_HELP, example="1GFC")
    coding: Coding = key(None, CODING_HELP, "8b/10b")
    length: CableLength = key("0 m", "Cable length, m.", "10 km")
    propagation: Propagation = key(DEFAULT_PROPAGATION, PROPAGATION_HELP, "4.9 us/km")
    bit_error_rate: BitErrorRate = key(
        0.0, "Probability that a line bit is received in error, the same in both "
        "directions; a frame with a bit in error fails its CRC. At 32GFC and faster it "
        "is the rate before FEC: a frame is lost only when a codeword it touches has "
        "more symbols in error than the code corrects (docs/model.md).", 1e-12)
    bit_error_rates: BitErrorRates = key(
        None, "The bit error rate of each direction: frames from the first end to the "
        "second, then back (instead of bit_error_rate).", [1e-9, 1e-12])
    fec: EndFlags = key(None, FEC_HELP, True)
    arb_ff_fill: EndFlags = key(None, ARB_FF_HELP, [True, False])
    cost: Cost = key(
        None, "The FSPF cost of an inter-switch link (default: 1000 at 1.0625 Gbaud, "
        "inversely proportional to the line bit rate). Routes take the least total cost; "
        "exchanges are spread over equal-cost next hops.", 500)


Channels = integer(2, 64, "an integer 2..64 (virtual channels, channel 0 included)")
ChannelBuffers = integer(1, text="an integer >= 1 (receive buffers of each virtual channel)")
ChannelAssignmentName = choice(dict(zip(ASSIGNMENTS, ASSIGNMENTS, strict=True)))
VIRTUAL_CHANNELS_HELP = (
    "Split this inter-switch link into virtual channels, each with receive buffers and BB "
    "credit of its own, returned per channel with ER_RDY (FC-FS-5 Extended R_RDY; Cisco "
    "MDS 'Extended Receiver Ready', Brocade VC_RDY): channel 0 carries link control and "
    "what the switches send themselves, data frames take the channel vc_assignment gives "
    "them, and a channel without credit holds up only its own frames. Both switches need "
    "virtual output queues. Brocade ISLs have 8 (FOS), Cisco ER_RDY 4 (NX-OS 8.x). See "
    "docs/congestion.md (default: none, one pool of credit and R_RDY).")
VC_CREDIT_HELP = ("Receive buffers of each virtual channel at each end of the link, the BB "
                  "credit per channel its peer gets (default: the port's buffers, bb_credit "
                  "or the switch model's, split evenly among the channels, at least 1: an "
                  "assumption, vendors set the split per platform).")
VC_ASSIGNMENT_HELP = ("How data frames take the data channels: 'destination' (channel 1 + "
                      "the destination's Area_ID mod the data channels, as Brocade maps "
                      "medium-priority traffic by destination address) or 'priority' "
                      "(Cisco's four virtual links: VL0 control, VL1 high priority, VL2 "
                      "slow devices, VL3 normal: the frames of high-priority QoS zones "
                      "on 1, the flows to isolated devices on 2, every other data frame "
                      "on 3; needs exactly 4).")


class FabricLinkSection(LinkSection):
    """A link of a fabric may give the switch ports at its ends receive buffers
    of their own, as a switch is configured for an extended-distance ISL:
    either a count (`bb_credit`) or the distance they are reserved for
    (`long_distance`, Brocade's formula). The N_Port at a node's end keeps its
    node's `bb_credit`."""

    where = "in [[links]] of a fabric"
    elsewhere = {}

    bb_credit: PortBuffers = key(None, BB_CREDIT_HELP, 64)
    long_distance: Distance = key(None, LONG_DISTANCE_HELP, "50 km")
    virtual_channels: Channels = key(None, VIRTUAL_CHANNELS_HELP, 4)
    vc_credit: ChannelBuffers = key(None, VC_CREDIT_HELP, 8)
    vc_assignment: ChannelAssignmentName = key("destination", VC_ASSIGNMENT_HELP,
                                               "priority")
    trunk_group: Name = key(None, TRUNK_HELP, "t1")


class SwitchSection(Section):
    """A switch of a fabric. Its model fixes the ports, receive buffers (the BB
    credit it offers), routing latency, cut-through or store-and-forward, input
    FIFOs or virtual output queues, crossbar speedup, central routing rate and
    hold time; each value in the model file says where it comes from (see
    `models/README.md`)."""

    where = "in [[switches]]"

    name: Name = key(help="The switch's name, unique among switches.", example="core")
    model: SwitchModelName = key(
        help="The switch model: a file name in models/switches/ (no .toml), or the path of "
        "a model file ending in .toml, relative to the scenario file.",
        example="ancor-fcs-266-16")
    domain: Domain = key(
        None, "The switch's fabric domain ID, unique (default: 1, 2, ... in file order).", 5)
    routing: RoutingPolicy = key(None, ROUTING_HELP, "device-based")
    bb_sc_n: BbScN = key(
        0, "BB credit recovery (FC-FS-5 BB_SC_N) every port of the switch offers at login "
        "(FLOGI's LS_ACC; ELP on an ISL): 0 none; n = 1..15 a checkpoint every 2^n frames "
        "and R_RDYs, used on a link whose other end offers it too (the larger n), as "
        "Cisco MDS 'switchport fcbbscn' or Brocade's credit recovery on long-distance "
        "E_Ports configure it (docs/fabric-services.md, 'BB credit recovery').", 8)
    in_order_delivery: Flag = key(
        False, "In-order delivery across route changes (Brocade 'iodset', Cisco MDS "
        "'in-order-guarantee'; both off by default): when new FSPF routes change the next "
        "hops towards a domain, the switch holds the frames it routes towards that domain "
        "for drop_latency, so that none overtakes a frame still on the old path "
        "(docs/faults.md, \"In-order delivery\"). Without it, frames of an exchange moved "
        "to a faster path may arrive before earlier ones.", True)
    drop_latency: PositiveTime = key(
        "2 s", "With in_order_delivery: how long forwarding towards a domain pauses after "
        "its route changed (Cisco MDS 'fcdroplatency network'; its 2000 ms default is "
        "an assumption, docs/faults.md), s.",
        "1 ms")

