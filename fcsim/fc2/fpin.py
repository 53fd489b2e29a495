"""Fabric Performance Impact Notifications (FPIN): what an N_Port is told.

FC-LS-5 defines the FPIN extended link service (command 0x16), by which the
fabric (or a peer) tells a registered N_Port of conditions that impair its
traffic. Each notification carries one or more descriptors, identified by a
tag (Linux ``include/uapi/scsi/fc/fc_els.h``, ``enum fc_ls_tlv_dtag``):

- Link Integrity (0x00020001): a link is marginal; counts of a link error
  over the switch's window passed its threshold;
- Delivery (0x00020002): a frame to or from the N_Port was not delivered
  (timeout, unable to route);
- Peer Congestion (0x00020003): a port the N_Port talks to is congested (a
  slow drain: lost credit, credit stall, oversubscription);
- Congestion (0x00020004): the N_Port's own port is congested, with a
  severity (warning or alarm).

These records are what the receiving N_Port hands to its listeners: the
fabric builds them, the host side (a multipath layer marking a path
marginal, an initiator throttling its outstanding I/O) reacts. Port names
are the 64-bit World Wide Port Names of :func:`fcsim.fc2.els_payload.port_name`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

ELS_FPIN = 0x16
"""Fabric Performance Impact Notification (FC-LS-5)."""

TAG_LINK_INTEGRITY = 0x00020001
TAG_DELIVERY = 0x00020002
TAG_PEER_CONGESTION = 0x00020003
TAG_CONGESTION = 0x00020004


@dataclass(frozen=True, slots=True)
class LinkIntegrity:
    """A link between *detecting* and *attached* ports is marginal: *count*
    events of *event_type* (Linux ``enum fc_fpin_li_event_types``, e.g. 0x3
    loss of signal, 0x6 invalid CRC) over the detecting port's window passed
    *threshold*. *affected* lists the N_Ports whose traffic crosses the link."""

    event_type: int
    detecting: int
    attached: int
    threshold: int
    count: int
    affected: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Delivery:
    """A frame between *detecting* and *attached* was not delivered, for
    *reason* (Linux ``enum fc_fpin_deli_event_types``: 0x1 timeout, 0x2
    unable to route)."""

    reason: int
    detecting: int
    attached: int


@dataclass(frozen=True, slots=True)
class PeerCongestion:
    """The ports in *affected*, reached through *attached*, are congested by
    *event_type* (Linux ``enum fc_fpin_peer_congn_event_types``: 0x0 clear,
    0x1 lost credit, 0x2 credit stall, 0x3 oversubscription), over *period*
    seconds."""

    event_type: int
    detecting: int
    attached: int
    period: float
    affected: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Congestion:
    """The receiving N_Port's own port is congested by *event_type* (as
    :class:`PeerCongestion`), at *severity* (0xF1 warning, 0xF7 alarm),
    over *period* seconds."""

    event_type: int
    severity: int
    period: float


Descriptor = LinkIntegrity | Delivery | PeerCongestion | Congestion
"""One FPIN descriptor."""


class FpinListener(Protocol):
    """What takes the notifications an N_Port receives (a multipath layer, an
    initiator that throttles): registered on the N_Port when the network is
    built."""

    def fpin_received(self, port_name: int, descriptor: Descriptor) -> None:
        """*descriptor* arrived in an FPIN at the N_Port named *port_name*."""
