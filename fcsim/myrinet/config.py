"""The tables of a Myrinet network (``topology = "myrinet"``): Myrinet switches
and the cables between them, and the field types of its hosts' LANai NICs.
The hosts' own table, which also gives their disks and the Slice block I/O
service they may run over Trapeze, is
:mod:`fcsim.scenario.sections.myrinet_nodes`'s."""

from __future__ import annotations

from fcsim.catalog import model_name
from fcsim.fc0.speed import CATALOG
from fcsim.myrinet.switch import load_myrinet_switch_model
from fcsim.schema.fields import Ends, Name, Propagation, choice, integer
from fcsim.schema.link_fields import DEFAULT_PROPAGATION, PROPAGATION_HELP, CableLength
from fcsim.schema.section import Section, key

MAX_MTU = 65535
"""The largest IP MTU a Myrinet node may have, bytes: IPv4's own limit (the
total length field, RFC 791). Myrinet packets may be of any length."""
MYRINET_SPEEDS = ("Myrinet-1280", "Myrinet-2000")
"""The catalog speeds of Myrinet links."""

Mtu = integer(68, MAX_MTU, f"an integer 68..{MAX_MTU} (bytes; 9000 is Myricom's GM "
                           f"driver's, {MAX_MTU} IPv4's limit)")
MyrinetSpeed = choice({name: CATALOG[name] for name in MYRINET_SPEEDS},
                      "'Myrinet-1280' (1.28 Gbit/s: LANai 4 to 7) or 'Myrinet-2000' "
                      "(2 Gbit/s: LANai 9)")
MyrinetSwitchName = model_name(load_myrinet_switch_model, "Myrinet switch",
                               "models/myrinet-switches/")


class MyrinetLinkSection(Section):
    """A Myrinet cable: host to switch port, switch port to switch port, or host
    to host. Every link of a network runs at one speed. Cables between
    switches may not close a loop (routes are shortest paths), and a cable
    into a switch port may be no longer than that port's slack buffer covers
    (a STOP must take effect before the buffer overflows)."""

    where = "in [[links]] of a Myrinet network"
    elsewhere = {"vlan": "no vlan on Myrinet: switches route by the packets' source routes",
                 "bit_error_rate": "no bit_error_rate on Myrinet links: transmission "
                                   "errors are not modelled there",
                 "bit_error_rates": "no bit_error_rates on Myrinet links: transmission "
                                    "errors are not modelled there",
                 "coding": "no coding on Myrinet links: the speed fixes it"}

    name: Name = key(None, "The link's name, unique among links (default: link<i>).", "l1")
    ends: Ends = key(help="Two ends: node names or switch ports 'switch:port'.",
                     example=["h1", "sw:0"])
    speed: MyrinetSpeed = key(help="Line speed: Myrinet-1280 (160 million characters a "
                              "second each way) or Myrinet-2000 (8b/10b at 2.5 Gbaud).",
                              example="Myrinet-1280")
    length: CableLength = key("0 m", "Cable length, m.", "3 m")
    propagation: Propagation = key(DEFAULT_PROPAGATION, PROPAGATION_HELP, "6.5 ns/m")


class MyrinetSwitchSection(Section):
    """A Myrinet switch: a source-routed cut-through crossbar with a slack buffer
    and stop/go on every input; its model in `models/myrinet-switches/` gives
    ports, routing latency and slack buffer marks."""

    where = "in [[switches]] of a Myrinet network"
    elsewhere = {"pause": "no pause on Myrinet: every link has stop/go flow control, "
                          "always on (STOP and GO marks in the switch model)",
                 "domain": "no domain on Myrinet: it has no fabric addresses"}

    name: Name = key(help="The switch's name, unique among switches.", example="sw")
    model: MyrinetSwitchName = key(help="The switch model: a name in "
                                   "models/myrinet-switches/ or a model file ending in .toml.",
                                   example="m2f-sw8")
