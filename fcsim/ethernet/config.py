"""The tables of an Ethernet network (``topology = "ethernet"``): hosts with
NICs, Ethernet switches, and links with the VLANs of their switch ports."""

from __future__ import annotations

from typing import Any

from fcsim.catalog import model_name
from fcsim.ethernet.frame import JUMBO_MTU
from fcsim.ethernet.switch import load_ethernet_switch_model
from fcsim.host.config import TIMESTAMPS_HELP, HostName, Load
from fcsim.schema.fields import Ends, Flag, Name, Propagation, Speed, integer, value_type
from fcsim.schema.link_fields import (
    DEFAULT_PROPAGATION,
    PROPAGATION_HELP,
    BitErrorRate,
    BitErrorRates,
    CableLength,
)
from fcsim.schema.section import REQUIRED, Section, key

Mtu = integer(68, JUMBO_MTU, f"an integer 68..{JUMBO_MTU} (bytes; 1500 standard, up to "
                             f"{JUMBO_MTU} with jumbo frames)")
_VLAN_IDS = "a VLAN ID 1..4094"


def _vlans(value: Any) -> tuple[int, ...]:
    items = value if isinstance(value, list) else [value]
    if not (1 <= len(items) <= 2 and all(isinstance(v, int) and not isinstance(v, bool)
                                          and 1 <= v <= 4094 for v in items)):
        raise ValueError()
    return tuple(items)


Vlans = value_type(tuple, _vlans, f"{_VLAN_IDS}, or a list of one per switch-port end such "
                   "as [10, 20]", {"anyOf": [
                       {"type": "integer", "minimum": 1, "maximum": 4094},
                       {"type": "array", "items": {"type": "integer", "minimum": 1,
                                                   "maximum": 4094},
                        "minItems": 1, "maxItems": 2}]})


def _vlan_id(value: Any) -> int:
    if not (isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 4094):
        raise ValueError()
    return value


def _trunk(value: Any) -> tuple[int, ...]:
    if not (isinstance(value, list) and value and len(set(map(repr, value))) == len(value)):
        raise ValueError()
    return tuple(_vlan_id(v) for v in value)


VlanId = value_type(int, _vlan_id, _VLAN_IDS + " (IEEE 802.1Q: 0 and 4095 are reserved)",
                    {"type": "integer", "minimum": 1, "maximum": 4094})
TrunkVlans = value_type(tuple, _trunk, "a list of distinct VLAN IDs 1..4094 such as [10, 20]",
                        {"type": "array", "items": {"type": "integer", "minimum": 1,
                                                    "maximum": 4094},
                         "minItems": 1, "uniqueItems": True})
EthernetSwitchName = model_name(load_ethernet_switch_model, "Ethernet switch",
                                "models/ethernet-switches/")
ETHERNET_SPEED_HELP = ("Line speed: 100BASE-TX (4B/5B at 125 Mbaud), 1000BASE-X (8b/10b at "
                       "1.25 Gbaud: Gigabit Ethernet) or 10GBASE-R (64b/66b at 10.3125 "
                       "Gbaud), or a baud rate.")


class EthernetNodeSection(Section):
    """A host with one Ethernet NIC; IP and TCP/UDP run over it."""

    where = "in [[nodes]] of an Ethernet network"

    name: Name = key(help="The node's name, unique among nodes.", example="h1")
    host: HostName = key(REQUIRED, "The host model (processor, bus and card costs): a model "
                         "in models/hosts/ or a model file path ending in .toml.", "ideal")
    mtu: Mtu = key(1500, "The IP MTU of the NIC, bytes: 1500 standard, up to 9000 with "
                   "jumbo frames (TCP's MSS is 40 bytes less).", 9000)
    background_load: Load = key(None, "Share of the host's processor other processes keep "
                                "busy (default: the host model's own value).", 0.15)
    tcp_timestamps: Flag = key(None, TIMESTAMPS_HELP, True)
    vlan: VlanId = key(None, "Makes the NIC VLAN-aware (IEEE 802.1Q): it tags every frame "
                       "with this VLAN ID and takes only frames tagged with it; its cable "
                       "must be a trunk carrying the VLAN (default: untagged frames).", 10)


class EthernetLinkSection(Section):
    """A cable: host to host, host to switch port, switch port to switch port
    (two ports of one switch in different VLANs make a loop-back that bridges
    them). Its switch ports are access ports of one VLAN each (VLAN 1 by
    default), or, with `trunk`, IEEE 802.1Q trunk ports: the cable carries
    those VLANs tagged (4 more bytes a frame) and `native_vlan` untagged; a
    node on a trunk needs a VLAN-aware NIC (`vlan` in its `[[nodes]]` table)."""

    where = "in [[links]] of an Ethernet network"

    name: Name = key(None, "The link's name, unique among links (default: link<i>).", "l1")
    ends: Ends = key(help="Two ends: node names or switch ports 'switch:port'.",
                     example=["h1", "sw:0"])
    speed: Speed = key(help=ETHERNET_SPEED_HELP, example="1000BASE-X")
    length: CableLength = key("0 m", "Cable length, m.", "100 m")
    propagation: Propagation = key(DEFAULT_PROPAGATION, PROPAGATION_HELP, "5 ns/m")
    bit_error_rate: BitErrorRate = key(0.0, "Probability that a line bit is received in "
                                       "error; a frame with one fails its FCS.", 1e-12)
    bit_error_rates: BitErrorRates = key(
        None, "The bit error rate of each direction: frames from the first end to the "
        "second, then back (instead of bit_error_rate).", [1e-9, 1e-12])
    vlan: Vlans = key(None, "The VLAN of each end that is a switch port, in order: one ID, "
                      "or a list of two for a cable between two switch ports (default: 1). "
                      "Not on a trunk.", [10, 20])
    trunk: TrunkVlans = key(None, "Makes the cable an IEEE 802.1Q trunk carrying these VLANs "
                            "tagged, each frame 4 bytes longer on the line (default: access "
                            "ports, untagged frames).", [10, 20])
    native_vlan: VlanId = key(None, "A trunk only: the VLAN it carries untagged, not one of "
                              "trunk (default: none; untagged frames arriving are dropped).", 1)


class EthernetSwitchSection(Section):
    """An Ethernet switch: store-and-forward, MAC learning, one output FIFO per
    port with tail drop; its model in `models/ethernet-switches/` gives ports,
    buffer and latency."""

    where = "in [[switches]] of an Ethernet network"

    name: Name = key(help="The switch's name, unique among switches.", example="force10")
    model: EthernetSwitchName = key(help="The switch model: a name in "
                                    "models/ethernet-switches/ or a model file ending in .toml.",
                                    example="force10-e-series-class")
    pause: Flag = key(False, "802.3x flow control: an output above the model's "
                      "pause_threshold sends PAUSE to the ports feeding it; NICs always obey "
                      "PAUSE.", True)
