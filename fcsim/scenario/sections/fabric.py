"""The ``[fabric]`` table: a fabric generated from a few counts rather than
listed switch by switch (see :mod:`fcsim.fabric.shapes` and :mod:`fcsim.scenario.generate`)."""

from __future__ import annotations

from typing import Any

from pydantic import create_model

from fcsim.fabric.shapes import KINDS, PATTERNS
from fcsim.scenario.sections.links import (
    ROUTING_HELP,
    Distance,
    PortBuffers,
    RoutingPolicy,
    SwitchModelName,
)
from fcsim.scenario.sections.nodes import BbScN, DeviceName, NodeKeys, VirtualPorts
from fcsim.scenario.sections.workloads import EXCHANGES_HELP, ExchangeUse
from fcsim.schema.fields import Count, Flag, Speed, choice, integer, size, table, value_type
from fcsim.schema.link_fields import SPEED_HELP, CableLength
from fcsim.schema.section import Section, key
from fcsim.storage.config import FioSection, Rw

Kind = choice(dict(zip(KINDS, KINDS, strict=True)))
Domains = integer(2, 239, "an integer 2..239 (switches, each a fabric domain)")
Cores = integer(1, 238, "an integer 1..238 (core switches, fewer than switches)")
Pods = integer(2, 12, "an even integer 2..12 (k of a k-ary fat tree: 5k²/4 switches, at "
               "most 239 domains)")
NPorts = integer(1, 255, "an integer 1..255 (N_Ports on each edge switch)")
Traffic = choice({"none": "none"} | dict(zip(PATTERNS, PATTERNS, strict=True)))
Targets = integer(1, 65535, "an integer >= 1 (target N_Ports, fewer than the N_Ports)")
Sources = integer(1, 65535, "an integer >= 1 (source N_Ports, fewer than the N_Ports)")
Seed = integer(0, 2**63 - 1, "an integer 0..2^63-1")
StreamSize = size(1, text="a size with a unit such as '16 KiB', >= 1 B")

NODE_KEYS = ("bb_credit", "rx_data_field", "ee_credit", "classes", "concurrent_sequences",
             "busy_retry", "e_d_tov", "rx_frame_time")
"""The [[nodes]] keys (login service parameters) a generated N_Port may be given."""


class _GeneratedNode(Section):
    """The login service parameters of every generated N_Port, keys of
    `[[nodes]]` with their meaning and defaults there (a generated N_Port
    is a bare N_Port: no host, no target)."""

    where = "in [fabric.node]"


GeneratedNodeSection: Any = create_model(
    "GeneratedNodeSection", __base__=_GeneratedNode, __doc__=_GeneratedNode.__doc__,
    **{name: (NodeKeys.model_fields[name].annotation, NodeKeys.model_fields[name])
       for name in NODE_KEYS})
"""`[fabric.node]`: the keys of :data:`NODE_KEYS`, each declared once, in `NodeKeys`."""
GeneratedNode = table(GeneratedNodeSection, "a table, written [fabric.node]")


TIERS = ("edge", "core")
"""The tiers storage targets may be placed on by name."""


def _placement(value: Any) -> str | tuple[str, ...]:
    if isinstance(value, str) and value in TIERS:
        return value
    if not (isinstance(value, list) and value and all(isinstance(v, str) and v.strip()
                                                      for v in value)
            and len(set(value)) == len(value)):
        raise ValueError()
    return tuple(value)


Placement = value_type(object, _placement, "'edge', 'core' or a list of distinct generated "
                       "switch names such as ['c0', 'c1']",
                       {"anyOf": [{"type": "string", "enum": list(TIERS)}, {
                           "type": "array", "items": {"type": "string", "minLength": 1},
                           "minItems": 1, "uniqueItems": True}]})
"""Where generated storage targets attach: a tier or named switches."""
StorageWorkload = choice({"fio": "fio", "none": "none"})
StorageCount = integer(1, 65535, "an integer >= 1 (storage targets)")
FIO_KEYS = ("bs", "iodepth", "numjobs")
"""The fio keys (besides rw) of the workload generated towards storage targets."""


class _GeneratedStorage(Section):
    """Storage targets of a generated fabric: `count` FCP targets t0, t1, ...,
    each with one logical unit served by the device `model`, placed round robin
    on the switches `on` names, each on the next free port. With `workload =
    'fio'` every generated N_Port runs one fio job against target j mod
    `count` (N_Port j in generated order), named fio0, fio1, ...; its options
    are fio's, as in [[workloads]] with type = 'fio'. See docs/fabrics.md."""

    where = "in [fabric.storage]"

    count: StorageCount = key(help="How many storage targets, named t0, t1, ....", example=4)
    on: Placement = key("core", "Where they attach: 'core' (the core switches; a full mesh "
                        "has none), 'edge' (the edge switches; every switch of a full mesh) "
                        "or a list of generated switch names; round robin, target i on "
                        "switch i mod their number, each on the port after the highest the "
                        "switch uses.", ["c0", "c1"])
    model: DeviceName = key(help="The device behind each target, as [[nodes]] target: a "
                            "model in models/disks/, models/ramdisks/ or models/arrays/, or a "
                            "model file path ending in .toml.", example="tms-ramsan")
    speed: Speed = key(None, "Line speed of the targets' links (default: [fabric] speed). "
                       + SPEED_HELP, "8GFC")
    length: CableLength = key(None, "Cable length of the targets' links, m (default: "
                              "[fabric] length).", "5 m")
    workload: StorageWorkload = key("fio", "'fio': every generated N_Port runs an fio job "
                                    "against a target (fio0, fio1, ...); 'none': the file's "
                                    "[[workloads]] address the targets.", "none")
    rw: Rw = key("read", "The generated fio jobs' access pattern, fio --rw.", "randread")
    iodepth: Count = key(1, "Commands outstanding per generated fio job, fio --iodepth; at "
                         "most the target's queue depth (one depth: the generated jobs do "
                         "not sweep).", 32)


GeneratedStorageSection: Any = create_model(
    "GeneratedStorageSection", __base__=_GeneratedStorage, __doc__=_GeneratedStorage.__doc__,
    **{name: (FioSection.model_fields[name].annotation, FioSection.model_fields[name])
       for name in FIO_KEYS if name != "iodepth"})
"""`[fabric.storage]`, its fio keys of :data:`FIO_KEYS` declared once, in `FioSection`
(but iodepth, one depth here where a job's may be a sweep)."""
GeneratedStorage = table(GeneratedStorageSection, "a table, written [fabric.storage]")


class FabricSection(Section):
    """A generated fabric: its switches, N_Ports and links are made from these
    counts and appended to any listed in `[[switches]]`, `[[nodes]]` and
    `[[links]]` (then checked and built exactly as listed ones). `core-edge`:
    `cores` core switches c0, c1, ... and the other switches edges e0, e1, ...,
    every edge joined to every core. `full-mesh`: switches s0, s1, ... each
    joined to every other. `fat-tree`: the three-level k-ary fat tree (Al-Fares
    et al., SIGCOMM 2008), k = `pods`: per pod p, k/2 edge switches p<p>e<i>
    joined to its k/2 aggregation switches p<p>a<j>, those joined to the
    (k/2)² cores c0, c1, .... N_Ports sit on the edge switches (every switch
    of a full mesh), named after their switch: e3n5 is N_Port 5 of e3, on its
    port 5; ISLs follow on the next ports. [[workloads]] may name these
    N_Ports. See docs/fabrics.md."""

    where = "in [fabric]"

    kind: Kind = key(help="The fabric's shape: 'core-edge', 'full-mesh' or 'fat-tree'.",
                     example="core-edge")
    switches: Domains = key(None, "core-edge and full-mesh: how many switches (domains) in "
                            "all, cores included.", 239)
    cores: Cores = key(None, "core-edge only: how many of the switches are cores (default: "
                       "2).", 4)
    pods: Pods = key(None, "fat-tree only: k, the pods (even): k²/2 edge, k²/2 aggregation "
                     "and k²/4 core switches.", 8)
    model: SwitchModelName = key(help="The switch model of the edge switches (every switch "
                                 "of a full mesh): a file name in models/switches/ (no "
                                 ".toml) or a model file path ending in .toml.",
                                 example="generic-nonblocking")
    core_model: SwitchModelName = key(None, "The switch model of the core (and fat-tree "
                                      "aggregation) switches (default: model).",
                                      "generic-director-256")
    nodes_per_switch: NPorts = key(help="N_Ports on each edge switch (every switch of a full "
                                   "mesh), on its ports 0, 1, ...; each is a node with the "
                                   "[[nodes]] defaults, or the service parameters of "
                                   "[fabric.node].", example=17)
    routing: RoutingPolicy = key(None, "Every generated switch: " + ROUTING_HELP,
                                 "exchange-based")
    isls: Count = key(1, "Inter-switch links joining each pair of joined switches.", 2)
    isl_trunking: Flag = key(False, "The isls (2..8) of each joined pair form one ISL trunk, "
                             "named A-B after its switches (docs/fabric-services.md, 'ISL "
                             "trunking'); default: parallel ISLs.", True)
    bb_sc_n: BbScN = key(0, "Every generated switch's bb_sc_n, as in [[switches]]: the BB "
                         "credit recovery its ports offer (docs/fabric-services.md, 'BB "
                         "credit recovery').", 8)
    speed: Speed = key(help="Line speed of the links from N_Ports to their switch. "
                       + SPEED_HELP, example="4GFC")
    length: CableLength = key("0 m", "Cable length from each N_Port to its switch, m.",
                              "5 m")
    isl_speed: Speed = key(None, "Line speed of the inter-switch links (default: speed).",
                           "8GFC")
    isl_length: CableLength = key("0 m", "Cable length of each inter-switch link, m.",
                                  "500 m")
    core_isl_speed: Speed = key(None, "fat-tree only: line speed of the aggregation-core "
                                "links (default: isl_speed, which then sets the edge-"
                                "aggregation links).", "32GFC")
    isl_bb_credit: PortBuffers = key(None, "Receive buffers of the switch ports of every "
                                     "inter-switch link, as [[links]] bb_credit (default: "
                                     "the switch models').", 64)
    isl_long_distance: Distance = key(None, "The distance the switch ports of every "
                                      "inter-switch link are configured for, as [[links]] "
                                      "long_distance; not with isl_bb_credit.", "10 km")
    node: GeneratedNode = key(None, "Login service parameters of every generated N_Port, "
                              "as in [[nodes]]: " + ", ".join(NODE_KEYS) + " (default: "
                              "those of [[nodes]]).", {"bb_credit": 32, "ee_credit": 8})
    virtual_ports: VirtualPorts = key(0, "Virtual N_Ports (NPIV) behind every generated "
                                      "N_Port (not the storage targets), as [[nodes]] "
                                      "virtual_ports: e3n5.v1 .. e3n5.v<n>, each logging in "
                                      "with FDISC; each switch port accepts its model's "
                                      "npiv_logins and refuses the rest (LS_RJT). Needs "
                                      "run.login = true and no faults "
                                      "(docs/fabric-services.md, 'NPIV').", 4)
    traffic: Traffic = key("none", "Generated workloads, each a saturating Class 3 stream: "
                           "'none'; 'ring': from N_Port 0 of each edge switch to N_Port 1 "
                           "(N_Port 0 if it has one) of the next edge switch, the last to "
                           "the first, named ring0, ring1, ...; 'permutation': N_Port i of "
                           "the N generated ones (in order) to N_Port (i + N/2) mod N, "
                           "named perm0, ...; 'random-pairs': every N_Port to another drawn "
                           "at random (traffic_seed), named pair0, ...; 'fan-in': every "
                           "N_Port but the last `targets` to one of those in turn, named "
                           "fanin0, ...; 'fan-out': the first `sources` N_Ports to every other "
                           "one in turn (one source to many), named fanout0, .... See "
                           "docs/fabrics.md.", "ring")
    targets: Targets = key(1, "fan-in only: how many N_Ports (the last ones generated) "
                           "receive.", 4)
    sources: Sources = key(1, "fan-out only: how many N_Ports (the first ones generated) "
                           "send.", 2)
    traffic_seed: Seed = key(1, "random-pairs only: the seed of the draw (the same seed, "
                             "the same pairs).", 7)
    stream_size: StreamSize = key("16 KiB", "Generated traffic: bytes per sequence of each "
                                  "stream.", "64 KiB")
    outstanding: Count = key(2, "Generated traffic: sequences each stream keeps in flight.",
                             4)
    exchanges: ExchangeUse = key("per-slot", "Generated traffic: " + EXCHANGES_HELP[0].lower()
                                 + EXCHANGES_HELP[1:],
                                 "per-sequence")
    storage: GeneratedStorage = key(None, "Storage targets attached to the generated "
                                    "switches, and fio jobs from the generated N_Ports to "
                                    "them (default: none).", {"count": 2, "on": "core",
                                                              "model": "tms-ramsan",
                                                              "bs": "64 KiB", "iodepth": 4})
