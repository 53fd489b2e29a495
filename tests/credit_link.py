"""A point-to-point link whose ports recover from faults, with BB credit
recovery, for the BB_SC_N tests (docs/faults.md, "BB credit recovery")."""

from __future__ import annotations

import copy
from typing import Any

from fcsim.build import build_workloads
from fcsim.engine.simulation import Simulation
from fcsim.scenario.loader import read_document, scenario_from_document
from fcsim.topology.network import Network
from fcsim.topology.point_to_point import build_point_to_point

EXAMPLE = "scenarios/p2p-bb-credit-recovery.toml"


class Line:
    """Trace sink keeping each port's frames (start, end) and primitives
    (name, start), in the order sent."""

    def __init__(self) -> None:
        self.frames: dict[str, list[tuple[float, float]]] = {}
        self.primitives: dict[str, list[tuple[str, float]]] = {}

    def frame(self, time: float, port: Any, frame: Any, start: float, end: float) -> None:
        if frame.uses_bb_credit:
            self.frames.setdefault(port.name, []).append((start, end))

    def primitive(self, time: float, port: Any, name: str, start: float) -> None:
        self.primitives.setdefault(port.name, []).append((name, start))

    def state(self, time: float, port: Any, change: str) -> None:
        """State changes are not needed here."""


def credit_link(bb_sc_n: int, count: int | None = None, length: str | None = None,
                credit: int | None = None) -> tuple[Simulation, Network, Line]:
    """The example's host-to-disk write (2 KiB sequences at 4GFC over 2 km, or
    *length*), without its faults, both ends offering *bb_sc_n*, built with
    recovering ports; *count*: sequences the host sends in all (None: to the
    end); *credit*: the disk's receive buffers (None: the default)."""
    doc = copy.deepcopy(read_document(EXAMPLE))
    doc.pop("faults")
    if length is not None:
        doc["links"][0]["length"] = length
    if credit is not None:
        doc["nodes"][1]["bb_credit"] = credit
    for node in doc["nodes"]:
        node["bb_sc_n"] = bb_sc_n
    if count is not None:
        doc["workloads"][0]["count"] = count
    scenario = scenario_from_document(doc, EXAMPLE)
    sim = Simulation(1)
    line = Line()
    sim.sinks.append(line)
    net = build_point_to_point(sim, scenario.nodes, scenario.links, recovering=True)
    build_workloads(sim, scenario, net)
    return sim, net, line
