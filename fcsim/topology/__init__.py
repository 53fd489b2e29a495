"""Topology builders: the only code that creates ports and links and wires them."""

from fcsim.topology.network import Network
from fcsim.topology.point_to_point import build_point_to_point

__all__ = ["Network", "build_point_to_point"]
