"""Transport layer: TCP as the BSD-derived stacks of the 1990s did it, and UDP.

Pure protocol logic driven by events; it never touches Fibre Channel. A host
model wraps it and charges CPU time around the calls (docs/tcp.md).
"""

from fcsim.transport.segment import HEADER_BYTES, Segment
from fcsim.transport.tcb import State, TcpControlBlock, TcpCounters
from fcsim.transport.tcp import TcpEndpoint
from fcsim.transport.tcp_config import Negotiated, TcpConfig
from fcsim.transport.udp import Datagram, UdpEndpoint

__all__ = ["HEADER_BYTES", "Datagram", "Negotiated", "Segment", "State", "TcpConfig",
           "TcpControlBlock", "TcpCounters", "TcpEndpoint", "UdpEndpoint"]
