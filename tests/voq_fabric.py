"""A flow test's fabric put on virtual-output-queue switches: the switch model
the flow model's closed forms are written for (no head-of-line blocking,
crossbar speedup 2), with the buffers, routing latency and forwarding a test
varies."""

from __future__ import annotations

from dataclasses import replace

from fcsim.fabric.switch_model import SwitchModel
from fcsim.fc2.login import ServiceParameters
from fcsim.scenario.model import Scenario


def on_voq(scenario: Scenario, switch_credit: int, latency: float, cut_through: bool,
           node_credit: int | None = None) -> Scenario:
    """*scenario* with every switch a virtual-output-queue switch of
    *switch_credit* buffers a port, *latency* s of routing (*cut_through* or
    store-and-forward) and crossbar speedup 2, and every N_Port given
    *node_credit* BB credit (None: the N_Ports as they are)."""
    voq = SwitchModel(name="voq", ports=64, bb_credit=switch_credit, routing_latency=latency,
                      cut_through=cut_through, virtual_output_queues=True, crossbar_speedup=2.0)
    scenario = replace(scenario, switches=tuple(replace(s, model=voq) for s in scenario.switches))
    if node_credit is None:
        return scenario
    return replace(scenario, nodes=tuple(replace(n, params=ServiceParameters(bb_credit=node_credit))
                                         for n in scenario.nodes))
