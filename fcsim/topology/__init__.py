"""A built network's containers (:class:`~fcsim.topology.network.Network`, the
Ethernet and Myrinet networks' :class:`~fcsim.topology.network.LanNetwork`),
the point-to-point builder and the internetwork of several networks. Each
technology's builder is in its own package (``fcsim/<technology>/build.py``);
builders read their sections through the Protocols they declare, never
:mod:`fcsim.scenario`."""

from fcsim.topology.network import Network
from fcsim.topology.point_to_point import build_point_to_point

__all__ = ["Network", "build_point_to_point"]
