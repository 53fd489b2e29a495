"""Point-to-point topology: two N_Ports on one full-duplex link."""

from __future__ import annotations

from collections.abc import Sequence

from fcsim.engine.simulation import Simulation
from fcsim.fc2.credit_recovery import negotiated_bb_sc_n
from fcsim.fc2.login import NodeSpec
from fcsim.fc2.nport import NPort
from fcsim.fc2.port_kinds import make_port
from fcsim.link.link import Link, LinkSpec
from fcsim.topology.network import Network

DEFAULT_PORT_IDS = (0x000001, 0x000002)
"""N_Port IDs given when a scenario sets none (point-to-point has no fabric to
assign them; FC-FS lets the two ports choose)."""


def build_point_to_point(
    sim: Simulation, nodes: Sequence[NodeSpec], links: Sequence[LinkSpec],
    recovering: bool = False,
) -> Network:
    """Build two N_Ports, join them with the one link and log them in; with
    *recovering* (the scenario has faults) their ports recover from link
    faults (:class:`~fcsim.fc2.recovering_port.RecoveringPort`).

    Login is implicit and takes no time: each port's BB credit is the other's
    receive buffers, and each learns the other's receive limits and EE credit.
    """
    if len(nodes) != 2 or len(links) != 1:
        raise ValueError(
            f"point-to-point needs exactly 2 nodes and 1 link, got {len(nodes)} and {len(links)}")
    net = Network()
    bb_sc_n = negotiated_bb_sc_n(*(config.params.bb_sc_n for config in nodes))
    for config, default_id in zip(nodes, DEFAULT_PORT_IDS, strict=True):
        port_id = default_id if config.port_id is None else config.port_id
        params = config.params
        port = make_port(sim, config.name, params.bb_credit, params.e_d_tov, recovering, bb_sc_n)
        net.nodes[config.name] = NPort(sim, config.name, port_id, params, port=port)
    a, b = net.nodes.values()
    if a.port_id == b.port_id:
        raise ValueError(f"nodes {a.name} and {b.name} have the same N_Port ID {a.port_id:06X}")
    link = links[0]
    if set(link.ends) != {a.name, b.name}:
        raise ValueError(f"link {link.name} must join {a.name} and {b.name}, got {link.ends}")
    net.links[link.name] = Link(link.name, a.port, b.port, link.speed, link.cable,
                                link.bit_error_rate, link.error_rates)
    for near, far in ((a, b), (b, a)):
        near.port.login(far.params.bb_credit)
        near.login(far)
        near.port.check_wired()
    return net
